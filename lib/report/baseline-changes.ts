import type { ComparisonRow } from '../analysis/compare.ts'
import { RATIO_METRICS } from '../analysis/run-figures.ts'
import type { PublishedDelta } from '../analysis/published.ts'

/**
 * What the baseline dot plot draws per cell (docs/report.md#the-baseline-dot-plot): a small,
 * typed interface, so the plot does not depend on which test the comparison runs. Changes are
 * relative (0.12 = +12%).
 */
export interface CellChange {
  /** The cell in words: proxy, variant, key type or mode, rate. */
  cell: string
  change: number
  /** The change's interval (same level as the comparison's), null when it gives none. */
  interval: { lo: number; hi: number } | null
  /** The smallest change the between-run noise lets this comparison see (±, relative); null when not estimated. */
  detectable: number | null
  /** The comparison's verdict in words (colours the dot), e.g. "changed", "within noise". */
  verdict: string
}

/** A cell's name as the dot plot labels it. */
export const changeCellName = (key: ComparisonRow['key']) =>
  [key.proxy, key.variant, key.key_type && key.key_type !== 'ec256' ? key.key_type : '', key.mode, key.target_rps ? `@${key.target_rps}` : '']
    .filter(Boolean)
    .join(' ')

/** A cell's name with its row series where that is not its variant: `haproxy pool-added (same)`. */
export const changeCellLabel = (key: ComparisonRow['key']) => changeCellName(key) + (key.series !== key.variant ? ` (${key.series})` : '')

/** The main series' cells of the measurements table: the ones the dot plot shows. */
const MAIN_SERIES = ['same', 'pool-added', 'pool-removed']

/** The verdict of a comparison row in the dot plot's words (its colour). */
const VERDICT_WORDS: Record<ComparisonRow['verdict'], string> = {
  increased: 'changed beyond the between-run noise',
  decreased: 'changed beyond the between-run noise',
  'no change': 'within the between-run noise',
  'too few repeats to compare': 'too few repeats to compare',
}

/**
 * The main series' cells of a comparison across runs (lib/analysis/compare.ts), in the
 * calibrated unit (proxy / direct) where both runs have the direct row, else in raw µs.
 */
export function changesFromComparison(rows: readonly ComparisonRow[]): { changes: CellChange[]; calibrated: boolean } {
  const main = rows.filter((r) => r.table === 'measurements' && MAIN_SERIES.includes(String(r.key.series)))
  const calibratedRows = main.filter((r) => r.metric === RATIO_METRICS.calibrated)
  const calibrated = calibratedRows.length > 0
  const chosen = calibrated ? calibratedRows : main.filter((r) => r.metric === 'proxy_cpu_us_per_req')
  const changes = chosen.map((r) => ({
    cell: changeCellLabel(r.key),
    change: r.change,
    interval: r.interval ? { lo: r.interval[0], hi: r.interval[1] } : null,
    detectable: r.detectable,
    verdict: VERDICT_WORDS[r.verdict],
  }))
  return { changes, calibrated }
}

/** A published baseline's figures: one number each, no repeats, so no interval and no noise. */
export const changesFromPublished = (deltas: readonly PublishedDelta[]): CellChange[] =>
  deltas.flatMap((d) =>
    d.delta === null ? [] : [{ cell: d.label, change: d.delta, interval: null, detectable: null, verdict: 'one published figure (no repeats)' }],
  )
