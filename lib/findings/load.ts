/**
 * The load model the pooling and versions findings read: a series may hold closed-model
 * rows and open-model rows at a fixed rate, and a figure must not mix them. Closed is
 * chosen from measurements: its per-request CPU is what the seed articles compare.
 */
export const FINDINGS_MODEL = 'closed'
