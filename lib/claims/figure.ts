/**
 * A check's figure with its interval (lib/core/intervals.ts), and where it lies against the
 * check's band: inside (the unit holds), outside (fails), straddling (undecided).
 */
import {
  bootstrapFigure,
  BOOTSTRAP_RESAMPLES,
  medianInterval,
  overlaps,
  placeInterval,
  repeatsDisagree,
  type Interval,
  type Pairing,
  type Placement,
} from '../core/intervals.ts'
import { aggregateMedians } from './cells.ts'
import type { Side } from './sides.ts'

/** A unit's figure: its value as measured and its interval; `constant` when no measured cell is behind it. */
export interface Fig {
  value: number
  lo: number
  hi: number
  method: Interval['method'] | 'constant'
  /** The interval's coverage and the fewest repeats behind it (absent for a constant). */
  level?: number
  n?: number
  floor?: Interval['floor']
  disagree?: Interval['disagree']
  /** The factor the interval was widened by, each way, for the drift of sides measured apart (lib/claims/rounds.ts). */
  drift?: number
  /** The shared rounds whose per-round figures widened the interval (lib/claims/rounds.ts byRounds). */
  rounds?: number
}

/**
 * `f` of the sides' values with its interval. One cell: its median's order-statistics
 * interval mapped through `f` (monotone in one cell's value for every kind here: x, x/c, c/x).
 * Several cells: a bootstrap over all of them, paired by round unless `pairing` says the
 * cells were measured apart, each side's aggregate recomputed from the resampled medians.
 * The point stays the figure of the measured medians.
 */
export function figureOf(sides: readonly Side[], f: (xs: readonly number[]) => number, pairing: Pairing = 'rounds'): Fig {
  const value = f(sides.map((s) => s.value!))
  const cells = sides.flatMap((s) => s.values)
  if (cells.length === 0) return { value, lo: value, hi: value, method: 'constant' }
  let iv: Interval
  if (cells.length === 1) {
    const m = medianInterval(cells[0]!.repeats)
    const at = (x: number) => f(sides.map((s) => (s.values.length ? x : s.value!)))
    const [lo, hi] = [at(m.lo), at(m.hi)].sort((x, y) => x - y)
    const d = m.disagree ? [at(m.disagree.lo), at(m.disagree.hi)].sort((x, y) => x - y) : null
    iv = { ...m, lo: lo!, hi: hi!, ...(d && { disagree: { lo: d[0]!, hi: d[1]! } }) }
  } else {
    iv = bootstrapFigure(
      cells.map((v) => v.repeats),
      (medians) => {
        // Each side's medians in turn, in the order its cells were given.
        let i = 0
        const take = (n: number) => {
          const part = medians.slice(i, i + n)
          i += n
          return part
        }
        return f(sides.map((s) => (s.values.length ? aggregateMedians(s.values, take(s.values.length), s.agg) : s.value!)))
      },
      BOOTSTRAP_RESAMPLES,
      pairing,
    )
  }
  // Rows with a repeat number twice are averaged per repeat: keep the measured point inside.
  const finite = Number.isFinite(iv.lo) && Number.isFinite(iv.hi)
  return {
    value,
    lo: finite ? Math.min(iv.lo, value) : iv.lo,
    hi: finite ? Math.max(iv.hi, value) : iv.hi,
    method: iv.method,
    level: iv.level,
    n: iv.n,
    ...(iv.floor && { floor: iv.floor }),
    ...(iv.disagree && { disagree: iv.disagree }),
  }
}

/** Float noise of resampled medians (6.000000000000001 against a bound of 6) decides nothing. */
export const snap = (x: number) => (Number.isFinite(x) ? Number(x.toPrecision(12)) : x)

/** Where a figure lies against a band; a constant figure is a point, decided either way. */
export function placeFig(fig: Fig, band: { min?: number; max?: number }): Placement {
  const [min, max] = [band.min === undefined ? undefined : snap(band.min), band.max === undefined ? undefined : snap(band.max)]
  if (min !== undefined && max !== undefined && min > max) return 'outside'
  if (fig.method === 'constant') {
    const v = snap(fig.value)
    return v >= (min ?? -Infinity) && v <= (max ?? Infinity) ? 'inside' : 'outside'
  }
  return placeInterval(
    { lo: snap(fig.lo), hi: snap(fig.hi), method: fig.method, ...(fig.disagree && { disagree: fig.disagree }) },
    { ...(min !== undefined && { min }), ...(max !== undefined && { max }) },
  )
}

/** A threshold's op as a placement; the strict ops are half-lines open at the bound. */
export function placeOp(fig: Fig, op: '<' | '<=' | '>' | '>=' | '==', want: number): Placement {
  if (op === '<=') return placeFig(fig, { max: want })
  if (op === '>=') return placeFig(fig, { min: want })
  if (op === '==') return placeFig(fig, { min: want, max: want })
  const w = snap(want)
  const ok = (x: number) => (op === '<' ? snap(x) < w : snap(x) > w)
  if (fig.method === 'constant') return ok(fig.value) ? 'inside' : 'outside'
  // The same guards as placeInterval: no spread seen, or no interval, decides nothing.
  if (fig.method === 'single repeat' || !Number.isFinite(fig.lo) || !Number.isFinite(fig.hi) || repeatsDisagree(fig)) return 'straddles'
  return ok(fig.lo) && ok(fig.hi) ? 'inside' : !ok(fig.lo) && !ok(fig.hi) ? 'outside' : 'straddles'
}

/** A placement as a unit's state (lib/core/verdict.ts PLACED). */
export { PLACED as STATE } from '../core/verdict.ts'

/** Several conditions on one figure: outside when one is, inside when all are. */
export const combinePlaces = (places: readonly Placement[]): Placement =>
  places.includes('outside') ? 'outside' : places.every((p) => p === 'inside') ? 'inside' : 'straddles'

/** Whether two proxies' order is decided: both intervals show spread and do not overlap. */
export const apart = (a: Fig, b: Fig) =>
  a.method !== 'single repeat' &&
  b.method !== 'single repeat' &&
  !repeatsDisagree(a) &&
  !repeatsDisagree(b) &&
  [a.lo, a.hi, b.lo, b.hi].every(Number.isFinite) &&
  !overlaps(a, b)
