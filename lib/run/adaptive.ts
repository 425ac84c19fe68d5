import { pairedChange, pooledNoise } from '../analysis/pairs.ts'
import type { Profile } from '../catalog/profiles.ts'
import { isThenKey } from '../data/then.ts'
import { LEVEL, medianInterval, relativeHalfWidth } from '../core/intervals.ts'

/**
 * Adaptive repeats: after a phase's minimum rounds, a cell gets another round while its
 * median is not yet known to ± the profile's precision, until one of its budgets is spent.
 * A paired cell (a now cell and its then twin, docs/method/pairs.md) goes on instead while
 * its change is undecided (Pinpoint's rule: needsMorePairs).
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
  /** Of a paired cell (a now cell or its then twin): the other side's id; absent, or absent from the round, it is judged alone. */
  pairOf?: string
  /** Of a paired cell: its valid values by repeat, so that the rounds of both sides pair up. */
  byRepeat?: ReadonlyMap<number, number>
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

/** A machine that keeps disturbing a cell's windows ends its rounds, once the run's quiet budget is spent. */
const isTooDisturbed = (c: CellProgress, s: AdaptiveSettings, quietLeftS = 0) => c.disturbed > s.maxDisturbed && quietLeftS <= 0

/**
 * One cell on its own; the time budget is applied across cells by nextRound. While the
 * run's quiet budget lasts (`quietLeftS` > 0, lib/run/quiet.ts), disturbed windows never end
 * a cell: each was followed by a wait for quiet, and the budget bounds them all.
 */
