import { groupBy } from '../data/grouping.ts'
import { DISTURBED_PREFIX } from '../data/precision.ts'
import type { WindowDisturbance } from './disturbance.ts'

import { MAX_ERROR_RATE, MAX_FOREIGN_SHARE, MAX_GENERATOR_SHARE, MAX_RATE_SHORTFALL, MAX_STEAL_SHARE } from '../catalog/limits.ts'

export { MAX_ERROR_RATE, MAX_FOREIGN_SHARE, MAX_GENERATOR_SHARE, MAX_RATE_SHORTFALL, MAX_STEAL_SHARE }

export interface WindowFacts {
  /** Requests the generator completed and errors it saw over its whole run. */
  generatorRequests: number
  generatorErrors: number
  /** Requests the backend served inside the measurement window. */
  windowRequests: number
  generatorCpuShare: number | null
  verification?: string | null
  /** Set when a role exited during the window. */
  exited?: string | null
  /** Open model: iterations dropped at the VU cap (counted apart from errors), the target and the achieved rate. */
  dropped?: number | null
  targetRps?: number | null
  achievedRps?: number | null
  /** Closed model: its connections, each of which must complete MIN_REQUESTS_PER_CONNECTION in the window. */
  closedConnections?: number | null
}

/**
 * A closed-model connection always has a request outstanding and the backend answers at
 * once, so each completes requests all through the window. A window with fewer requests than
 * this per connection had connections that completed none in all of it (connects refused or
 * retried, e.g. no free port while TIME_WAIT holds them): its CPU is not the load's.
 */
export const MIN_REQUESTS_PER_CONNECTION = 1

/** Every reason the row cannot be used; empty when it is valid. */
export function invalidReasons(f: WindowFacts): string[] {
  const reasons: string[] = []
  if (f.verification) reasons.push(`verification failed: ${f.verification}`)
  if (f.exited) reasons.push(f.exited)
  const dropped = f.dropped ?? 0
  const attempts = f.generatorRequests + f.generatorErrors + dropped
  if (attempts > 0 && f.generatorErrors / attempts >= MAX_ERROR_RATE) {
    reasons.push(`errors ${((100 * f.generatorErrors) / attempts).toFixed(1)}% >= ${MAX_ERROR_RATE * 100}%`)
  }
  // Dropped iterations were never sent: a different failure than an error answer, so its own label.
  if (attempts > 0 && dropped / attempts >= MAX_ERROR_RATE) reasons.push(`dropped ${((100 * dropped) / attempts).toFixed(1)}% >= ${MAX_ERROR_RATE * 100}%`)
  if (f.targetRps && f.achievedRps !== null && f.achievedRps !== undefined && f.achievedRps < f.targetRps * (1 - MAX_RATE_SHORTFALL)) {
    reasons.push(`achieved ${Math.round(f.achievedRps)} rps < target ${f.targetRps} rps`)
  }
  if (f.generatorCpuShare !== null && f.generatorCpuShare >= MAX_GENERATOR_SHARE) {
    reasons.push(`generator saturated: ${(100 * f.generatorCpuShare).toFixed(0)}% of its cpuset >= ${MAX_GENERATOR_SHARE * 100}%`)
  }
  if (f.windowRequests <= 0 && !f.verification) reasons.push('no request completed inside the measurement window')
  const floor = (f.closedConnections ?? 0) * MIN_REQUESTS_PER_CONNECTION
  if (f.windowRequests > 0 && f.windowRequests < floor) {
    reasons.push(`stalled: ${f.windowRequests} requests in the window < ${floor} (${MIN_REQUESTS_PER_CONNECTION} per connection of the closed model)`)
  }
  return reasons
}

/**
 * A window is disturbed when the hypervisor stole time from the measured cores or
 * something outside the bench's roles used the measured cores or the load's (generator,
 * backend): the row then measures the neighbour as much as the proxy. The thresholds sit
 * above the quiet level and below any real competitor
 * (docs/lab-notes/2026-12-01-disturbance-thresholds.md).
 */

