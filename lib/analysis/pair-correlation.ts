import { groupBy, repeatIdOf, type TableName } from '../data/grouping.ts'
import { pairCellId } from '../data/then.ts'

/**
 * How closely a pair's two sides move together from round to round (docs/method/pairs.md#at-one-instant).
 * A pair's ratio keeps var(ln now) + var(ln then) − 2 cov of the two windows' variance: the
 * more the sides' costs correlate, the more of the machine's moment their ratio cancels.
 */

/** One round of one paired cell: each side's cost (e.g. proxy CPU µs per request). */
export interface RoundPair {
  /** The cell without its version (now and then differ in it). */
  cell: string
  round: number
  nowCost: number
  thenCost: number
}

export interface PairCorrelation {
  /** Each cell's Pearson r of ln now against ln then over its rounds (null under 3 rounds or no spread). */
  cells: { cell: string; pairs: number; r: number | null }[]
  /** The pooled within-cell r: both sides' logs centred on their cell's means, over every cell of 2 rounds or more. */
  pooled: number | null
  /** Rounds counted in `pooled`. */
  pairs: number
  /**
   * var(ln now − ln then) / (var ln now + var ln then), of the centred logs: the share of the
   * two windows' variance their ratio keeps (1: independent sides; 1 − r when both vary alike).
   */
  ratioVarianceShare: number | null
}

type Row = { repeat: number; status: string } & Record<string, unknown>

const cost = (r: Row, column: string) => {
  const v = r[column]
  return typeof v === 'number' && v > 0 ? v : null
}

/** A row a pair's side counts by default: a valid one. */
const isValid = (r: Row) => r.status === 'valid'

/**
 * The rounds where both sides of a cell have a cost, from a run's now rows and its then rows
 * (then/) of one table: a now and a then row of one cell (its key less the version) and one
 * repeat, each accepted (default: valid; a study of the machine's moment may take disturbed ones too).
 */
export function roundPairs(
  now: readonly Row[],
  then: readonly Row[],
  o: { column?: string; table?: TableName; accept?: (r: Row) => boolean } = {},
): RoundPair[] {
  const { column = 'proxy_cpu_us_per_req', table = 'measurements', accept = isValid } = o
  const counted = (rows: readonly Row[]) => rows.filter((r) => accept(r) && cost(r, column) !== null)
  const nowBy = new Map(counted(now).map((r) => [repeatIdOf(pairCellId(table, r), r.repeat), cost(r, column)!]))
  return counted(then).flatMap((r) => {
    const cell = pairCellId(table, r)
    const n = nowBy.get(repeatIdOf(cell, r.repeat))
    return n === undefined ? [] : [{ cell, round: r.repeat, nowCost: n, thenCost: cost(r, column)! }]
  })
}

/** Sums of squares and cross-products of two series about their own means. */
function centred(x: readonly number[], y: readonly number[]) {
  const mx = x.reduce((t, v) => t + v, 0) / x.length
  const my = y.reduce((t, v) => t + v, 0) / y.length
  let sxx = 0
  let syy = 0
  let sxy = 0
  for (let i = 0; i < x.length; i++) {
    sxx += (x[i]! - mx) ** 2
    syy += (y[i]! - my) ** 2
    sxy += (x[i]! - mx) * (y[i]! - my)
  }
  return { sxx, syy, sxy }
}

const rOf = (s: { sxx: number; syy: number; sxy: number }) => (s.sxx > 0 && s.syy > 0 ? s.sxy / Math.sqrt(s.sxx * s.syy) : null)

/** Pearson's r of two series of one length; null under 2 points or when either does not vary. */
export function pearson(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`pearson: ${x.length} against ${y.length} values`)
  return x.length < 2 ? null : rOf(centred(x, y))
}

/** The within-pair correlation of the logs, per cell and pooled over the cells (each centred on its own means). */
export function pairCorrelation(pairs: readonly RoundPair[]): PairCorrelation {
  const byCell = [...groupBy(pairs, (p) => [p.cell])]
  const sums = { sxx: 0, syy: 0, sxy: 0 }
  let counted = 0
  const cells = byCell.map(([cell, ps]) => {
    const x = ps.map((p) => Math.log(p.nowCost))
    const y = ps.map((p) => Math.log(p.thenCost))
    if (ps.length >= 2) {
      const s = centred(x, y)
      sums.sxx += s.sxx
      sums.syy += s.syy
      sums.sxy += s.sxy
      counted += ps.length
    }
    return { cell, pairs: ps.length, r: ps.length >= 3 ? pearson(x, y) : null }
  })
  const spread = sums.sxx + sums.syy
  return {
    cells,
    pooled: rOf(sums),
    pairs: counted,
    ratioVarianceShare: spread > 0 ? (spread - 2 * sums.sxy) / spread : null,
  }
}
