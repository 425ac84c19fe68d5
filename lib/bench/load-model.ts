/**
 * Closed model vs fixed-rate open model: which one pins a cell's proxy µs/req down more
 * tightly for the same measuring time, and which one moves less from run to run
 * (bench/load-model.mjs; docs/method/load-models.md#fixed-rate-pooling-pooling-open-and-benchload-modelmjs).
 */
import { medianInterval, relativeHalfWidth, repeatsOf } from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { formatTable } from '../core/text-table.ts'
import { groupBy, keyId } from '../data/grouping.ts'
import type { Measurement } from '../data/schema.ts'

export type Model = 'closed' | 'open'

export interface ModelCell {
  run: string
  /** series proxy version variant (key type when not ec256): the same name in both models. */
  cell: string
  model: Model
  targetRps: number | null
  /** Median proxy µs/req of the valid repeats; null when none. */
  median: number | null
  /** Relative half-width of the median's interval (order statistics); null below 2 repeats. */
  rel: number | null
  /** Coverage of that interval (0.5 for 2 repeats, 0.75 for 3, 0.94 for 5). */
  level: number
  n: number
  rows: number
  /** Wall seconds the cell's repeats took, stack start and verification included. */
  seconds: number
  /** rel × √minutes: the half-width this cell would reach in one minute of repeats (lower is better). */
  perMinute: number | null
}

const cellName = (r: Measurement) => `${r.series} ${r.proxy} ${r.version} ${r.variant}${r.key_type && r.key_type !== 'ec256' ? ` ${r.key_type}` : ''}`

/**
 * Wall seconds of each row: the time to the next row's start in the run (rows are appended
 * in the order they ran). The last row, and a gap far beyond the usual (a resumed run),
 * take the median gap of rows of the same model.
 */
export function rowSeconds(rows: readonly Measurement[]): Map<Measurement, number> {
  const sorted = rows
    .filter((r) => r.started_at)
    .map((r) => ({ r, t: Date.parse(r.started_at!) }))
    .filter((x) => Number.isFinite(x.t))
    .sort((a, b) => a.t - b.t)
  const gaps = new Map<Measurement, number>()
  for (let i = 0; i + 1 < sorted.length; i++) gaps.set(sorted[i]!.r, (sorted[i + 1]!.t - sorted[i]!.t) / 1000)
  const typical = new Map<string, number>()
  for (const m of ['closed', 'open']) {
    const g = [...gaps].filter(([r]) => r.model === m).map(([, s]) => s)
    if (g.length) typical.set(m, median(g))
  }
  const out = new Map<Measurement, number>()
  for (const r of rows) {
    const usual = typical.get(r.model) ?? r.duration_s
    const g = gaps.get(r)
    out.set(r, g === undefined || g > 5 * usual ? usual : g)
  }
  return out
}

/** One line per cell and model of a run's measurements (cells without a proxy figure left out). */
export function modelCells(run: string, rows: readonly Measurement[]): ModelCell[] {
  const secs = rowSeconds(rows)
  const groups = groupBy(rows, (r) => [cellName(r), r.model, r.target_rps])
  const out: ModelCell[] = []
  for (const g of groups.values()) {
    const first = g[0]!
    const values = repeatsOf(
      g.filter((r) => r.status === 'valid'),
      (r) => r.proxy_cpu_us_per_req,
    )
    if (values.size === 0 && g.every((r) => r.proxy_cpu_us_per_req === null)) continue
    const seconds = g.reduce((s, r) => s + (secs.get(r) ?? 0), 0)
    const iv = values.size ? medianInterval(values) : null
    const rel = iv && iv.n >= 2 ? relativeHalfWidth(iv) : null
    out.push({
      run,
      cell: cellName(first),
      model: first.model,
      targetRps: first.target_rps,
      median: iv?.value ?? null,
      rel,
      level: iv?.level ?? 0,
      n: values.size,
      rows: g.length,
      seconds,
      perMinute: rel === null ? null : rel * Math.sqrt(seconds / 60),
    })
  }
  return out.sort((a, b) => a.cell.localeCompare(b.cell) || a.model.localeCompare(b.model) || (a.targetRps ?? 0) - (b.targetRps ?? 0))
}

/** Cells that have `has` in both models in their run: each comparison is made on these only. */
function paired(cells: readonly ModelCell[], has: (c: ModelCell) => boolean = (c) => c.median !== null): ModelCell[] {
  const models = new Map<string, Set<Model>>()
  const id = (c: ModelCell) => keyId([c.run, c.cell])
  for (const c of cells) if (has(c)) models.set(id(c), (models.get(id(c)) ?? new Set()).add(c.model))
  return cells.filter((c) => has(c) && models.get(id(c))!.size === 2)
}

export interface ModelSummary {
  run: string
  model: Model
  cells: number
  /** Medians over the cells with an interval in both models. */
  rel: number | null
  perMinute: number | null
  secondsPerCell: number
  /** Share of the model's rows that are not valid. */
  invalid: number
}

const medianOf = (xs: readonly (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null && Number.isFinite(x))
  return v.length ? median(v) : null
}

