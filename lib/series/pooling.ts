import { basename, resolve } from 'node:path'
import { sha256Text } from '../core/hash.ts'
import { loadStack, variantRunsOn, type ProxyName, type Stack } from '../catalog/stack.ts'
import { EXTRAS, MAIN_SERIES } from '../catalog/variants.ts'
import { chooseVersions, type PinnedVersions, type VersionChoice } from '../catalog/version-choice.ts'
import { catalogCellPlan, directCell, type CellPlan } from '../measure/cell.ts'
import { OPEN_PREALLOC } from '../measure/open.ts'
import { OWN_RATE_SERIES } from '../data/series.ts'
import { ownOpenRates, ownRateId, POOLING_OPEN_FRACTION, poolingOpenRate, ceilingRows } from './open-rate.ts'
import { closedTasks, openTasks, openTasksAt } from './tasks.ts'
import type { CustomConfig } from './plan.ts'
import type { Series, SeriesContext } from './types.ts'

/**
 * The variant name of each user config: `custom:<file name>`, and where two configs of a
 * proxy share a file name (a/x.cfg, b/x.cfg), `custom:<file name>#<6 hex of the path's
 * sha256>` for each of them, so their rows never share a cell. From the path, not the
 * order, so a resume names them the same; the same path twice is one config.
 */
export function customVariants(custom: readonly CustomConfig[]): Map<string, `custom:${string}`> {
  const names = new Map<string, `custom:${string}`>()
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
export function poolingCells(
  proxies: readonly ProxyName[],
  opts: { connections: number; backendVersion: string; custom?: CustomConfig[]; versions?: VersionChoice; pinned?: PinnedVersions },
): CellPlan[] {
  const cells: CellPlan[] = [directCell(opts.backendVersion, opts.connections)]
  for (const proxy of proxies) {
    const stack = loadStack(proxy)
    const connections = opts.connections
    for (const [series, variant] of Object.entries(MAIN_SERIES)) cells.push(catalogCellPlan(stack, { series, variant, connections, pinned: opts.pinned }))
    cells.push(...extraCells(stack, proxy, opts))
    const own = opts.custom?.filter((c) => c.proxy === proxy) ?? []
    for (const [id, variant] of customVariants(own))
      cells.push(catalogCellPlan(stack, { series: 'custom', variant, connections, template: id.slice(id.indexOf('=') + 1), pinned: opts.pinned }))
  }
  return cells
}

/** The proxy's extras (EXTRAS): their variants, on every chosen version where they say so (where each variant runs). */
function extraCells(stack: Stack, proxy: ProxyName, opts: { connections: number; versions?: VersionChoice; pinned?: PinnedVersions }): CellPlan[] {
  const extra = EXTRAS[proxy]
  if (!extra) return []
  const versions = extra.allVersions ? chooseVersions(stack, opts.versions ?? { kind: 'all' }) : [undefined]
  return versions.flatMap((version) =>
    extra.variants
      .filter((variant) => !version || variantRunsOn(stack, variant, version.version))
      .map((variant) => catalogCellPlan(stack, { series: extra.series, variant, connections: opts.connections, version, pinned: opts.pinned })),
  )
}

/**
 * same-own-rate: each proxy's article config (series same) again in the open model, each at
 * POOLING_OPEN_FRACTION of its OWN closed ceiling (lib/series/open-rate.ts), so that "does it
 * hold the open model" is asked at a load relative to the proxy's capacity (seed 001 ran
 * HAProxy at a rate its hosts held: claim s001-haproxy-holds-50k), where pooling-open's one
 * rate is relative to the slowest cell.
 */
export { OWN_RATE_SERIES }

/** The pooling series; users' own configs (ctx.plan.custom) join it as custom cells. */
export function poolingSeries(): Series {
  const cells = (ctx: SeriesContext) =>
    poolingCells(ctx.proxies, {
      connections: ctx.connections,
      backendVersion: ctx.backendVersion,
      custom: ctx.plan.custom,
      versions: ctx.plan.versions,
      pinned: ctx.plan.pinned,
    })
  return {
    name: 'pooling',
    phases: [
      { name: 'pooling', tasks: (ctx) => closedTasks(cells(ctx), ctx) },
      {
        name: 'pooling-open',
        tasks: (ctx) => {
          const choice = poolingOpenRate(ceilingRows(ctx.runDir))
          if (!choice) {
            ctx.log.warn('pooling-open: no valid closed-model ceiling among the proxied pooling cells, so no fixed rate: phase skipped')
            return []
          }
          ctx.log.info(
            `pooling-open: ${choice.rate} rps for every cell = ${choice.fraction * 100}% of the lowest closed ceiling, ${Math.round(choice.ceiling)} rps (${choice.cellName}); VUs ${OPEN_PREALLOC}..${ctx.connections}`,
          )
          // quick keeps to its time budget: the three main series and the floor only.
          const main = new Set<string>([...Object.keys(MAIN_SERIES), 'direct'])
          const chosen = ctx.profile.fixedRateCells === 'main' ? cells(ctx).filter((c) => main.has(c.series)) : cells(ctx)
          return openTasks(chosen, [choice.rate], ctx)
        },
      },
      {
        name: OWN_RATE_SERIES,
        tasks: (ctx) => {
          const rates = ownOpenRates(ceilingRows(ctx.runDir))
          const combos = cells(ctx)
            .filter((c) => c.series === 'same' && rates.has(ownRateId(c.proxy, c.version)))
            .map((c) => ({ cell: { ...c, series: OWN_RATE_SERIES }, rate: rates.get(ownRateId(c.proxy, c.version))!.rate }))
          if (combos.length === 0) ctx.log.warn(`${OWN_RATE_SERIES}: no article cell has a valid closed-model ceiling: phase skipped`)
          else
            ctx.log.info(
              `${OWN_RATE_SERIES}: each article config at ${POOLING_OPEN_FRACTION * 100}% of its own closed ceiling: ${combos.map((x) => `${x.cell.proxy} ${x.rate} rps`).join(', ')}; VUs ${OPEN_PREALLOC}..${ctx.connections}`,
            )
          return openTasksAt(combos, ctx)
        },
      },
    ],
  }
}
