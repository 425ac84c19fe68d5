/**
 * Verdicts that do not flip (docs/method/statistics.md#ratios-of-sides-measured-apart): a
 * ratio of two measured sides is read by round when its sides were measured in the same
 * interleaved rounds, enough of them, so that what the machine did in a round cancels in
 * that round's ratio; otherwise each side carries the per-cell drift the between-run prior
 * measured (lib/data/between-run-prior.ts), and the ratio's interval is widened by it.
 */
import { LEVEL, spansTooWide, studentQuantile, type Pairing } from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { cellDrift } from '../data/between-run-prior.ts'
import { MULTIPLICATIVE, type CellValue } from './cells.ts'
import { snap, type Fig } from './figure.ts'
import type { Side } from './sides.ts'

/** Fewest shared rounds whose per-round ratios are read as pairs: two give their spread one degree of freedom (a t of 12.7). */
export const MIN_PAIRED_ROUNDS = 2

export interface Rounds {
  pairing: Pairing
  /** The rounds every cell of both sides has (adaptive rounds beyond them are read unpaired). */
  shared: number[]
  /** Why the sides are not read by round; empty when they are. */
  why: string
}

const timeOf = (row: CellValue['rows'][number]): number => (typeof row.started_at === 'string' && row.started_at ? Date.parse(row.started_at) : Number.NaN)

/**
 * Whether the cells of a ratio's sides were measured in the same rounds: repeat numbers every
 * cell has (at least MIN_PAIRED_ROUNDS of them), each such round's rows by one invocation, and
 * those rounds in time order (every row of a round started no later than every row of the
 * next: rows of one phase, interleaved round by round; two phases, or a resume that measured
 * one side later, are not).
 */
export function sharedRounds(cells: readonly CellValue[]): Rounds {
  const sets = cells.map((c) => new Set(c.repeats.keys()))
  const shared = [...(sets[0] ?? [])].filter((r) => sets.every((s) => s.has(r))).sort((x, y) => x - y)
  const apart = (why: string): Rounds => ({ pairing: 'apart', shared, why })
  if (cells.length < 2) return apart('one cell')
  if (shared.length < MIN_PAIRED_ROUNDS) return apart(shared.length ? `${shared.length} shared round` : 'no shared round')
  const spans: { lo: number; hi: number }[] = []
  for (const r of shared) {
    const rows = cells.flatMap((c) => c.rows.filter((row) => row.repeat === r))
    const times = rows.map(timeOf)
    if (times.some((t) => !Number.isFinite(t))) return apart('rows without a start time')
    if (new Set(rows.map((row) => row.invocation ?? null)).size > 1) return apart(`round ${r} by several invocations`)
    spans.push({ lo: Math.min(...times), hi: Math.max(...times) })
  }
  if (spans.some((s, i) => i > 0 && s.lo < spans[i - 1]!.hi)) return apart('not in the same rounds')
  return { pairing: 'rounds', shared, why: '' }
}

/**
 * The factor a ratio of two sides measured apart is widened by, each way: both sides' per-cell
 * drift (SD σ of log each, so σ√2 for the ratio) at the prior's Student t. Only metrics that
 * follow the machine's state (costs, rates, latencies: MULTIPLICATIVE); counts follow the code path.
 */
export function driftFactor(metric: string | undefined): number | null {
  if (metric === undefined || !MULTIPLICATIVE.test(metric)) return null
  const { sd, df } = cellDrift()
  return Math.exp(studentQuantile(1 - (1 - LEVEL) / 2, df) * sd * Math.SQRT2)
}

/**
 * `fig` moved both ways by the drift: a verdict is decided only if its interval stays on one
 * side of the bound wherever the drift could take the figure. A figure with no interval to
 * widen (one repeat, repeats that disagree, a bound at or below 0) is left as it is: it decides nothing already.
 */
export function widenByDrift(fig: Fig, factor: number | null): Fig {
  if (factor === null || fig.method === 'constant' || fig.method === 'single repeat' || fig.disagree) return fig
  if (!(fig.lo > 0) || !Number.isFinite(fig.hi)) return fig
  return { ...fig, lo: fig.lo / factor, hi: fig.hi * factor, drift: factor }
}

/**
 * The interval of a ratio read by round: the figure of each shared round (each cell's value in
 * that round, aggregated per side as its median is), and on the log scale their mean with a
 * Student t of (rounds − 1) degrees of freedom. Drift common to a round cancels in its figure;
 * drift of one cell does not, and shows as rounds that disagree: two rounds at 0.79 and 0.56
 * give a t of 12.7 on their half-difference, two at 1.04 and 0.99 a tight interval. `fig`
 * widened to hold it; unchanged when a round's figure is not a positive number.
 */
export function byRounds(fig: Fig, sides: readonly Side[], f: (xs: readonly number[]) => number, rounds: readonly number[]): Fig {
  if (fig.method === 'constant' || fig.method === 'single repeat' || fig.disagree) return fig
  if (rounds.length < MIN_PAIRED_ROUNDS) return fig
  const logs = rounds.map((r) => Math.log(f(sides.map((s) => (s.values.length ? aggregateAt(s, r) : s.value!)))))
  if (!logs.every(Number.isFinite)) return fig
  const k = logs.length
  const mean = logs.reduce((a, b) => a + b, 0) / k
  const sd = Math.sqrt(logs.reduce((a, x) => a + (x - mean) ** 2, 0) / (k - 1))
  const half = studentQuantile(1 - (1 - LEVEL) / 2, k - 1) * (sd / Math.sqrt(k))
  const [lo, hi] = [Math.exp(mean - half), Math.exp(mean + half)]
  // Float noise (a ratio of 1.04 from two rounds at 1.04) widens nothing.
  if (snap(lo) >= snap(fig.lo) && snap(hi) <= snap(fig.hi)) return fig
  const widened: Fig = { ...fig, lo: Math.min(fig.lo, lo), hi: Math.max(fig.hi, hi), rounds: k }
  // Rounds too far apart for a bound to mean anything: the rounds' own figures are printed instead.
  const each = logs.map(Math.exp)
  return spansTooWide(widened) ? { ...widened, disagree: { lo: Math.min(...each), hi: Math.max(...each) } } : widened
}

/** A side's value in one round: its cells' values of that round, aggregated as their medians are (the median of several). */
function aggregateAt(s: Side, round: number): number {
  const xs = s.values.map((v) => v.repeats.get(round)!)
  return s.agg === 'min' ? Math.min(...xs) : s.agg === 'max' ? Math.max(...xs) : median(xs)
}
