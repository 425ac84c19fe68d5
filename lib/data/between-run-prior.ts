/**
 * The between-run noise measured on this machine kind (the priors lib/analysis/between-run.ts
 * compares runs with, and the drift the claims evaluator widens a ratio by): the one place
 * these figures live. Here in data/ because both sides of the report read them (analysis/
 * and claims/, which may not import analysis/).
 */

/**
 * The between-run noise per family measured on this machine kind, from repeated runs of one
 * selection (bench/stability.mjs prints estimateBetweenRun): every figure and its runs in
 * BETWEEN_RUN_NOTE. A family not listed has no prior; its comparison then needs rounds.
 */
export const BETWEEN_RUN_NOTE = 'docs/lab-notes/2026-12-02-between-run-noise.md'
export const BETWEEN_RUN_NOISE: Readonly<Record<string, { sd: number; df: number }>> = {
  'cost|proxy_cpu_us_per_handshake|handshakes|tls-handshake': { sd: 0.03, df: 2.75 },
  'cost|proxy_cpu_us_per_req|measurements|closed': { sd: 0.206, df: 3.25 },
  // Every cell's count was the same in both runs: no shift common or own; the cells' df.
  'count|backend_conns_per_1k_req|measurements|closed': { sd: 0, df: 30 },
  'count|proxy_ctxsw_per_req|handshakes|tls-handshake': { sd: 0.0807, df: 1.19 },
  'count|proxy_ctxsw_per_req|measurements|closed': { sd: 0.316, df: 27 },
  'count|proxy_syscalls_per_req|handshakes|tls-handshake': { sd: 0.0087, df: 9.69 },
  'count|proxy_syscalls_per_req|measurements|closed': { sd: 0.00936, df: 30.9 },
  'ratio|pool-removed / pool-added|measurements|closed': { sd: 0.101, df: 3.93 },
  'ratio|proxy / direct|handshakes|tls-handshake': { sd: 0.127, df: 1.05 },
  'ratio|proxy / direct|measurements|closed': { sd: 0.139, df: 30.1 },
}

/**
 * The family whose between-run shift is a cell's own drift beyond window noise: a proxy
 * cell over its direct floor in the same run, closed model. Its common part is nil (0.004 in
 * the lab note), so its SD is the per-cell part (0.139 of log, 30 df): how far one cell of a
 * run moves, beyond its windows' noise, against the other cells of that run.
 */
export const CELL_DRIFT_FAMILY = 'ratio|proxy / direct|measurements|closed'

/** The per-cell drift (SD of log) and its degrees of freedom, from BETWEEN_RUN_NOTE. */
export const cellDrift = (): { sd: number; df: number; source: string } => ({
  ...BETWEEN_RUN_NOISE[CELL_DRIFT_FAMILY]!,
  source: `${BETWEEN_RUN_NOTE} (${CELL_DRIFT_FAMILY})`,
})
