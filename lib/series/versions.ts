import { compareVersions, loadStack, templateFile, type ProxyName } from '../catalog/stack.ts'
import { readMeasurements } from '../data/measurements.ts'
import type { Finding } from '../findings/pooling.ts'
import { median } from '../core/stats.ts'
import type { Cell } from '../measure/cell.ts'
import { closedTasks } from './pooling.ts'
import type { Series } from './types.ts'

/**
 * Every catalog version of every proxy with its article config and with a pool added, in
 * one interleaved phase so versions are compared under the same conditions (seed 000:
 * nginx ≥ 1.29.7 slower on the article config; Traefik and Caddy across releases).
 */
export const VERSION_VARIANTS = ['article', 'pool-added'] as const

export function versionCells(proxies: readonly ProxyName[], connections: number): Cell[] {
  return proxies.flatMap((proxy) => {
    const stack = loadStack(proxy)
    return [...stack.versions].sort((a, b) => compareVersions(a.version, b.version)).flatMap((v) =>
      VERSION_VARIANTS.map((variant): Cell => ({
        series: 'versions', proxy, version: v.version, variant, keyType: 'ec256', connections, stack, stackVersion: v, template: templateFile(stack, variant),
      })),
    )
  })
}

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

export function versionsSeries(): Series {
  return {
    name: 'versions',
    phases: [{ name: 'versions', tasks: (ctx) => closedTasks(versionCells(ctx.proxies, ctx.connections), ctx) }],
    findings: (runDir) => versionFindings(readMeasurements(runDir)),
  }
}
