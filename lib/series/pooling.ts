import { basename, resolve } from 'node:path'
import { sha256Text } from '../core/hash.ts'
import { loadStack, variantRunsOn, type ProxyName } from '../catalog/stack.ts'
import { EXTRAS, MAIN_SERIES } from '../catalog/variants.ts'
import { chooseVersions, type PinnedVersions, type VersionChoice } from '../catalog/version-choice.ts'
import { catalogCell, directCell, type Cell } from '../measure/cell.ts'
import { OPEN_PREALLOC } from '../measure/open.ts'
import { summarize } from '../core/stats.ts'
import { OWN_RATE_SERIES, POOLING_ROWS } from '../data/series.ts'
import type { Measurement } from '../data/schema.ts'
import { MEASUREMENTS, readTable } from '../data/tables.ts'
import { rateAt } from './tls.ts'
import { closedTasks, openTasks, openTasksAt } from './tasks.ts'
import type { Series, SeriesContext } from './types.ts'

export interface CustomConfig {
  proxy: ProxyName
  file: string
}

/**
 * The variant name of each user config: `custom:<file name>`, and where two configs of a
 * proxy share a file name (a/x.cfg, b/x.cfg), `custom:<file name>#<6 hex of the path's
 * sha256>` for each of them, so their rows never share a cell. From the path, not the
 * order, so a resume names them the same; the same path twice is one config.
 */
export function customVariants(custom: readonly CustomConfig[]): Map<string, string> {
  const names = new Map<string, string>()
  const id = (c: CustomConfig) => `${c.proxy}=${resolve(c.file)}`
  const uniq = [...new Map(custom.map((c) => [id(c), c])).values()]
  for (const c of uniq) {
    const base = basename(c.file)
    const clash = uniq.filter((o) => o.proxy === c.proxy && basename(o.file) === base).length > 1
    names.set(id(c), clash ? `custom:${base}#${sha256Text(resolve(c.file)).slice(0, 6)}` : `custom:${base}`)
  }
  return names
}

/**
 * Cells of the pooling series: for each proxy the three main series on its newest
 * version, the extras, users' own configs, and one `direct` row (the floor).
 */
export function poolingCells(proxies: readonly ProxyName[], opts: { connections: number; backendVersion: string; custom?: CustomConfig[]; versions?: VersionChoice; pinned?: PinnedVersions }): Cell[] {
  const cells: Cell[] = [directCell(opts.backendVersion, opts.connections)]
  for (const proxy of proxies) {
    const stack = loadStack(proxy)
    const connections = opts.connections
    for (const [series, variant] of Object.entries(MAIN_SERIES)) cells.push(catalogCell(stack, { series, variant, connections, pinned: opts.pinned }))
    const extra = EXTRAS[proxy]
    if (extra) {
      for (const version of extra.allVersions ? chooseVersions(stack, opts.versions ?? { kind: 'all' }) : [undefined]) {
        for (const variant of extra.variants) {
          if (version && !variantRunsOn(stack, variant, version.version)) continue
          cells.push(catalogCell(stack, { series: extra.series, variant, connections, version, pinned: opts.pinned }))
        }
      }
    }
    const own = opts.custom?.filter((c) => c.proxy === proxy) ?? []
    for (const [id, variant] of customVariants(own)) cells.push(catalogCell(stack, { series: 'custom', variant, connections, template: id.slice(id.indexOf('=') + 1), pinned: opts.pinned }))
  }
  return cells
}

/**
 * pooling-open: every pooling cell again at one fixed arrival rate, so that each proxy is
 * measured at the same load instead of at whatever rate it reaches in the closed model.
 * The rate is this fraction of the lowest closed-model ceiling among the proxied pooling
 * cells. HAProxy's dpbench measures at 50-80% of capacity; here the capacity is set by
 * the generator core, which the backend shares, and the Go open-model generator costs more
 * per request than wrk, so the low end: docs/method/load-models.md#fixed-rate-pooling-pooling-open-and-benchload-modelmjs has the measurements.
 */
export const POOLING_OPEN_FRACTION = 0.5

export interface OpenRateChoice {
  rate: number
  fraction: number
  /** The lowest ceiling (median rps) and the cell it belongs to. */
  ceiling: number
  cell: string
}

