/**
 * What one open-model repeat shows at its rate (seed 000, F6): it holds (the proxy keeps up
 * with a few VUs) or collapses (VUs to the cap, or requests failing). The rule is the
 * project's, fixed before the data: holds at most 1% failed and under half the VU cap;
 * collapses at the cap or at least 5% failed; between the two, neither.
 */
import type { Measurement } from './schema.ts'

export type OpenOutcome = 'holds' | 'collapses'

/** Share of attempted requests that failed (errors and, in the open model, dropped). */
export const failShare = (r: Pick<Measurement, 'errors' | 'dropped' | 'requests'>) =>
  ((r.errors ?? 0) + (r.dropped ?? 0)) / Math.max(1, r.requests + (r.errors ?? 0) + (r.dropped ?? 0))

/** The reasons that are the collapse itself in the open model: errors, dropped iterations, a rate not reached. */
const COLLAPSE_REASON = /^(errors|dropped|achieved) /

/** Valid, or invalid only because requests failed (errors, dropped, rate not reached): the very thing the open model measures. */
export const validButForErrors = (r: Pick<Measurement, 'status' | 'reason'>) =>
  r.status === 'valid' || (r.status === 'invalid' && r.reason !== '' && r.reason.split('; ').every((s) => COLLAPSE_REASON.test(s)))

type OpenRow = Pick<Measurement, 'errors' | 'dropped' | 'requests' | 'max_vus' | 'connections'>

/** Whether one repeat shows the outcome (connections: the run's VU cap). */
export const shows: Record<OpenOutcome, (r: OpenRow) => boolean> = {
  holds: (r) => failShare(r) <= 0.01 && (r.max_vus ?? 0) < r.connections / 2,
  collapses: (r) => (r.max_vus ?? 0) >= r.connections || failShare(r) >= 0.05,
}