export function modelSummaries(cells: readonly ModelCell[], rows: ReadonlyMap<string, readonly Measurement[]>): ModelSummary[] {
  // Precision needs an interval (2 valid repeats or more) in both models.
  const both = paired(cells, (c) => c.rel !== null)
  const out: ModelSummary[] = []
  for (const run of [...new Set(cells.map((c) => c.run))]) {
    for (const model of ['closed', 'open'] as const) {
      const mine = both.filter((c) => c.run === run && c.model === model)
      const runRows = (rows.get(run) ?? []).filter((r) => r.model === model && r.proxy !== 'direct')
      if (!mine.length && !runRows.length) continue
      out.push({
        run,
        model,
        cells: mine.length,
        rel: medianOf(mine.map((c) => c.rel)),
        perMinute: medianOf(mine.map((c) => c.perMinute)),
        secondsPerCell: medianOf(mine.map((c) => c.seconds)) ?? 0,
        invalid: runRows.length ? runRows.filter((r) => r.status !== 'valid').length / runRows.length : 0,
      })
    }
  }
  return out
}

export interface RunMove {
  cell: string
  model: Model
  ratio: number
}

/** Per cell and model, the second run's median over the first's (cells valid in both runs and both models). */
export function runMoves(a: readonly ModelCell[], b: readonly ModelCell[]): RunMove[] {
  const bothA = paired(a)
  const bothB = paired(b)
  return bothA.flatMap((x) => {
    const y = bothB.find((c) => c.cell === x.cell && c.model === x.model)
    return y && x.median && y.median !== null ? [{ cell: x.cell, model: x.model, ratio: y.median / x.median }] : []
  })
}

/** Median |ln ratio| per model as a percentage: how far a cell's figure typically moves between runs. */
export function typicalMove(moves: readonly RunMove[], model: Model): number | null {
  const m = medianOf(moves.filter((x) => x.model === model).map((x) => Math.abs(Math.log(x.ratio))))
  return m === null ? null : Math.expm1(m)
}

const f = (x: number | null, d = 1) => (x === null || !Number.isFinite(x) ? '—' : x.toFixed(d))
const pctOf = (x: number | null) => (x === null || !Number.isFinite(x) ? '—' : `${(100 * x).toFixed(1)}%`)

/** The bench's printout: per cell and model, per model, and (two runs or more) run-to-run movement. */
export function loadModelReport(runs: readonly { name: string; rows: readonly Measurement[] }[]): string {
  const cells = runs.flatMap((r) => modelCells(r.name, r.rows))
  const out: string[] = []
  out.push(
    "Per cell and model: median proxy µs/req, ±rel = relative half-width of the median's interval (at its coverage), s = wall seconds spent, ±/√min = ±rel × √minutes (lower is better)",
  )
  out.push(
    formatTable(
      cells.map((c) => ({
        run: c.run,
        cell: c.cell,
        model: c.model === 'open' ? `open@${c.targetRps}` : 'closed',
        'µs/req': f(c.median),
        '±rel': pctOf(c.rel),
        coverage: c.level ? `${Math.round(c.level * 100)}%` : '—',
        n: `${c.n}/${c.rows}`,
        s: f(c.seconds, 0),
        '±/√min': pctOf(c.perMinute),
      })),
      ['run', 'cell', 'model', 'µs/req', '±rel', 'coverage', 'n', 's', '±/√min'],
    ),
  )
  out.push('', "Per model, medians over the cells with 2 valid repeats or more in both models; invalid rows over all the model's proxied rows:")
  const byRun = new Map(runs.map((r) => [r.name, r.rows]))
  out.push(
    formatTable(
      modelSummaries(cells, byRun).map((s) => ({
        run: s.run,
        model: s.model,
        cells: s.cells,
        '±rel': pctOf(s.rel),
        '±/√min': pctOf(s.perMinute),
        's/cell': f(s.secondsPerCell, 0),
        'invalid rows': pctOf(s.invalid),
      })),
      ['run', 'model', 'cells', '±rel', '±/√min', 's/cell', 'invalid rows'],
    ),
  )
  if (runs.length >= 2) {
    const first = modelCells(runs[0]!.name, runs[0]!.rows)
    for (const other of runs.slice(1)) {
      const moves = runMoves(first, modelCells(other.name, other.rows))
      out.push('', `Run to run: ${other.name} / ${runs[0]!.name}, median proxy µs/req per cell`)
      const names = [...new Set(moves.map((m) => m.cell))]
      out.push(
        formatTable(
          names.map((cell) => ({
            cell,
            closed: f(moves.find((m) => m.cell === cell && m.model === 'closed')?.ratio ?? null, 3),
            open: f(moves.find((m) => m.cell === cell && m.model === 'open')?.ratio ?? null, 3),
          })),
          ['cell', 'closed', 'open'],
        ),
      )
      out.push(
        `typical move (median |ratio - 1|, log scale): closed ${pctOf(typicalMove(moves, 'closed'))}, open ${pctOf(typicalMove(moves, 'open'))} over ${names.length} cells`,
      )
    }
  }
  return out.join('\n')
}