/** Median closed-model rps of each proxied pooling cell, valid rows only (the direct row left out). */
export function poolingCeilings(rows: readonly Measurement[]): Map<string, number> {
  const by = new Map<string, number[]>()
  for (const r of rows) {
    if (!POOLING_ROWS.includes(r.series) || r.model !== 'closed' || r.proxy === 'direct' || r.status !== 'valid' || !r.rps) continue
    const key = `${r.series} ${r.proxy} ${r.version} ${r.variant}`
    by.set(key, [...(by.get(key) ?? []), r.rps])
  }
  return new Map([...by].map(([k, v]) => [k, summarize(v).median]))
}

/** The pooling-open rate from the closed rows; null when no proxied cell has a valid ceiling. */
export function poolingOpenRate(rows: readonly Measurement[], fraction = POOLING_OPEN_FRACTION): OpenRateChoice | null {
  const lowest = [...poolingCeilings(rows)].sort((a, b) => a[1] - b[1])[0]
  return lowest ? { rate: rateAt(fraction, lowest[1]), fraction, ceiling: lowest[1], cell: lowest[0] } : null
}

/**
 * same-own-rate: each proxy's article config (series same) again in the open model, each at
 * this fraction of its OWN closed ceiling, so that "does it hold the open model" is asked
 * at a load relative to the proxy's capacity (seed 001 ran HAProxy at a rate its hosts
 * held: claim s001-haproxy-holds-50k), where pooling-open's one rate is relative to the
 * slowest cell. The fraction is pooling-open's (the project's choice, docs/ledger.md).
 */
export { OWN_RATE_SERIES }
/** Each proxy's rate for its article cell: the fraction of that cell's median closed rps (valid rows), in hundreds. */
export function ownOpenRates(rows: readonly Measurement[], fraction = POOLING_OPEN_FRACTION): Map<string, { rate: number; ceiling: number }> {
  const out = new Map<string, { rate: number; ceiling: number }>()
  for (const [key, ceiling] of poolingCeilings(rows)) {
    const [series, proxy, version, variant] = key.split(' ')
    if (series === 'same' && variant === 'article') out.set(`${proxy} ${version}`, { rate: rateAt(fraction, ceiling), ceiling })
  }
  return out
}

/** The pooling series; users' own configs (ctx.plan.custom) join it as custom cells. */
export function poolingSeries(): Series {
  const cells = (ctx: SeriesContext) => poolingCells(ctx.proxies, { connections: ctx.connections, backendVersion: ctx.backendVersion, custom: ctx.plan.custom, versions: ctx.plan.versions, pinned: ctx.plan.pinned })
  return {
    name: 'pooling',
    phases: [
      { name: 'pooling', tasks: (ctx) => closedTasks(cells(ctx), ctx) },
      {
        name: 'pooling-open',
        tasks: (ctx) => {
          const choice = poolingOpenRate(readTable(ctx.runDir, MEASUREMENTS))
          if (!choice) {
            ctx.log.warn('pooling-open: no valid closed-model ceiling among the proxied pooling cells, so no fixed rate: phase skipped')
            return []
          }
          ctx.log.info(`pooling-open: ${choice.rate} rps for every cell = ${choice.fraction * 100}% of the lowest closed ceiling, ${Math.round(choice.ceiling)} rps (${choice.cell}); VUs ${OPEN_PREALLOC}..${ctx.connections}`)
          // quick keeps to its time budget: the three main series and the floor only.
          const main = new Set<string>([...Object.keys(MAIN_SERIES), 'direct'])
          const chosen = ctx.profile.fixedRateCells === 'main' ? cells(ctx).filter((c) => main.has(c.series)) : cells(ctx)
          return openTasks(chosen, [choice.rate], ctx)
        },
      },
      {
        name: OWN_RATE_SERIES,
        tasks: (ctx) => {
          const rates = ownOpenRates(readTable(ctx.runDir, MEASUREMENTS))
          const combos = cells(ctx).filter((c) => c.series === 'same' && rates.has(`${c.proxy} ${c.version}`)).map((c) => ({ cell: { ...c, series: OWN_RATE_SERIES }, rate: rates.get(`${c.proxy} ${c.version}`)!.rate }))
          if (combos.length === 0) ctx.log.warn(`${OWN_RATE_SERIES}: no article cell has a valid closed-model ceiling: phase skipped`)
          else ctx.log.info(`${OWN_RATE_SERIES}: each article config at ${POOLING_OPEN_FRACTION * 100}% of its own closed ceiling: ${combos.map((x) => `${x.cell.proxy} ${x.rate} rps`).join(', ')}; VUs ${OPEN_PREALLOC}..${ctx.connections}`)
          return openTasksAt(combos, ctx)
        },
      },
    ],
  }
}