export function decideCell(c: CellProgress, s: AdaptiveSettings, quietLeftS = 0): CellDecision {
  const tooDisturbed = isTooDisturbed(c, s, quietLeftS)
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

/** A paired cell's rounds so far, as Pinpoint's rule reads them. */
export interface PairProgress {
  /** ln(now / then) of each round where both windows were valid. */
  logs: readonly number[]
  /** Rounds run: the fewer of its two sides' repeats. */
  rounds: number
}

export interface PairDecision {
  more: boolean
  reason: string
  /** Relative half-width of the change's interval (null: fewer than 2 pairs). */
  halfWidth: number | null
}

/**
 * Pinpoint's rule for a paired cell past its minimum rounds: another round of both sides while
 * its change is undecided, until its repeat budget ends. The change is judged as the report
 * judges it (lib/analysis/pairs.ts pairedChange), from `noise` pooled over the phase's pairs,
 * Bonferroni over `family` of them: decided when its interval is on one side of 1 (a change)
 * or inside the no-change band of ± the profile's precision (no change beyond it); undecided
 * when it straddles the band's edge, where more pairs can still move it either way.
 */
export function needsMorePairs(pair: PairProgress, s: AdaptiveSettings, noise: { sd: number; df: number }, family: number): PairDecision {
  const judged = pairedChange(pair.logs, noise, family)
  const c = judged.change
  // Invalid or failed windows are the cell's result, as for a cell alone: more would not help.
  if (!c) return { more: false, reason: `${pair.logs.length} valid pairs of ${pair.rounds} rounds`, halfWidth: null }
  const halfWidth = relativeHalfWidth(c)
  const at = ` (now ÷ then ${c.value.toFixed(3)} [${c.lo.toFixed(3)}, ${c.hi.toFixed(3)}])`
  if (judged.verdict !== 'no change') return { more: false, reason: `decided: ${judged.verdict}${at}`, halfWidth }
  if (c.lo >= 1 / (1 + s.precision) && c.hi <= 1 + s.precision) return { more: false, reason: `decided: no change beyond ${pct(s.precision)}${at}`, halfWidth }
  if (pair.rounds >= s.maxRepeats) return { more: false, reason: `budget: ${pair.rounds} rounds, undecided${at}`, halfWidth }
  return { more: true, reason: `undecided: straddles ${pct(s.precision)}${at}`, halfWidth }
}

/** ln(now / then) of the rounds where both sides have a valid value. */
function pairLogs(now: ReadonlyMap<number, number>, then: ReadonlyMap<number, number>): number[] {
  return [...now].flatMap(([repeat, a]) => {
    const b = then.get(repeat)
    return b !== undefined && a > 0 && b > 0 ? [Math.log(a / b)] : []
  })
}

/**
 * The decisions with Pinpoint's rule in place of the median's precision for each paired cell
 * whose sides are both in the round, both past their minimum and within their disturbed budget
 * (short or disturbed sides keep their own rule). Both sides get the pair's decision.
 */
function withPairRule(cells: readonly CellProgress[], own: readonly CellDecision[], s: AdaptiveSettings, quietLeftS = 0): CellDecision[] {
  const byId = new Map(cells.map((c) => [c.id, c]))
  const pairs = cells.flatMap((now) => {
    const then = now.pairOf ? byId.get(now.pairOf) : undefined
    // Each pair once, from its now side (the then side's id is under then/, its version the baseline's).
    if (!then || isThenKey(now.id) || !isThenKey(then.id) || !now.byRepeat || !then.byRepeat) return []
    if ([now, then].some((x) => x.repeats < s.minRepeats || isTooDisturbed(x, s, quietLeftS))) return []
    return [{ ids: [now.id, then.id], logs: pairLogs(now.byRepeat, then.byRepeat), rounds: Math.min(now.repeats, then.repeats) }]
  })
  const noise = pooledNoise(pairs.map((p) => p.logs))
  const judged = new Map(pairs.flatMap((p) => p.ids.map((id) => [id, needsMorePairs(p, s, noise, pairs.length)] as const)))
  return own.map((d) => {
    const pair = judged.get(d.id)
    return pair ? { ...d, ...pair, level: LEVEL } : d
  })
}

/**
 * The cells that get another round, and why every other one stopped. A round of the
 * chosen cells must fit in the time left (`costS` per repeat; a paired cell's round is one
 * window of each side, lib/run/phase.ts pairedAgain): cells short of their minimum go first;
 * then cells already within the precision that lack only the interval's coverage (n < 6),
 * since a round or two finishes them; then the least precise.
 */
export function nextRound(
  cells: readonly CellProgress[],
  s: AdaptiveSettings,
  time: { remainingS: number; costS: number; quietLeftS?: number },
): CellDecision[] {
  const decisions = withPairRule(
    cells,
    cells.map((c) => decideCell(c, s, time.quietLeftS)),
    s,
    time.quietLeftS,
  )
  const short = new Set(cells.filter((c) => c.repeats < s.minRepeats).map((c) => c.id))
  const rank = (d: CellDecision) => (short.has(d.id) ? 0 : d.halfWidth !== null && d.halfWidth <= s.precision ? 1 : 2)
  const wanting = decisions.filter((d) => d.more).sort((a, b) => rank(a) - rank(b) || (b.halfWidth ?? Infinity) - (a.halfWidth ?? Infinity))
  const byId = new Map(decisions.map((d) => [d.id, d]))
  const pairOf = new Map(cells.map((c) => [c.id, c.pairOf ?? '']))
  const twinOf = (d: CellDecision) => byId.get(pairOf.get(d.id) ?? '')
  const settled = new Set<string>()
  let left = time.remainingS
  for (const d of wanting) {
    if (settled.has(d.id)) continue
    const unit = [d, twinOf(d)].filter((x): x is CellDecision => x !== undefined)
    for (const x of unit) settled.add(x.id)
    const costS = unit.length * time.costS
    if (left >= costS) left -= costS
    else
      for (const x of unit.filter((u) => u.more))
        Object.assign(x, { more: false, reason: `time budget${x.halfWidth === null ? '' : ` (at ${pct(x.halfWidth)})`}` })
  }
  return decisions
}
