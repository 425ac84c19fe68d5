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
 *   (paired); a cell without a value in a drawn round falls back to its own values. A caller
 *   that knows the cells were not measured in the same rounds (lib/claims/rounds.ts) says
 *   `apart`, and equal repeat numbers then pair nothing.
 * - The run's noise as a floor: with few repeats, neither kind of interval above reaches its
 *   coverage (two repeats' [min, max] covers the median half the time). Cells of one family
 *   (the cells a finding compares, or a claim table's cells under one load model: one
 *   window design) share the host's noise, so their pooled log-spread is known with many
 *   degrees of freedom. A figure on a cell with fewer than FLOOR_BELOW_N repeats also gets
 *   a parametric interval from that pooled spread, and its interval is the hull of both. A
 *   cell whose own repeats disagree beyond the others' noise (p < 0.001: about one false
 *   alarm per ten runs of ~100 cells) is `unstable`: its own spread, with a Student t of its
 *   own few degrees of freedom, widens every figure on it.
 * The bootstrap is seeded from the data, so the same rows always give the same interval.
 */
import { sha256Text } from './hash.ts'
import { seededRandom } from './shuffle.ts'
import { median, medianCI, quantile } from './stats.ts'

/** The spread of log values within cells (SD per window), pooled over a family of cells. */
export interface Noise {
  sd: number
  /** Degrees of freedom: the family's repeats less one per cell. */
  df: number
}

/**
 * The repeats of one cell: repeat number → value (valid rows only). `noise`, when set, is
 * its family's pooled noise; `unstable` says its own repeats disagree beyond it.
 */
export type Repeats = ReadonlyMap<number, number> & { readonly noise?: Noise; readonly unstable?: boolean }

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
  /** What widened the interval beyond `method`'s: the run's pooled noise, or an unstable cell's own spread. */
  floor?: 'run noise' | 'unstable cell'
  /**
   * Set when the repeats disagree (an unstable cell of fewer than FLOOR_BELOW_N repeats, or
   * an interval wider than MAX_SPAN×):
   * the figure at its repeats' extremes. Such a figure is printed as `16.2 (repeats
   * disagree: 7.6 vs 34.5)`, never as its interval, and decides nothing.
   */
  disagree?: { lo: number; hi: number }
}

/** The side of 1 a ratio's interval is on. */
export type SideOfOne = 'below' | 'above' | 'neither' | 'one repeat' | 'repeats disagree'

/**
 * The one judge of a ratio's side: a side only when the whole interval is on it; one repeat
 * or repeats that disagree decide nothing (DESIGN "Verdicts carry their uncertainty").
 */
export function sideOfOne(x: Pick<Interval, 'lo' | 'hi'> & Partial<Pick<Interval, 'method' | 'disagree'>>): SideOfOne {
  if (x.method === 'single repeat') return 'one repeat'
  if (x.disagree) return 'repeats disagree'
  return x.hi < 1 ? 'below' : x.lo > 1 ? 'above' : 'neither'
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
  return withDisagreement(
    withFloor({ value: m, lo: ci[0], hi: ci[1], level, method: 'order statistics', n: xs.length }, [cell], ([x]) => x!),
    [cell],
    ([x]) => x!,
  )
}

/** A seed from the cells' values: the same rows always give the same interval. */
const seedOf = (cells: readonly Repeats[]) => parseInt(sha256Text(JSON.stringify(cells.map((c) => [...c]))).slice(0, 8), 16)

/**
 * Whether the cells' repeat numbers may be read as shared rounds: `rounds` (the default) when
 * the caller knows nothing against it, `apart` when it knows the cells were not measured in
 * the same rounds (another phase, another invocation: lib/claims/rounds.ts), so equal repeat
 * numbers pair nothing.
 */
export type Pairing = 'rounds' | 'apart'

/**
 * A figure of several cells' medians with its bootstrap interval. `figure` gets one median
 * per cell, in the order of `cells`; NaN or infinite resamples are dropped (a ratio whose
 * denominator resampled to 0). With fewer than two repeats in any cell there is no spread
 * to judge: the interval is the point and the method says "single repeat".
 */
