import { medianVariance, MIN_NOISE_DF, type Repeats } from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { keyId } from '../data/grouping.ts'
import type { Figure } from './run-figures.ts'
import { BETWEEN_RUN_NOISE, BETWEEN_RUN_NOTE } from '../data/between-run-prior.ts'

export { BETWEEN_RUN_NOISE, BETWEEN_RUN_NOTE }

/**
 * The between-run variance of a figure (Kalibera & Jones: a run is a level of its own; its
 * variance is seen only by repeating whole runs, never by more windows of one run). On the
 * log scale, a figure's run median moves between runs by a shift common to every cell of
 * its family (the machine's state) plus a shift of its own; `sd` is the standard deviation
 * of the sum, `df` its degrees of freedom. docs/method/comparison.md.
 */
export interface BetweenRunNoise {
  sd: number
  df: number
  /** Where it comes from, in words a reader can check. */
  source: string
}

/** The variance parts of one family estimated from several runs of the same selection. */
export interface BetweenRunEstimate {
  family: string
  runs: number
  cells: number
  /** The common shift of the family between runs (SD of log), and its degrees of freedom (runs − 1). */
  common: { sd: number; df: number }
  /** Each cell's own shift beyond the common one, the within-run part taken off; df (runs − 1)(cells − 1). */
  own: { sd: number; df: number }
  /** Both together, df by Satterthwaite. */
  total: { sd: number; df: number }
}

const logMedian = (r: Repeats) => Math.log(median([...r.values()]))
/** Variance of a cell's log median from its own run's noise: the family's pooled SD, else its own. */
export function withinVariance(r: Repeats): { v: number; df: number } | null {
  const n = r.size
  if (r.noise && !r.unstable) return { v: (r.noise.sd ** 2 * medianVariance(n)) / n, df: r.noise.df }
  if (n < 2) return null
  const logs = [...r.values()].map(Math.log)
  const mean = logs.reduce((a, b) => a + b, 0) / n
  return { v: ((logs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) * medianVariance(n)) / n, df: n - 1 }
}

/** Satterthwaite's degrees of freedom of a sum of variance parts, each with its own df. */
export function satterthwaite(parts: readonly { v: number; df: number }[]): number {
  const total = parts.reduce((a, p) => a + p.v, 0)
  const den = parts.reduce((a, p) => a + (p.df > 0 && Number.isFinite(p.df) ? p.v ** 2 / p.df : 0), 0)
  return den === 0 ? Infinity : total ** 2 / den
}

/**
 * Method of moments over runs of the same selection (bench/stability.mjs): per family the
 * cells measured in every run, their log medians centred per cell, the median of each run's
 * centred values its common shift, the rest each cell's own shift, less the part the
 * within-run noise explains. Families with fewer than two runs or cells give nothing.
 */
export function estimateBetweenRun(runs: readonly (readonly Figure[])[]): BetweenRunEstimate[] {
  const families = [...new Set(runs.flatMap((r) => r.map((f) => f.family)))].sort()
  const out: BetweenRunEstimate[] = []
  for (const family of families) {
    const perRun = runs.map((r) => new Map(r.filter((f) => f.family === family).map((f) => [keyId([f.match, f.version]), f])))
    const cells = [...perRun[0]!.keys()].filter((k) => perRun.every((m) => m.has(k)))
    const J = runs.length
    if (J < 2 || cells.length < 2) continue
    const centred = cells.map((k) => {
      const ms = perRun.map((m) => logMedian(m.get(k)!.repeats))
      const mean = ms.reduce((a, b) => a + b, 0) / J
      return ms.map((x) => x - mean)
    })
    const shift = perRun.map((_, j) => median(centred.map((c) => c[j]!)))
    const shiftMean = shift.reduce((a, b) => a + b, 0) / J
    const common = shift.reduce((a, g) => a + (g - shiftMean) ** 2, 0) / (J - 1)
    const within = cells.flatMap((k) => perRun.map((m) => withinVariance(m.get(k)!.repeats)?.v ?? 0))
    const meanWithin = within.reduce((a, b) => a + b, 0) / within.length
    const ownDf = (J - 1) * (cells.length - 1)
    const residual = centred.reduce((a, c) => a + c.reduce((s, x, j) => s + (x - (shift[j]! - shiftMean)) ** 2, 0), 0) / ownDf
    const own = Math.max(0, residual - meanWithin)
    const parts = [
      { v: common, df: J - 1 },
      { v: own, df: ownDf },
    ]
    out.push({
      family,
      runs: J,
      cells: cells.length,
      common: { sd: Math.sqrt(common), df: J - 1 },
      own: { sd: Math.sqrt(own), df: ownDf },
      total: { sd: Math.sqrt(common + own), df: satterthwaite(parts) },
    })
  }
  return out
}

/**
 * From the two runs' own rounds: the shift common to a family's cells from one round to
 * the next (rounds are minutes apart, as runs are hours apart: a lower bound of the
 * between-run shift). Null below MIN_NOISE_DF rounds' worth of degrees of freedom (quick's
 * 2 + 2 rounds give 2).
 */
export function roundsNoise(family: string, runs: readonly (readonly Figure[])[]): BetweenRunNoise | null {
  let ss = 0
  let df = 0
  for (const figures of runs) {
    const fam = figures.filter((f) => f.family === family && f.repeats.size >= 2)
    const rounds = [...new Set(fam.flatMap((f) => [...f.repeats.keys()]))].sort((a, b) => a - b)
    if (fam.length < 2 || rounds.length < 2) continue
    const centre = new Map(fam.map((f) => [f, [...f.repeats.values()].map(Math.log).reduce((a, b) => a + b, 0) / f.repeats.size]))
    const shifts = rounds
      .map((r) => {
        const xs = fam.filter((f) => f.repeats.has(r)).map((f) => Math.log(f.repeats.get(r)!) - centre.get(f)!)
        return xs.length ? median(xs) : null
      })
      .filter((x): x is number => x !== null)
    if (shifts.length < 2) continue
    const mean = shifts.reduce((a, b) => a + b, 0) / shifts.length
    ss += shifts.reduce((a, g) => a + (g - mean) ** 2, 0)
    df += shifts.length - 1
  }
  if (df < MIN_NOISE_DF) return null
  return { sd: Math.sqrt(ss / df), df, source: `the runs' own rounds (${df} df; rounds are minutes apart: a lower bound)` }
}

/** The prior of a family, when the lab note has one. */
export function priorNoise(family: string, prior: Readonly<Record<string, { sd: number; df: number }>> = BETWEEN_RUN_NOISE): BetweenRunNoise | null {
  const p = prior[family]
  return p ? { ...p, source: `lab note ${BETWEEN_RUN_NOTE} (${p.df.toFixed(0)} df)` } : null
}
