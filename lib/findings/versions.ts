import { compareVersions } from '../catalog/stack.ts'
import { VERSION_VARIANTS } from '../catalog/variants.ts'
import { ratioInterval } from '../core/intervals.ts'
import { keyId, noisyCells } from '../data/grouping.ts'
import { median } from '../core/stats.ts'
import { fmtIv } from './decide.ts'
import { FINDINGS_MODEL } from './load.ts'
import type { Finding } from './types.ts'

type Row = {
  series: string
  proxy: string
  version: string
  variant: string
  model: string
  repeat: number
  status: string
  proxy_cpu_us_per_req: number | null
}

/** Per proxy and variant: oldest → newest proxy µs/req, and the ratio newest / oldest with its interval. */
export function versionFindings(rows: readonly Row[]): Finding[] {
  const v = rows.filter((r) => r.series === 'versions' && r.model === FINDINGS_MODEL && r.status === 'valid' && r.proxy_cpu_us_per_req !== null)
  const figures: string[] = []
  const intervals: NonNullable<Finding['intervals']> = []
  const byCell = noisyCells(v, ['proxy', 'variant', 'version'], (r) => r.proxy_cpu_us_per_req)
  for (const proxy of [...new Set(v.map((r) => r.proxy))].sort()) {
    for (const variant of VERSION_VARIANTS) {
      const versions = [...new Set(v.filter((r) => r.proxy === proxy && r.variant === variant).map((r) => r.version))].sort(compareVersions)
      if (versions.length < 2) continue
      const cells = versions.map((ver) => byCell.get(keyId([proxy, variant, ver]))!)
      const cost = cells.map((c) => median([...c.values()]))
      const ratio = ratioInterval(cells.at(-1)!, cells[0]!)
      intervals.push({ label: `${proxy} ${variant} ${versions.at(-1)}/${versions[0]}`, interval: ratio })
      figures.push(`${proxy} ${variant} ${versions.map((ver, i) => `${ver} ${cost[i]!.toFixed(1)}`).join(' → ')} µs (${fmtIv(ratio, 'x')})`)
    }
  }
  return [
    {
      id: 'versions',
      title: 'proxy CPU per request across catalog versions (oldest → newest)',
      verdict: figures.length ? 'info' : 'not measured',
      figure: figures.join('; '),
      ...(intervals.length ? { intervals } : {}),
    },
  ]
}
