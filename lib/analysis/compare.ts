import { median } from '../core/stats.ts'
import { studentQuantile } from '../core/intervals.ts'
import { compareVersions } from '../catalog/stack.ts'
import { projectId, projectKey, type CellKey } from '../data/grouping.ts'
import { TABLE_SPECS, type TableName, type TableSpec } from './cells.ts'
import { priorNoise, roundsNoise, satterthwaite, withinVariance, type BetweenRunNoise } from './between-run.ts'
import { figureMedian, runFigures, type Figure, type FigureKind, type FigureRun } from './run-figures.ts'

/**
 * A run against a baseline run (docs/method/comparison.md). Each figure of both runs (counts
 * per request, ratios within a run, costs) is compared on the log scale by a random-effects
 * test: the difference of the two run medians against the noise of each run's rounds AND
 * the between-run variance of that kind of figure (a lab-note prior measured by repeating
 * whole runs, or the runs' own rounds), with a Student t at α = 0.05. Each row states the
 * smallest change the test could have detected (power 0.8); where a variance part cannot be
 * estimated from what the runs hold, the row says "too few repeats to compare" instead of a
 * test that cannot reach its level.
 */
export const ALPHA = 0.05
export const POWER = 0.8

export type Verdict = 'increased' | 'decreased' | 'no change' | 'too few repeats to compare'

/** Rows in the order a reader should trust them: counts, ratios within a run, then costs. */
export const KIND_ORDER: readonly FigureKind[] = ['count', 'ratio', 'cost']

/** One compared figure: what a table or a chart reads. */
export interface ComparisonRow {
  kind: FigureKind
  metric: string
  table: TableName
  /** The key columns; `version` reads `old → new` where it changed. */
  key: CellKey
  base: { median: number; n: number }
  run: { median: number; n: number }
  /** run / base − 1 of (median + offset): the change as a fraction. */
  change: number
  /** 95% interval of the change. Null with the verdict "too few repeats to compare". */
  interval: [number, number] | null
  /** The smallest increase the test detects with probability POWER at ALPHA (a decrease: 1/(1+x) − 1). */
  detectable: number | null
  verdict: Verdict
  /** Between-run noise used (SD of log) and where it comes from; or why none. */
  between: BetweenRunNoise | { sd: null; df: 0; source: string }
  /** Degrees of freedom of the test. */
  df: number | null
}

type Rows = FigureRun

/** Between-run noise of a family: the prior and the rounds' figure, the larger one when both exist. */
function betweenNoise(
  family: string,
  figures: readonly (readonly Figure[])[],
  prior?: Readonly<Record<string, { sd: number; df: number }>>,
): BetweenRunNoise | null {
  const p = priorNoise(family, prior)
  const r = roundsNoise(family, figures)
  if (p && r) return r.sd > p.sd ? r : p
  return p ?? r
}

/** The test of one figure of the baseline against the same figure of the run. */
export function compareFigure(b: Figure, r: Figure, between: BetweenRunNoise | null): Omit<ComparisonRow, 'kind' | 'metric' | 'table' | 'key'> {
  const base = { median: figureMedian(b), n: b.repeats.size }
  const run = { median: figureMedian(r), n: r.repeats.size }
  const d = Math.log(median([...r.repeats.values()])) - Math.log(median([...b.repeats.values()]))
  const change = Math.exp(d) - 1
  const wb = withinVariance(b.repeats)
  const wr = withinVariance(r.repeats)
  const tooFew = (why: string): Omit<ComparisonRow, 'kind' | 'metric' | 'table' | 'key'> => ({
    base,
    run,
    change,
    interval: null,
    detectable: null,
    verdict: 'too few repeats to compare',
    between: between ?? { sd: null, df: 0, source: why },
    df: null,
  })
  if (!between) return tooFew('no between-run variance: no lab-note figure for this kind, and too few rounds to estimate it')
  if (!wb || !wr) return tooFew(`${between.source}; but a side has one repeat and no noise of its family`)
  const parts = [wb, wr, { v: 2 * between.sd ** 2, df: between.df }]
  const se = Math.sqrt(parts.reduce((a, p) => a + p.v, 0))
  const df = satterthwaite(parts)
  const t = studentQuantile(1 - ALPHA / 2, df)
  const interval: [number, number] = [Math.exp(d - t * se) - 1, Math.exp(d + t * se) - 1]
  const detectable = Math.exp((t + studentQuantile(POWER, df)) * se) - 1
  const verdict: Verdict = Math.abs(d) > t * se ? (d > 0 ? 'increased' : 'decreased') : 'no change'
  return { base, run, change, interval, detectable, verdict, between, df }
}

/**
 * Every figure present in both runs, counts first, then ratios, then costs. `prior`: the
 * between-run noise per family (default: the lab note's, lib/analysis/between-run.ts).
 */
