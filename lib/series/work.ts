import { loadStack, newestVersion, variantRunsOn, type ProxyName } from '../catalog/stack.ts'
import { workSettings } from '../catalog/profiles.ts'
import { pinnedVersion } from '../catalog/version-choice.ts'
import { EXTRAS, MAIN_SERIES } from '../catalog/variants.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import type { KeyType } from '../setup/certs.ts'
import type { SeriesPlan } from './plan.ts'
import { workTasks } from './tasks.ts'
import type { Series, SeriesContext } from './types.ts'

/** The `series` value of every work row (measurements.csv per request, handshakes.csv per handshake). */
export const WORK_SERIES = 'work'

/** Full handshakes are counted for the cheapest and the dearest key (F5's ratio). */
export const WORK_KEY_TYPES: readonly KeyType[] = ['ec256', 'rsa4096']

/** The variant a handshake is counted on: the tls series' (lib/series/tls.ts). */
const HANDSHAKE_VARIANT = 'pool-added'

/**
 * The pooling series' cells on each proxy's one version (pinned, else the newest): the three
 * main series and, where the profile counts them, the proxy's extras (the reuse variants).
 */
export function workCells(proxies: readonly ProxyName[], plan: Pick<SeriesPlan, 'pinned'>, extras: boolean): CellPlan[] {
  return proxies.flatMap((proxy) => {
    const stack = loadStack(proxy)
    const version = pinnedVersion(stack, plan.pinned) ?? newestVersion(stack)
    const variants = [...Object.values(MAIN_SERIES), ...(extras ? (EXTRAS[proxy]?.variants ?? []) : [])].filter((v) => variantRunsOn(stack, v, version.version))
    return variants.map((variant) => catalogCellPlan(stack, { series: WORK_SERIES, variant, connections: 1, version }))
  })
}

/** Handshake cells: each proxy's one version, the counted key types. */
export function workHandshakeCells(proxies: readonly ProxyName[], plan: Pick<SeriesPlan, 'pinned'>): CellPlan[] {
  return proxies.flatMap((proxy) =>
    WORK_KEY_TYPES.map((keyType) => catalogCellPlan(proxy, { series: WORK_SERIES, variant: HANDSHAKE_VARIANT, keyType, connections: 1, pinned: plan.pinned })),
  )
}

/**
 * The work series (docs/series/work.md): instructions per request and per full handshake,
 * counted under callgrind. Counts do not move with the machine's noise, so its rows are not
 * adaptive: each cell runs the profile's counted rounds once (`work.repeats`).
 */
export function workSeries(): Series {
  const adaptive = false
  return {
    name: WORK_SERIES,
    phases: [
      { name: 'work', adaptive, tasks: (ctx: SeriesContext) => workTasks(workCells(ctx.proxies, ctx.plan, workSettings(ctx.profile).extras), 'request', ctx) },
      { name: 'work-handshake', adaptive, tasks: (ctx: SeriesContext) => workTasks(workHandshakeCells(ctx.proxies, ctx.plan), 'handshake', ctx) },
    ],
  }
}
