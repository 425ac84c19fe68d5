/**
 * Bisect over ordered versions: which two adjacent releases does a measured change sit
 * between? Pure: the state is replayed from the cells measured so far, so the runner only
 * asks "what next?" after each step, and a resumed run continues where its rows stop.
 *
 * Two versions differ when Mann-Whitney U says so at α and the ratio's whole interval lies
 * outside the band of ± minEffect (the verdict rule of core/intervals: a figure whose
 * interval straddles its bound decides nothing). The search assumes one step: where both
 * halves differ it follows the larger change and says a second step exists.
 */
import { fmtInterval, placeInterval, ratioInterval, type Interval, type Repeats } from './intervals.ts'
import { mannWhitney, median } from './stats.ts'

export const BISECT_ALPHA = 0.05
/** Smaller changes than ±10% are builds and machine noise between releases, not the step looked for. */
export const BISECT_MIN_EFFECT = 0.1
/** Mann-Whitney's smallest two-sided p with 4 against 4 repeats is 0.029; 5 leave room for a disturbed window. */
export const BISECT_REPEATS = 5
/** Valid repeats a version needs before it is compared: below 4 a side Mann-Whitney cannot reach p < 0.05. */
export const BISECT_MIN_VALID = 4

export interface Judgement {
  differs: boolean
  /** newer / older, medians, with its interval. */
  ratio: Interval
  p: number
}

export type Judge = (older: Repeats, newer: Repeats) => Judgement

/** The default judge: Mann-Whitney at α and the ratio interval wholly outside ±minEffect. */
export function judgeChange(o: { alpha?: number; minEffect?: number } = {}): Judge {
  const alpha = o.alpha ?? BISECT_ALPHA
  const e = o.minEffect ?? BISECT_MIN_EFFECT
  return (older, newer) => {
    const ratio = ratioInterval(newer, older)
    const { p } = mannWhitney([...older.values()], [...newer.values()])
    return { differs: p < alpha && placeInterval(ratio, { min: 1 / (1 + e), max: 1 + e }) === 'outside', ratio, p }
  }
}

/** One comparison the search made, in the order made. */
export interface BisectProbe {
  older: string
  newer: string
  judgement: Judgement
}

export type BisectState =
  /** Measure these versions next (none of them has a cell yet). */
  | { kind: 'measure'; versions: string[]; probes: BisectProbe[] }
  /** Adjacent versions that differ: the step. */
  | { kind: 'step'; older: string; newer: string; judgement: Judgement; probes: BisectProbe[]; notes: string[] }
  /** The oldest and newest do not differ: no step to find (or steps that cancel out). */
  | { kind: 'no step'; older: string; newer: string; judgement: Judgement; probes: BisectProbe[]; notes: string[] }
  /** The ends differ but no adjacent pair does: a drift over several releases, not one step. */
  | { kind: 'no single step'; older: string; newer: string; judgement: Judgement; probes: BisectProbe[]; notes: string[] }
  | { kind: 'too few versions'; versions: string[]; probes: BisectProbe[]; notes: string[] }
  /** A version measured without enough valid repeats (a busy machine, failed windows): the step lies between older and newer, not narrowed further. */
  | { kind: 'inconclusive'; older: string; newer: string; probes: BisectProbe[]; notes: string[] }

const logEffect = (j: Judgement) => Math.abs(Math.log(j.ratio.value))

/**
 * The search's state for versions (oldest first) and the cells measured so far (valid
 * values only; `measured`: versions with rows of any status, default those with values).
 * The ends first, then the middle of the interval whose ends differ, until the interval is
 * two adjacent versions. A version measured with fewer than BISECT_MIN_VALID valid repeats
 * stops the search where it stands: never asked for again, never judged on too little.
 */