export function compareAcrossRuns(baseRun: Rows, newRun: Rows, o: { prior?: Readonly<Record<string, { sd: number; df: number }>> } = {}): ComparisonRow[] {
  const bf = runFigures(baseRun)
  const rf = runFigures(newRun)
  const byMatch = (fs: Figure[]) => {
    const m = new Map<string, Map<string, Figure>>()
    for (const f of fs) m.set(f.match, (m.get(f.match) ?? new Map()).set(f.version, f))
    return m
  }
  const [bm, rm] = [byMatch(bf), byMatch(rf)]
  const noise = new Map<string, BetweenRunNoise | null>()
  const out: ComparisonRow[] = []
  for (const [match, runVersions] of rm) {
    const baseVersions = bm.get(match)
    if (!baseVersions) continue
    for (const [bv, rv] of pairVersions([...baseVersions.keys()], [...runVersions.keys()])) {
      const b = baseVersions.get(bv)!
      const r = runVersions.get(rv)!
      if (!noise.has(r.family)) noise.set(r.family, betweenNoise(r.family, [bf, rf], o.prior))
      out.push({
        kind: r.kind,
        metric: r.metric,
        table: r.table,
        key: { ...r.key, version: bv === rv ? rv : `${bv} → ${rv}` },
        ...compareFigure(b, r, noise.get(r.family)!),
      })
    }
  }
  const sortKey = (c: ComparisonRow) =>
    [
      KIND_ORDER.indexOf(c.kind),
      c.metric,
      c.table,
      c.key.proxy,
      c.key.series,
      c.key.variant,
      c.key.key_type ?? c.key.mode ?? '',
      String(c.key.target_rps ?? c.key.conns_target ?? '').padStart(9, '0'),
      c.key.version,
    ].join('|')
  return out.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
}

const pctText = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`

/** `+12.3% [+4.1%, +21.0%]`, or the bare change when no test was possible. */
export function formatChange(c: Pick<ComparisonRow, 'change' | 'interval'>): string {
  return c.interval ? `${pctText(c.change)} [${pctText(c.interval[0])}, ${pctText(c.interval[1])}]` : pctText(c.change)
}

/** `±8.4%` (the smallest change the test would have seen), or the reason there is none. */
export const formatDetectable = (c: Pick<ComparisonRow, 'detectable'>) => (c.detectable === null ? '—' : `±${(c.detectable * 100).toFixed(1)}%`)

// ----------------------------------------------------------- medians side by side (no test)

/** A cell's medians in both runs, for bench/calibration.mjs's agreement of references. */
export interface Delta {
  table: TableName
  key: CellKey
  metric: string
  base: { median: number; n: number } | null
  run: { median: number; n: number } | null
  /** (run - base) / base; null when a side has no valid row. */
  delta: number | null
}

type CellSamples = { key: CellKey; xs: number[] }

/** Cells matched without the version (pairVersions), with the medians of the primary metric. */
export function compareRuns(
  base: Pick<Rows, 'measurements' | 'handshakes' | 'websocket'>,
  run: Pick<Rows, 'measurements' | 'handshakes' | 'websocket'>,
): Delta[] {
  const out: Delta[] = []
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    const spec = TABLE_SPECS[table]
    const b = cellValues(spec, base[table] as never)
    const r = cellValues(spec, run[table] as never)
    for (const [id, runVersions] of r) {
      const baseVersions = b.get(id)
      if (!baseVersions) continue
      for (const [bv, rv] of pairVersions([...baseVersions.keys()], [...runVersions.keys()])) {
        const side = (xs: number[]) => (xs.length ? { median: median(xs), n: xs.length } : null)
        const [bs, rs] = [side(baseVersions.get(bv)!.xs), side(runVersions.get(rv)!.xs)]
        out.push({
          table,
          metric: spec.primary,
          key: { ...runVersions.get(rv)!.key, version: bv === rv ? rv : `${bv} → ${rv}` },
          base: bs,
          run: rs,
          delta: bs && rs && bs.median !== 0 ? rs.median / bs.median - 1 : null,
        })
      }
    }
  }
  return out
}

/** cell id without the version → version → valid values of the primary metric. */
function cellValues(spec: TableSpec, rows: readonly Record<string, unknown>[]) {
  const withoutVersion = spec.keys.filter((k) => k !== 'version')
  const m = new Map<string, Map<string, CellSamples>>()
  for (const r of rows) {
    const byVersion = m.get(projectId(r, withoutVersion)) ?? new Map<string, CellSamples>()
    const version = String(r.version)
    const cell = byVersion.get(version) ?? { key: projectKey(r, spec.keys), xs: [] }
    const v = r[spec.primary]
    if (r.status === 'valid' && typeof v === 'number') cell.xs.push(v)
    byVersion.set(version, cell)
    m.set(projectId(r, withoutVersion), byVersion)
  }
  return m
}

/**
 * Versions of one cell in two runs: the same version pairs with itself; what is left pairs
 * newest with newest, and the row names both versions.
 */
export function pairVersions(base: readonly string[], run: readonly string[]): [string, string][] {
  const same = run.filter((v) => base.includes(v))
  const pairs: [string, string][] = same.map((v) => [v, v])
  const newest = (vs: string[]) => vs.sort(compareVersions).at(-1)
  const b = newest(base.filter((v) => !same.includes(v)))
  const r = newest(run.filter((v) => !same.includes(v)))
  if (b && r) pairs.push([b, r])
  return pairs
}
