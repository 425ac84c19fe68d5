import type { Profile } from '../catalog/profiles.ts'
import { LEVEL, medianInterval, relativeHalfWidth } from '../core/intervals.ts'

/**
 * Adaptive repeats: after a phase's minimum rounds, a cell gets another round while its
 * median is not yet known to ± the profile's precision, until one of its budgets is spent.
 * Pure: the phase runner (lib/run/phase.ts) feeds it the rows on disk, so a resumed run
 * continues where the rows stop.
 */

export interface AdaptiveSettings {
  /** Rounds every cell gets (the profile's `repeats`). */
  minRepeats: number
  /** Most repeats (not counting disturbed windows) a cell may get. */
  maxRepeats: number
  /** Target relative half-width of the 95% CI of the median (0.03 = ±3%). */
  precision: number
  /** Disturbed windows a cell may have; one more ends its rounds, so a machine that stays busy still ends. */
  maxDisturbed: number
  /** Wall seconds a phase may spend on rounds beyond the minimum. */
  budgetS: number
}

/** A profile's adaptive settings; a profile without them runs exactly its `repeats` rounds. */
export function adaptiveSettings(p: Profile): AdaptiveSettings {
  return {
    minRepeats: p.repeats,
    maxRepeats: Math.max(p.repeats, p.maxRepeats ?? p.repeats),
    precision: p.precision ?? 0.03,
    maxDisturbed: p.maxDisturbed ?? 0,
    budgetS: p.budgetS ?? 0,
  }
}

/** A cell's rows so far, as the stop rule reads them. */
export interface CellProgress {
  id: string
  /** The precision metric of its valid rows. */
  values: readonly number[]
  /** Rows that count as repeats: every row but the disturbed ones (invalid and failed count: they are results). */
  repeats: number
  disturbed: number
}

export interface CellDecision {
  id: string
  more: boolean
  /** Why it stops (`reached ±2.1%`, `budget: 8 repeats`, `time budget`, …) or why it goes on. */
  reason: string
  /** Relative half-width of the CI of the median (null: fewer than 2 values). */
  halfWidth: number | null
  level: number
}

const pct = (x: number) => `±${(100 * x).toFixed(1)}%`

/**
 * One cell on its own; the time budget is applied across cells by nextRound. While the
 * run's quiet budget lasts (`quietLeftS` > 0, lib/run/quiet.ts), disturbed windows never end
 * a cell: each was followed by a wait for quiet, and the budget bounds them all.
 */
export function decideCell(c: CellProgress, s: AdaptiveSettings, quietLeftS = 0): CellDecision {
  const tooDisturbed = c.disturbed > s.maxDisturbed && quietLeftS <= 0
  const iv = c.values.length > 0 ? medianInterval(new Map(c.values.map((v, i) => [i + 1, v]))) : null
  const halfWidth = iv && iv.method === 'order statistics' ? relativeHalfWidth(iv) : null
  const level = iv?.level ?? 0
  const at = halfWidth === null ? '' : ` (at ${pct(halfWidth)}${level < LEVEL ? `, ${Math.round(level * 100)}% interval` : ''})`
  const out = (more: boolean, reason: string): CellDecision => ({ id: c.id, more, reason, halfWidth, level })
  // Disturbed windows left a cell short of its minimum: re-measure them, within their own budget.
  if (c.repeats < s.minRepeats) {
    return tooDisturbed
      ? out(false, `disturbed budget: ${c.disturbed} windows disturbed`)
      : out(true, `${c.repeats} of ${s.minRepeats} repeats (${c.disturbed} disturbed)`)
  }
  // Invalid or failed repeats are the cell's result, not noise: more of them would not help.
  if (c.values.length < 2) return out(false, `${c.values.length} valid of ${c.repeats} repeats`)
  // Below n = 6 the order-statistics interval is min..max with coverage under 95%: never "precise" yet.
  if (level >= LEVEL && halfWidth !== null && halfWidth <= s.precision) return out(false, `reached ${pct(halfWidth)}`)
  if (c.repeats >= s.maxRepeats) return out(false, `budget: ${c.repeats} repeats${at}`)
  // A machine that keeps disturbing this cell's windows ends its rounds too.
  if (tooDisturbed) return out(false, `disturbed budget: ${c.disturbed} windows disturbed${at}`)
  return out(true, `not yet ${pct(s.precision)}${at}`)
}

/**
 * The cells that get another round, and why every other one stopped. A round of the
 * chosen cells must fit in the time left (`costS` per repeat): cells short of their
 * minimum go first; then cells already within the precision that lack only the interval's
 * coverage (n < 6), since a round or two finishes them; then the least precise.
 */
export function nextRound(
  cells: readonly CellProgress[],
  s: AdaptiveSettings,
  time: { remainingS: number; costS: number; quietLeftS?: number },
): CellDecision[] {
  const decisions = cells.map((c) => decideCell(c, s, time.quietLeftS))
  const short = new Set(cells.filter((c) => c.repeats < s.minRepeats).map((c) => c.id))
  const rank = (d: CellDecision) => (short.has(d.id) ? 0 : d.halfWidth !== null && d.halfWidth <= s.precision ? 1 : 2)
  const wanting = decisions.filter((d) => d.more).sort((a, b) => rank(a) - rank(b) || (b.halfWidth ?? Infinity) - (a.halfWidth ?? Infinity))
  let left = time.remainingS
  for (const d of wanting) {
    if (left >= time.costS) left -= time.costS
    else Object.assign(d, { more: false, reason: `time budget${d.halfWidth === null ? '' : ` (at ${pct(d.halfWidth)})`}` })
  }
  return decisions
}