/** The reason a window is disturbed (starts with DISTURBED_PREFIX), or null when it is not. */
export function disturbedReason(
  d: { steal_share?: number | null; foreign_cpu_share?: number | null; load_foreign_cpu_share?: number | null },
  cores: 'proxy' | 'backend',
): string | null {
  const steal = d.steal_share ?? 0
  const foreign = d.foreign_cpu_share ?? 0
  const load = d.load_foreign_cpu_share ?? 0
  if (steal <= MAX_STEAL_SHARE && foreign <= MAX_FOREIGN_SHARE && load <= MAX_FOREIGN_SHARE) return null
  const onLoad = load > MAX_FOREIGN_SHARE ? `, ${(100 * load).toFixed(0)}% on the generator's and backend's` : ''
  return `${DISTURBED_PREFIX} steal ${(100 * steal).toFixed(1)}% / foreign CPU ${(100 * foreign).toFixed(0)}% on the ${cores}'s cores${onLoad}`
}

/** Whether a window's (or a slice's) disturbance crosses the thresholds of disturbedReason. */
export const isDisturbedWindow = (d: WindowDisturbance): boolean =>
  disturbedReason({ steal_share: d.stealShare, foreign_cpu_share: d.foreignShare, load_foreign_cpu_share: d.loadForeignShare }, 'proxy') !== null

/** A row invalid only for being disturbed (foreign CPU or steal on a shared machine): benches that pair windows back to back may count it. */
export { onlyDisturbed } from '../data/precision.ts'

/**
 * A window serving less than this share of the median rate of its cell's other valid windows
 * collapsed: windows of one cell in one run agree far closer than that, so only a failure (ports
 * exhausted, a stall) falls below it, and its figure is that failure's, not the proxy's cost.
 */
export const COLLAPSE_SHARE = 1 / 3

export const COLLAPSED_PREFIX = 'requests collapsed:'

/** What the collapse rule reads of a window: its model, status, requests, rate per counted second and TIME_WAIT sockets at its end. */
export interface CellWindow {
  model?: 'closed' | 'open'
  status: string
  requests: number
  rps: number | null
  time_wait_at_end?: number | null
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

const thousands = (x: number) => Math.round(x).toLocaleString('en-US')
/** A rate as the reason shows it: a collapsed one keeps its tenths. */
const perSecond = (x: number) => `${x < 10 ? x.toFixed(1) : thousands(x)}/s`

/**
 * The windows of one cell whose rate collapsed against the cell's other valid windows, by
 * index, with their reason. Rates, not counts: a window counting only its clean slices, or
 * extended, serves another count at the same rate. Each window is judged against the others
 * as they were valid before the pass, so the order of the rows does not matter. Closed model
 * only: an open-model window short of its rate is what that model measures (F6), judged by
 * its own rule (achieved < target).
 */
export function collapsedWindows(windows: readonly CellWindow[]): Map<number, string> {
  const rated = windows.flatMap((w, i) => (w.status === 'valid' && w.model !== 'open' && w.rps !== null ? [{ i, w, rps: w.rps }] : []))
  const out = new Map<number, string>()
  for (const { i, w, rps } of rated) {
    const others = rated.filter((o) => o.i !== i).map((o) => o.rps)
    if (others.length === 0) continue
    const typical = median(others)
    if (rps >= COLLAPSE_SHARE * typical) continue
    const ports = w.time_wait_at_end === null || w.time_wait_at_end === undefined ? '' : ` (ports in TIME_WAIT at the end: ${thousands(w.time_wait_at_end)})`
    out.set(i, `${COLLAPSED_PREFIX} ${thousands(w.requests)} (${perSecond(rps)}) vs a median ${perSecond(typical)} of the cell's other windows${ports}`)
  }
  return out
}

/**
 * The pass over a table's rows once a round of repeats is in: each cell's collapsed windows
 * (collapsedWindows), by row index, as the status and reason they get. Invalid, never dropped.
 */
export function collapsedRows<R extends CellWindow & { reason: string }>(
  rows: readonly R[],
  cellOf: (row: R) => string,
): Map<number, { status: 'invalid'; reason: string }> {
  const out = new Map<number, { status: 'invalid'; reason: string }>()
  for (const cell of groupBy([...rows.entries()], ([, row]) => [cellOf(row)]).values()) {
    for (const [j, why] of collapsedWindows(cell.map(([, row]) => row))) {
      const [i, row] = cell[j]!
      out.set(i, { status: 'invalid', reason: [why, row.reason].filter(Boolean).join('; ') })
    }
  }
  return out
}
