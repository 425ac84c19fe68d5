import { compareVersions } from '../catalog/stack.ts'
import { VERSION_VARIANTS } from '../catalog/variants.ts'
import { median } from '../core/stats.ts'
import type { Finding } from './types.ts'

/** Per proxy and variant: oldest → newest proxy µs/req, and the ratio newest / oldest. */
export function versionFindings(rows: readonly { series: string; proxy: string; version: string; variant: string; status: string; proxy_cpu_us_per_req: number | null }[]): Finding[] {
  const v = rows.filter((r) => r.series === 'versions' && r.status === 'valid' && r.proxy_cpu_us_per_req !== null)
  const figures: string[] = []
  for (const proxy of [...new Set(v.map((r) => r.proxy))].sort()) {
    for (const variant of VERSION_VARIANTS) {
      const versions = [...new Set(v.filter((r) => r.proxy === proxy && r.variant === variant).map((r) => r.version))].sort(compareVersions)
      if (versions.length < 2) continue
      const cost = versions.map((ver) => median(v.filter((r) => r.proxy === proxy && r.variant === variant && r.version === ver).map((r) => r.proxy_cpu_us_per_req!)))
      figures.push(`${proxy} ${variant} ${versions.map((ver, i) => `${ver} ${cost[i]!.toFixed(1)}`).join(' → ')} µs (${(cost.at(-1)! / cost[0]!).toFixed(2)}x)`)
    }
  }
  return [{ id: 'versions', title: 'proxy CPU per request across catalog versions (oldest → newest)', verdict: figures.length ? 'info' : 'not measured', figure: figures.join('; ') }]
}
