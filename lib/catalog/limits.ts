/**
 * Limits beyond which a row measures the bench, not the proxy. They live here, not in
 * measure/, because the report states them in every run's Method section and the report
 * side never imports the measuring side. Why these values:
 * docs/lab-notes/2026-12-01-disturbance-thresholds.md.
 */
export const MAX_ERROR_RATE = 0.01
export const MAX_GENERATOR_SHARE = 0.9
/** Open model: the achieved rate may fall this far below the target (the same 1% as errors). */
export const MAX_RATE_SHORTFALL = 0.01
/** A window is disturbed above these shares of steal or foreign CPU on the bench's cores. */
export const MAX_STEAL_SHARE = 0.02
export const MAX_FOREIGN_SHARE = 0.1
