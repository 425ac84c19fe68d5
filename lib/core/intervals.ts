/**
 * Confidence intervals for the figures of findings and claims, and the three-way rule
 * that turns an interval and a bound into a verdict (benchmath style: a figure always
 * travels with its uncertainty).
 *
 * - One cell's median: distribution-free order statistics (exact binomial coverage), from
 *   core/stats.
 * - Any figure computed from the medians of several cells (a ratio, a spread, a share):
 *   a percentile bootstrap over repeats. Repeats of one interleaved round (the same
 *   `repeat` number) were measured minutes apart under the same machine conditions, so
 *   the bootstrap draws rounds, not single values, and keeps a round's cells together
 *   (paired); a cell without a value in a drawn round falls back to its own values.
 * The bootstrap is seeded from the data, so the same rows always give the same interval.
 */
import { sha256Text } from './hash.ts'
import { seededRandom } from './shuffle.ts'
import { median, medianCI } from './stats.ts'

/** The repeats of one cell: repeat number → value (valid rows only). */
export type Repeats = ReadonlyMap<number, number>

export interface Interval {
  /** The figure on the medians of the data as measured. */
  value: number
  lo: number
  hi: number
  /** Nominal coverage (order statistics: the exact coverage, below 0.95 for n < 6). */
  level: number
  method: 'order statistics' | 'paired bootstrap' | 'bootstrap' | 'single repeat'
  /** Fewest repeats of any cell behind the figure. */
  n: number
}

export const LEVEL = 0.95
/** Resamples per bootstrap interval: the 2.5% and 97.5% quantiles move < 1% between seeds at this size. */
export const BOOTSTRAP_RESAMPLES = 2000

/** Repeats of rows as a map; rows without a value are left out. */
export function repeatsOf<R extends { repeat: number }>(rows: readonly R[], value: (r: R) => number | null | undefined): Map<number, number> {
  const out = new Map<number, number>()
  for (const r of rows) {
    const v = value(r)
    if (typeof v === 'number' && Number.isFinite(v)) out.set(r.repeat, out.has(r.repeat) ? (out.get(r.repeat)! + v) / 2 : v)
  }
  return out
}

/** One cell's median with its order-statistics interval. */
export function medianInterval(cell: Repeats): Interval {
  const xs = [...cell.values()]
  const m = median(xs)
  if (xs.length < 2) return { value: m, lo: m, hi: m, level: 0, method: 'single repeat', n: xs.length }
  const { ci, level } = medianCI(xs, LEVEL)
  return { value: m, lo: ci[0], hi: ci[1], level, method: 'order statistics', n: xs.length }
}

/**
 * A figure of several cells' medians with its bootstrap interval. `figure` gets one median
 * per cell, in the order of `cells`; NaN or infinite resamples are dropped (a ratio whose
 * denominator resampled to 0). With fewer than two repeats in any cell there is no spread
 * to judge: the interval is the point and the method says "single repeat".
 */
export function bootstrapFigure(cells: readonly Repeats[], figure: (medians: readonly number[]) => number, resamples = BOOTSTRAP_RESAMPLES): Interval {
  const values = cells.map((c) => [...c.values()])
  const value = figure(values.map((v) => median(v)))
  const n = Math.min(...values.map((v) => v.length))
  if (cells.length === 0 || n < 2) return { value, lo: value, hi: value, level: 0, method: 'single repeat', n: Number.isFinite(n) ? n : 0 }
  const rounds = [...new Set(cells.flatMap((c) => [...c.keys()]))].sort((a, b) => a - b)
  const paired = cells.length > 1 && cells.every((c) => rounds.every((r) => c.has(r)))
  const random = seededRandom(parseInt(sha256Text(JSON.stringify(cells.map((c) => [...c]))).slice(0, 8), 16))
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!
  const draws: number[] = []
  for (let b = 0; b < resamples; b++) {
    let medians: number[]
    if (paired) {
      const drawn = rounds.map(() => pick(rounds))
      medians = cells.map((c) => median(drawn.map((r) => c.get(r)!)))
    } else {
      medians = values.map((v) => median(v.map(() => pick(v))))
    }
    const f = figure(medians)
    if (Number.isFinite(f)) draws.push(f)
  }
  if (draws.length === 0) return { value, lo: NaN, hi: NaN, level: 0, method: paired ? 'paired bootstrap' : 'bootstrap', n }
  draws.sort((a, b) => a - b)
  const q = (p: number) => {
    const pos = (draws.length - 1) * p
    const lo = Math.floor(pos)
    return draws[lo]! + (draws[Math.ceil(pos)]! - draws[lo]!) * (pos - lo)
  }
  const alpha = (1 - LEVEL) / 2
  // The point figure is always inside its interval, even when few distinct resamples exist.
  return { value, lo: Math.min(q(alpha), value), hi: Math.max(q(1 - alpha), value), level: LEVEL, method: paired ? 'paired bootstrap' : 'bootstrap', n }
}

/** A ratio of two cells' medians, a / b, with its interval. */
export const ratioInterval = (a: Repeats, b: Repeats): Interval => bootstrapFigure([a, b], ([x, y]) => x! / y!)

/** Where an interval lies against a band [min, max] (either end may be open). */
export type Placement = 'inside' | 'outside' | 'straddles'

export function placeInterval(iv: Pick<Interval, 'lo' | 'hi' | 'method'>, band: { min?: number; max?: number }): Placement {
  const { min = -Infinity, max = Infinity } = band
  if (!Number.isFinite(iv.lo) || !Number.isFinite(iv.hi)) return 'straddles'
  // A single repeat shows no noise, so nothing measured can be called certain.
  if (iv.method === 'single repeat') return 'straddles'
  if (iv.lo >= min && iv.hi <= max) return 'inside'
  if (iv.hi < min || iv.lo > max) return 'outside'
  return 'straddles'
}

/** Placement of an interval as a verdict: `yes` inside the band, `no` outside, else inconclusive. */
export function threeWay<Y extends string, N extends string>(p: Placement, yes: Y, no: N): Y | N | 'inconclusive' {
  return p === 'inside' ? yes : p === 'outside' ? no : 'inconclusive'
}

/** Whether two intervals overlap (a rank between them cannot be decided). */
export const overlaps = (a: Pick<Interval, 'lo' | 'hi'>, b: Pick<Interval, 'lo' | 'hi'>) => a.lo <= b.hi && b.lo <= a.hi

/** Half-width of an interval relative to its value (0.03 = ±3%). */
export const relativeHalfWidth = (iv: Pick<Interval, 'lo' | 'hi' | 'value'>) => (iv.value === 0 ? Infinity : (iv.hi - iv.lo) / 2 / Math.abs(iv.value))

/** `1.39 [1.21, 1.62]` with the given decimals. */
export function fmtInterval(iv: Pick<Interval, 'value' | 'lo' | 'hi' | 'method'>, digits = 2): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(digits) : '?')
  return iv.method === 'single repeat' ? `${f(iv.value)} [1 repeat]` : `${f(iv.value)} [${f(iv.lo)}, ${f(iv.hi)}]`
}
