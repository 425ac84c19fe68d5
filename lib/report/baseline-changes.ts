import type { CalibratedDelta } from '../analysis/calibrated.ts'
import type { Delta } from '../analysis/compare.ts'
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
export const changeCellName = (key: Delta['key']) =>
  [key.proxy, key.variant, key.key_type && key.key_type !== 'ec256' ? key.key_type : '', key.mode, key.target_rps ? `@${key.target_rps}` : ''].filter(Boolean).join(' ')

/** The main series' cells of the measurements table: the ones the dot plot shows. */
const MAIN_SERIES = ['same', 'pool-added', 'pool-removed']

/**
 * Changes from the comparison main has (a Mann-Whitney U per cell, calibrated unit where both
 * runs have the reference): it gives no interval and no between-run noise, so both stay null
 * and the plot says so.
 */
export function changesFromDeltas(deltas: readonly CalibratedDelta[]): { changes: CellChange[]; calibrated: boolean } {
  const main = deltas.filter((d) => d.raw.table === 'measurements' && MAIN_SERIES.includes(String(d.raw.key.series)))
  const calibrated = main.some((d) => d.calibrated?.delta != null)
  const changes = main.flatMap((d) => {
    const x = calibrated ? d.calibrated : d.raw
    if (!x || x.delta === null) return []
    // A row of compareRuns may carry an interval and a detectable change once the comparison gives them.
    const extra = x as Delta & { interval?: { lo: number; hi: number } | null; detectable?: number | null; verdict?: string }
    return [{
      cell: changeCellName(d.raw.key) + (d.raw.key.series !== d.raw.key.variant ? ` (${d.raw.key.series})` : ''), change: x.delta, interval: extra.interval ?? null, detectable: extra.detectable ?? null,
      verdict: extra.verdict ?? (x.significant ? 'significant (p < 0.05)' : '~ not significant'),
    }]
  })
  return { changes, calibrated }
}

/** A published baseline's figures: one number each, no repeats, so no interval and no noise. */
export const changesFromPublished = (deltas: readonly PublishedDelta[]): CellChange[] =>
  deltas.flatMap((d) => (d.delta === null ? [] : [{ cell: d.label, change: d.delta, interval: null, detectable: null, verdict: 'one published figure (no repeats)' }]))
