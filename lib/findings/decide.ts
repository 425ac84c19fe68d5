import { fmtInterval, placeInterval, type Interval } from '../core/intervals.ts'
import { combineVerdicts, findingVerdict, PLACED, type FindingVerdict } from '../core/verdict.ts'

/** held when the whole interval is inside the band, not held when wholly outside, else inconclusive. */
export const decide = (iv: Interval, band: { min?: number; max?: number }): FindingVerdict => findingVerdict(PLACED[placeInterval(iv, band)])

/** One verdict from several parts: the one rule of lib/core/verdict.ts. */
export const combine = combineVerdicts

/** `1.39x [1.21, 1.62]`: an interval with a unit right after its value. */
export const fmtIv = (iv: Interval, unit = '', digits = 2): string => fmtInterval(iv, digits).replace(/^(\S+) /, `$1${unit} `)