export function bootstrapFigure(
  cells: readonly Repeats[],
  figure: (medians: readonly number[]) => number,
  resamples = BOOTSTRAP_RESAMPLES,
  pairing: Pairing = 'rounds',
): Interval {
  const values = cells.map((c) => [...c.values()])
  const value = figure(values.map((v) => median(v)))
  const n = Math.min(...values.map((v) => v.length))
  if (cells.length === 0 || n < 2) return { value, lo: value, hi: value, level: 0, method: 'single repeat', n: Number.isFinite(n) ? n : 0 }
  const rounds = [...new Set(cells.flatMap((c) => [...c.keys()]))].sort((a, b) => a - b)
  const paired = pairing === 'rounds' && cells.length > 1 && cells.every((c) => rounds.every((r) => c.has(r)))
  const random = seededRandom(seedOf(cells))
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
  const q = (p: number) => quantile(draws, p)
  const alpha = (1 - LEVEL) / 2
  // The point figure is always inside its interval, even when few distinct resamples exist.
  return withDisagreement(
    withFloor(
      { value, lo: Math.min(q(alpha), value), hi: Math.max(q(1 - alpha), value), level: LEVEL, method: paired ? 'paired bootstrap' : 'bootstrap', n },
      cells,
      figure,
      pairing,
    ),
    cells,
    figure,
    pairing,
  )
}

// ------------------------------------------------------------------ the run's noise as a floor

/** Fewest degrees of freedom for a pooled noise to be used: below this it is itself too uncertain. */
export const MIN_NOISE_DF = 4
/** A cell is unstable when its own spread is this improbable under the pooled noise. */
export const UNSTABLE_P = 0.001
/**
 * The pooled noise widens cells with fewer repeats than this. Simulated (20 cells, 8% log
 * noise, a ratio of two of them; test/core/intervals.test.ts): the paired bootstrap covers
 * 46% of the time at 2 repeats, 76% at 3 and 93% at 5, where it is near its nominal 95%.
 */
export const FLOOR_BELOW_N = 5
/** Variance of the median of n normal draws × n (simulated, 400k draws): 1 for the mean of 2, π/2 as n grows. */
const MEDIAN_VARIANCE = [1, 1, 1, 1.35, 1.19, 1.43, 1.29]
export const medianVariance = (n: number) => MEDIAN_VARIANCE[n] ?? Math.PI / 2

const logsOf = (cell: Repeats) => [...cell.values()].map(Math.log)
/** Sum of squared deviations from the mean. */
export const sumSquares = (xs: readonly number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length
  return xs.reduce((a, x) => a + (x - mean) ** 2, 0)
}

/** Standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)))
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)))
  const q = p - 0.5
  const r = q * q
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  )
}

/**
 * Student t quantile: exact for 1 and 2 degrees of freedom, else the Cornish-Fisher
 * expansion around the normal quantile (within 1% of the exact value from 3 up at p = 0.975).
 */
export function studentQuantile(p: number, df: number): number {
  if (!(df > 0)) return NaN
  if (df === 1) return Math.tan(Math.PI * (p - 0.5))
  if (df === 2) return (2 * p - 1) / Math.sqrt(2 * p * (1 - p))
  const z = normalQuantile(p)
  const [z3, z5, z7] = [z ** 3, z ** 5, z ** 7]
  return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) + (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3)
}

/** Chi-square quantile (Wilson-Hilferty; within 4% of the exact value from 1 degree of freedom up at p = 0.999). */
export function chiSquareQuantile(p: number, df: number): number {
  const z = normalQuantile(p)
  const h = 2 / (9 * df)
  return df * Math.max(0, 1 - h + z * Math.sqrt(h)) ** 3
}

/**
 * The cells of one family with the family's pooled noise attached, and `unstable` on those
 * whose own spread is improbable under the pool of the others (leave one out: a bimodal
 * cell would otherwise widen the very pool it is tested against). The pool leaves out the
 * unstable cells. Cells with a value <= 0 have no log spread: the family then gets no
 * noise (nothing changes).
 */
export function withPooledNoise(cells: readonly Repeats[]): Repeats[] {
  const spread = cells.filter((c) => c.size >= 2)
  if (spread.some((c) => [...c.values()].some((v) => !(v > 0)))) return [...cells]
  const ss = new Map(spread.map((c) => [c, sumSquares(logsOf(c))]))
  const total = { ss: [...ss.values()].reduce((a, b) => a + b, 0), df: spread.reduce((a, c) => a + c.size - 1, 0) }
  const unstable = new Set(
    spread.filter((c) => {
      const df = total.df - (c.size - 1)
      return df >= MIN_NOISE_DF && ss.get(c)! / ((total.ss - ss.get(c)!) / df) > chiSquareQuantile(1 - UNSTABLE_P, c.size - 1)
    }),
  )
  const kept = spread.filter((c) => !unstable.has(c))
  const df = kept.reduce((a, c) => a + c.size - 1, 0)
  if (df < MIN_NOISE_DF) return [...cells]
  const noise: Noise = { sd: Math.sqrt(kept.reduce((a, c) => a + ss.get(c)!, 0) / df), df }
  return cells.map((c) => Object.assign(new Map(c), { noise, unstable: unstable.has(c) }))
}

