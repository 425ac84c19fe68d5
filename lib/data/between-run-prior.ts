/**
 * How far one cell of a run moves beyond its windows' noise, against the other cells of the
 * same run: the drift the claims evaluator widens a ratio between cells by (lib/claims/rounds.ts).
 * Estimated from repeated runs of one selection on this machine kind (the closed model's
 * proxy / direct ratios, whose shift common to a run is nil); the figures and their runs are in
 * BETWEEN_RUN_NOTE. Here in data/ because claims/ may not import analysis/.
 */
export const BETWEEN_RUN_NOTE = 'docs/lab-notes/2026-12-02-between-run-noise.md'

/** The per-cell drift (SD of log) and its degrees of freedom, as BETWEEN_RUN_NOTE measured it. */
export const CELL_DRIFT = { sd: 0.139, df: 30.1 } as const

/** The per-cell drift with its source, in words a reader can check. */
export const cellDrift = (): { sd: number; df: number; source: string } => ({
  ...CELL_DRIFT,
  source: `${BETWEEN_RUN_NOTE} (proxy / direct ratios, closed model)`,
})
