import { LEVEL, studentQuantile } from '../core/intervals.ts'

/**
 * Instructions per unit (request, handshake) from counted batches (docs/method/work.md):
 * each round counts a small and a large batch, and its slope, (large - small) / (the
 * difference in units), cancels what every batch pays once (new connections, the count's
 * own start and stop). Two corrections come before the slope:
 * - idle: an idle stretch counts what the process does with no load (timers the slowdown
 *   stretches out); its rate times a batch's length is taken off the batch;
 * - GC (Go proxies): a collection is a step of tens of millions of instructions in whichever
 *   batch it falls, so one fit over every batch, instructions = a + b·units + g·cycles,
 *   gives g; each batch's cycles are taken off at g and the long-run rate
 *   (all cycles / all units) is put back, so the figure has GC at its average share.
 * The figure is the mean of the rounds' slopes; its interval the t-interval of that mean.
 */

export interface Batch {
  units: number
  instructions: number
  seconds: number
  /** Garbage collections that ended in the batch (GODEBUG=gctrace=1); 0 for C proxies. */
  gcCycles: number
}

export interface Round {
  small: Batch
  large: Batch
}

export interface IdleStretch {
  instructions: number
  seconds: number
}

export interface WorkFit {
  perUnit: number
  low: number
  high: number
  /** Batches counted (two a round). */
  batches: number
  /** What the idle correction took off, as a share of the counted instructions. */
  idleShare: number
  /** Instructions one GC cycle costs (null: no cycle in any batch, or cycles not separable from units). */
  perGcCycle: number | null
  /** GC cycles per unit over all batches. */
  gcPerUnit: number
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)

/** Idle instructions per second over every stretch (0 without any). */
export function idleRate(idle: readonly IdleStretch[]): number {
  const s = sum(idle.map((i) => i.seconds))
  return s > 0 ? sum(idle.map((i) => i.instructions)) / s : 0
}

/**
 * Least squares of y on [1, x1, x2]; null when x2 cannot be told apart from the other two
 * (every batch had the same cycles, or cycles in step with units): GC is then already in the slope at its rate.
 */
export function fitTwo(rows: readonly { y: number; x1: number; x2: number }[]): { b1: number; b2: number } | null {
  const n = rows.length
  if (n < 4) return null
  const m = (f: (r: (typeof rows)[number]) => number) => sum(rows.map(f)) / n
  const [my, m1, m2] = [m((r) => r.y), m((r) => r.x1), m((r) => r.x2)]
  const s11 = sum(rows.map((r) => (r.x1 - m1) ** 2))
  const s22 = sum(rows.map((r) => (r.x2 - m2) ** 2))
  const s12 = sum(rows.map((r) => (r.x1 - m1) * (r.x2 - m2)))
  const s1y = sum(rows.map((r) => (r.x1 - m1) * (r.y - my)))
  const s2y = sum(rows.map((r) => (r.x2 - m2) * (r.y - my)))
  const det = s11 * s22 - s12 * s12
  // Collinear within rounding: the cycles say nothing the units do not.
  if (!(s22 > 0) || Math.abs(det) <= 1e-9 * s11 * s22) return null
  return { b1: (s1y * s22 - s2y * s12) / det, b2: (s2y * s11 - s1y * s12) / det }
}

/** The per-unit figure of counted rounds; throws on rounds that cannot give a slope (the caller's bug). */
export function fitWork(rounds: readonly Round[], idle: readonly IdleStretch[]): WorkFit {
  if (rounds.length === 0) throw new Error('fitWork: no rounds')
  for (const r of rounds)
    if (!(r.large.units > r.small.units)) throw new Error(`fitWork: a round's large batch (${r.large.units}) must exceed its small one (${r.small.units})`)
  const rate = idleRate(idle)
  const batches = rounds.flatMap((r) => [r.small, r.large])
  const net = (b: Batch) => b.instructions - rate * b.seconds
  const cycles = sum(batches.map((b) => b.gcCycles))
  const gcPerUnit = cycles / sum(batches.map((b) => b.units))
  const gc = cycles > 0 ? fitTwo(batches.map((b) => ({ y: net(b), x1: b.units, x2: b.gcCycles }))) : null
  // A negative cost per cycle is noise of the fit, never a collection that saves work.
  const perGcCycle = gc && gc.b2 > 0 ? gc.b2 : null
  const adjusted = (b: Batch) => net(b) - (perGcCycle ?? 0) * (b.gcCycles - gcPerUnit * b.units)
  const slopes = rounds.map((r) => (adjusted(r.large) - adjusted(r.small)) / (r.large.units - r.small.units))
  const mean = sum(slopes) / slopes.length
  const sd = slopes.length > 1 ? Math.sqrt(sum(slopes.map((s) => (s - mean) ** 2)) / (slopes.length - 1)) : Number.NaN
  const half = slopes.length > 1 ? studentQuantile(1 - (1 - LEVEL) / 2, slopes.length - 1) * (sd / Math.sqrt(slopes.length)) : Number.NaN
  const counted = sum(batches.map((b) => b.instructions))
  return {
    perUnit: mean,
    low: mean - half,
    high: mean + half,
    batches: batches.length,
    idleShare: counted > 0 ? (rate * sum(batches.map((b) => b.seconds))) / counted : 0,
    perGcCycle,
    gcPerUnit,
  }
}