/** Each item's repeats with the pooled noise of its family (`familyOf`), in the order given. */
export function withFamilyNoise<T>(items: readonly T[], familyOf: (t: T) => string, repeats: (t: T) => Repeats): Repeats[] {
  const out: Repeats[] = items.map(repeats)
  for (const family of new Set(items.map(familyOf))) {
    const index = items.flatMap((t, i) => (familyOf(t) === family ? [i] : []))
    const noisy = withPooledNoise(index.map((i) => out[i]!))
    for (const [k, i] of index.entries()) out[i] = noisy[k]!
  }
  return out
}

/** A cell's own repeats, without its family's noise: its precision as the adaptive rule measures it. */
export const ownRepeats = (cell: Repeats): Repeats => new Map(cell)

/** A Student t draw with `df` degrees of freedom (a normal one beyond 30, where they differ by < 4% at 97.5%). */
function studentT(random: () => number, df: number): number {
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const z = normal()
  if (df > 30) return z
  let chi = 0
  for (let i = 0; i < df; i++) chi += normal() ** 2
  return z / Math.sqrt(chi / df)
}

/**
 * `iv` widened to the hull of itself and a parametric interval from the cells' noise: each
 * cell's median moves in log by a t draw × its SD × √(medianVariance(n) / n). Stable cells
 * with fewer than FLOOR_BELOW_N repeats use the pooled SD and its degrees of freedom,
 * unstable cells (any n) their own; the others do not move. Unchanged when none moves.
 */
function withFloor(iv: Interval, cells: readonly Repeats[], figure: (medians: readonly number[]) => number, pairing: Pairing = 'rounds'): Interval {
  if (iv.method === 'single repeat' || !cells.some((c) => c.noise) || !Number.isFinite(iv.lo) || !Number.isFinite(iv.hi)) return iv
  const medians = cells.map((c) => median([...c.values()]))
  const scale = cells.map((c) => {
    const noise = c.unstable ? { sd: Math.sqrt(sumSquares(logsOf(c)) / (c.size - 1)), df: c.size - 1 } : c.size < FLOOR_BELOW_N ? c.noise : undefined
    return noise && c.size >= 2 ? { sd: noise.sd * Math.sqrt(medianVariance(c.size) / c.size), df: noise.df } : { sd: 0, df: Infinity }
  })
  if (scale.every((s) => s.sd === 0)) return iv
  const random = seededRandom(seedOf(cells) ^ 0x5eed)
  const draws: number[] = []
  for (let b = 0; b < BOOTSTRAP_RESAMPLES; b++) {
    const f = figure(medians.map((m, i) => (scale[i]!.sd ? m * Math.exp(studentT(random, scale[i]!.df) * scale[i]!.sd) : m)))
    if (Number.isFinite(f)) draws.push(f)
  }
  if (draws.length === 0) return iv
  const alpha = (1 - LEVEL) / 2
  const [lo, hi] = [quantile(draws, alpha), quantile(draws, 1 - alpha)]
  if (lo >= iv.lo && hi <= iv.hi) return iv
  const widened: Interval = {
    ...iv,
    lo: Math.min(iv.lo, lo),
    hi: Math.max(iv.hi, hi),
    level: LEVEL,
    floor: cells.some((c) => c.unstable) ? 'unstable cell' : 'run noise',
  }
  // An unstable cell of few repeats widens by a Student t of under FLOOR_BELOW_N - 1 degrees of freedom: a bound no reader can use, so its repeats are shown instead.
  const fewDisagreeing = cells.some((c) => c.unstable && c.size < FLOOR_BELOW_N)
  return fewDisagreeing || spansTooWide(widened) ? { ...widened, disagree: repeatsRange(cells, figure, pairing) } : widened
}

/**
 * The figure at its repeats' extremes: per interleaved round where every cell has each
 * round (the figure of round 1, of round 2, …), else with the unstable cells (all cells
 * when none is) at their lowest and then at their highest repeat, the others at their
 * medians. Sorted, so `lo <= hi`.
 */