export function bisectState(
  versions: readonly string[],
  cells: ReadonlyMap<string, Repeats>,
  judge: Judge = judgeChange(),
  measured?: ReadonlySet<string>,
): BisectState {
  const probes: BisectProbe[] = []
  const notes: string[] = []
  const valid = (v: string) => cells.get(v)?.size ?? 0
  const has = (v: string) => (measured ? measured.has(v) : valid(v) > 0)
  const short = (...vs: string[]) => tooFewValid(cells, vs)
  const compare = (i: number, j: number): Judgement => {
    const judgement = judge(cells.get(versions[i]!)!, cells.get(versions[j]!)!)
    probes.push({ older: versions[i]!, newer: versions[j]!, judgement })
    return judgement
  }
  const stopped = stopAtEnds(versions, { has, short, compare }, probes, notes)
  if (stopped) return stopped
  let lo = 0
  let hi = versions.length - 1
  let drift = false
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (!has(versions[mid]!)) return { kind: 'measure', versions: [versions[mid]!], probes }
    const midShort = short(versions[mid]!)
    if (midShort.length)
      return { kind: 'inconclusive', older: versions[lo]!, newer: versions[hi]!, probes, notes: [...notes, `narrowing stopped: ${midShort[0]}`] }
    const left = compare(lo, mid)
    const right = compare(mid, hi)
    const { goLeft, note } = followHalf(left, right, { lo: versions[lo]!, mid: versions[mid]!, hi: versions[hi]! })
    if (note) notes.push(note)
    // Neither half differs on its own: the change may be spread out.
    if (!left.differs && !right.differs) drift = true
    if (goLeft) hi = mid
    else lo = mid
  }
  const last = probes.find((p) => p.older === versions[lo] && p.newer === versions[hi])?.judgement ?? compare(lo, hi)
  if (!last.differs) return { kind: 'no single step', older: versions[lo]!, newer: versions[hi]!, judgement: last, probes, notes }
  if (drift) notes.push('the change may be spread over several releases')
  return { kind: 'step', older: versions[lo]!, newer: versions[hi]!, judgement: last, probes, notes }
}

/**
 * Where the search ends before it narrows: fewer than two versions, an end not measured yet or
 * with too few valid repeats, or ends that do not differ; null when the ends differ.
 */
function stopAtEnds(
  versions: readonly string[],
  o: { has: (v: string) => boolean; short: (...vs: string[]) => string[]; compare: (i: number, j: number) => Judgement },
  probes: BisectProbe[],
  notes: string[],
): BisectState | null {
  if (versions.length < 2)
    return {
      kind: 'too few versions',
      versions: [...versions],
      probes,
      notes: [`${versions.length} version${versions.length === 1 ? '' : 's'} to compare: a bisect needs two`],
    }
  const [older, newer] = [versions[0]!, versions[versions.length - 1]!]
  const missing = [older, newer].filter((v) => !o.has(v))
  if (missing.length) return { kind: 'measure', versions: missing, probes }
  const endsShort = o.short(older, newer)
  if (endsShort.length) return { kind: 'inconclusive', older, newer, probes, notes: endsShort }
  const ends = o.compare(0, versions.length - 1)
  return ends.differs ? null : { kind: 'no step', older, newer, judgement: ends, probes, notes }
}

/** A note for each version with fewer valid repeats than a comparison needs. */
function tooFewValid(cells: ReadonlyMap<string, Repeats>, versions: readonly string[]): string[] {
  const valid = (v: string) => cells.get(v)?.size ?? 0
  return versions
    .filter((v) => valid(v) < BISECT_MIN_VALID)
    .map(
      (v) =>
        `${v} has ${valid(v)} valid repeat${valid(v) === 1 ? '' : 's'} of the ${BISECT_MIN_VALID} a comparison needs (its other windows were disturbed or failed)`,
    )
}

/**
 * The half the search follows after judging both (lo → mid, mid → hi): the one that differs,
 * else the larger change; with a note when both differ or neither does.
 */
function followHalf(left: Judgement, right: Judgement, v: { lo: string; mid: string; hi: string }): { goLeft: boolean; note: string | null } {
  const goLeft = left.differs !== right.differs ? left.differs : logEffect(left) >= logEffect(right)
  if (left.differs && right.differs) {
    const other = goLeft ? `${v.mid} and ${v.hi}` : `${v.lo} and ${v.mid}`
    return {
      goLeft,
      note: `another change lies between ${other} (${fmtInterval(goLeft ? right.ratio : left.ratio)}x); the search assumes one step and followed the larger`,
    }
  }
  if (!left.differs && !right.differs)
    return { goLeft, note: `neither ${v.lo} → ${v.mid} nor ${v.mid} → ${v.hi} differs on its own; followed the larger change` }
  return { goLeft, note: null }
}

/** The median of a cell, or null when it has no values. */
export const cellMedian = (c: Repeats | undefined): number | null => (c && c.size > 0 ? median([...c.values()]) : null)
