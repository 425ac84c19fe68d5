import { fmtInterval, placeInterval, type Interval } from '../core/intervals.ts'
import { combineVerdicts, findingVerdict, PLACED, type FindingVerdict } from '../core/verdict.ts'

/** held when the whole interval is inside the band, not held when wholly outside, else inconclusive. */
export const decide = (iv: Interval, band: { min?: number; max?: number }): FindingVerdict => findingVerdict(PLACED[placeInterval(iv, band)])

/** One verdict from several parts: the one rule of lib/core/verdict.ts. */
export const combine = combineVerdicts

/**
 * A yes/no outcome per repeat decided by its median repeat (the majority); a tie between
 * repeats is inconclusive rather than resolved toward either side.
 */
export function byMajority(outcomes: readonly boolean[]): FindingVerdict {
  if (outcomes.length === 0) return 'not measured'
  const yes = outcomes.filter(Boolean).length
  const no = outcomes.length - yes
  return yes > no ? 'held' : no > yes ? 'not held' : 'inconclusive'
}

/** `1.39x [1.21, 1.62]`: an interval with a unit right after its value. */
export const fmtIv = (iv: Interval, unit = '', digits = 2): string => fmtInterval(iv, digits).replace(/^(\S+) /, `$1${unit} `)