export function repeatsRange(
  cells: readonly Repeats[],
  figure: (medians: readonly number[]) => number,
  pairing: Pairing = 'rounds',
): { lo: number; hi: number } {
  const rounds = [...new Set(cells.flatMap((c) => [...c.keys()]))]
  const paired = pairing === 'rounds' && rounds.length >= 2 && cells.every((c) => rounds.every((r) => c.has(r)))
  const values = paired
    ? rounds.map((r) => figure(cells.map((c) => c.get(r)!)))
    : (['min', 'max'] as const).map((end) => {
        const moved = cells.some((c) => c.unstable) ? (c: Repeats) => !!c.unstable : () => true
        return figure(
          cells.map((c) => {
            const xs = [...c.values()]
            return moved(c) ? (end === 'min' ? Math.min(...xs) : Math.max(...xs)) : median(xs)
          }),
        )
      })
  const finite = values.filter(Number.isFinite)
  return finite.length ? { lo: Math.min(...finite), hi: Math.max(...finite) } : { lo: NaN, hi: NaN }
}

/** An interval wider than MAX_SPAN× gets its repeats' range, whatever widened it. */
const withDisagreement = (iv: Interval, cells: readonly Repeats[], figure: (medians: readonly number[]) => number, pairing: Pairing = 'rounds'): Interval =>
  iv.disagree || !spansTooWide(iv) ? iv : { ...iv, disagree: repeatsRange(cells, figure, pairing) }

/** No interval wider than this ratio hi/lo is printed (docs/method/disturbance.md#intervals): such a figure's repeats disagree. */
export const MAX_SPAN = 100

/** Whether an interval of positive bounds spans more than MAX_SPAN× (an interval reaching 0 or below is judged by its other rules). */
export const spansTooWide = (iv: Pick<Interval, 'lo' | 'hi'>) => iv.lo > 0 && Number.isFinite(iv.hi) && iv.hi / iv.lo > MAX_SPAN

/** Whether a figure's repeats disagree: printed as such and inconclusive (docs/method/disturbance.md#intervals). */
export const repeatsDisagree = (iv: Pick<Interval, 'lo' | 'hi'> & { disagree?: Interval['disagree'] }) => iv.disagree !== undefined || spansTooWide(iv)

/** A ratio of two cells' medians, a / b, with its interval. */
export const ratioInterval = (a: Repeats, b: Repeats): Interval => bootstrapFigure([a, b], ([x, y]) => x! / y!)

/** How an interval was made, in words: `paired bootstrap`, `order statistics, widened by run noise`. */
export const methodText = (iv: { method: string; floor?: Interval['floor'] }) => (iv.floor ? `${iv.method}, widened by ${iv.floor}` : iv.method)

/** Where an interval lies against a band [min, max] (either end may be open). */
export type Placement = 'inside' | 'outside' | 'straddles'

export function placeInterval(iv: Pick<Interval, 'lo' | 'hi' | 'method' | 'disagree'>, band: { min?: number; max?: number }): Placement {
  const { min = -Infinity, max = Infinity } = band
  if (!Number.isFinite(iv.lo) || !Number.isFinite(iv.hi)) return 'straddles'
  // A single repeat shows no noise, so nothing measured can be called certain; repeats that disagree neither.
  if (iv.method === 'single repeat' || repeatsDisagree(iv)) return 'straddles'
  if (iv.lo >= min && iv.hi <= max) return 'inside'
  if (iv.hi < min || iv.lo > max) return 'outside'
  return 'straddles'
}

/** Whether two intervals overlap (a rank between them cannot be decided). */
export const overlaps = (a: Pick<Interval, 'lo' | 'hi'>, b: Pick<Interval, 'lo' | 'hi'>) => a.lo <= b.hi && b.lo <= a.hi

/** Half-width of an interval relative to its value (0.03 = ±3%). */
export const relativeHalfWidth = (iv: Pick<Interval, 'lo' | 'hi' | 'value'>) => (iv.value === 0 ? Infinity : (iv.hi - iv.lo) / 2 / Math.abs(iv.value))

/** `1.39 [1.21, 1.62]` with the given decimals; `16.20 (repeats disagree: 7.60 vs 34.50)` where they do. */
export function fmtInterval(iv: Pick<Interval, 'value' | 'lo' | 'hi' | 'method' | 'disagree'>, digits = 2): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(digits) : '?')
  return fmtWith(iv, f)
}

/** An interval in words with `f` formatting each number: the one rule every printed interval follows. */
export function fmtWith(iv: Pick<Interval, 'value' | 'lo' | 'hi' | 'method' | 'disagree'>, f: (x: number) => string): string {
  if (iv.method === 'single repeat') return `${f(iv.value)} [1 repeat]`
  if (repeatsDisagree(iv))
    return iv.disagree && Number.isFinite(iv.disagree.lo)
      ? `${f(iv.value)} (repeats disagree: ${f(iv.disagree.lo)} vs ${f(iv.disagree.hi)})`
      : `${f(iv.value)} (repeats disagree)`
  return `${f(iv.value)} [${f(iv.lo)}, ${f(iv.hi)}]`
}
