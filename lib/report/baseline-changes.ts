import type { PublishedDelta } from '../analysis/published.ts'
import type { CellKey } from '../data/grouping.ts'

/**
 * What the baseline dot plot draws per figure of a published baseline (docs/report.md#the-baseline-dot-plot):
 * a small, typed interface. Changes are relative (0.12 = +12%).
 */
export interface CellChange {
  /** The figure or cell in words. */
  cell: string
  change: number
  /** Its verdict in words (colours the dot). */
  verdict: string
}

/** A cell's name as the plots label it: proxy, variant, key type or mode, rate. */
export const changeCellName = (key: CellKey) =>
  [key.proxy, key.variant, key.key_type && key.key_type !== 'ec256' ? key.key_type : '', key.mode, key.target_rps ? `@${key.target_rps}` : '']
    .filter(Boolean)
    .join(' ')

/** A cell's name with its row series where that is not its variant: `haproxy pool-added (same)`. */
export const changeCellLabel = (key: CellKey) => changeCellName(key) + (key.series !== key.variant ? ` (${key.series})` : '')

/** A published baseline's figures: one number each, no repeats, so no interval and no noise. */
export const changesFromPublished = (deltas: readonly PublishedDelta[]): CellChange[] =>
  deltas.flatMap((d) => (d.delta === null ? [] : [{ cell: d.label, change: d.delta, verdict: 'one published figure (no repeats)' }]))
