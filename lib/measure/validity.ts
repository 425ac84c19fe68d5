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
}

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
