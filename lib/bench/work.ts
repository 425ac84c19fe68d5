/**
 * The work bench's figures (bench/work.mjs, docs/benchmarks.md#work): the work series counted
 * in a base run, again with a planted config --like it (then and now counted in one run), and
 * under a system-call tax, each read against issue 51's criteria.
 */
import { type PairedCell, type PairedRun, pairedCells } from '../analysis/pairs.ts'
import { median } from '../core/stats.ts'
import { cellIdOf, groupBy } from '../data/grouping.ts'
import type { RunTables } from '../data/run-data.ts'
import { plantAfterBind } from './year-later.ts'

/** The criteria, fixed from the issue's words before any data (relative: 0.005 = 0.5%). */
export const TARGETS = { interval: 0.005, runsMedian: 0.005, runsWorst: 0.02, taxMedian: 0.005 } as const

/** The series every work row carries. */
const WORK = 'work'

/** One counted row of a run: a cell of measurements.csv (per request) or handshakes.csv (per handshake). */
export interface CountedCell {
  /** `proxy version variant` and, for a handshake, its key type. */
  label: string
  id: string
  status: string
  reason: string
  value: number | null
  /** Half the interval's width over the value (0.004 = ±0.4%). */
  halfWidth: number | null
}

interface WorkRow {
  proxy: string
  version: string
  variant: string
  key_type?: string | null
  status: string
  reason: string
  instructions_per_req: number | null
  instructions_per_req_low: number | null
  instructions_per_req_high: number | null
}

/** A work cell as the bench names it: `nginx 1.31.3 pool-added`, a handshake with its key type. */
const cellLabel = (table: string, c: { proxy: string; version: string; variant: string; key_type?: string | number | null }) =>
  `${c.proxy} ${c.version} ${c.variant}${table === 'handshakes' ? ` handshake ${c.key_type}` : ''}`

const counted = (table: 'measurements' | 'handshakes', r: WorkRow): CountedCell => {
  const v = r.instructions_per_req
  const width =
    v && r.instructions_per_req_low !== null && r.instructions_per_req_high !== null ? (r.instructions_per_req_high - r.instructions_per_req_low) / 2 / v : null
  return {
    label: cellLabel(table, r),
    id: `${table}:${cellIdOf(table, r)}`,
    status: r.status,
    reason: r.reason,
    value: r.status === 'valid' ? v : null,
    halfWidth: r.status === 'valid' ? width : null,
  }
}

/** The work rows of a run, requests first. */
export function countedCells(run: Pick<RunTables, 'measurements' | 'handshakes'>): CountedCell[] {
  return [
    ...run.measurements.filter((r) => r.series === WORK).map((r) => counted('measurements', r)),
    ...run.handshakes.filter((r) => r.series === WORK).map((r) => counted('handshakes', r)),
  ]
}

/** |a/b − 1| of the cells both runs counted, by label. */
function moved(a: readonly CountedCell[], b: readonly CountedCell[]): { label: string; moved: number }[] {
  const other = new Map(b.map((c) => [c.id, c.value]))
  return a.flatMap((c) => {
    const v = other.get(c.id)
    return c.value && v ? [{ label: c.label, moved: Math.abs(c.value / v - 1) }] : []
  })
}

const worstOf = (xs: readonly { label: string; moved: number }[]) =>
  xs.reduce<{ label: string; moved: number } | null>((w, x) => (!w || x.moved > w.moved ? x : w), null)

/** Median and worst of a list of relative movements; null where there is none. */
export interface Spread {
  cells: number
  median: number | null
  worst: { label: string; moved: number } | null
}

const spread = (xs: readonly { label: string; moved: number }[]): Spread => ({
  cells: xs.length,
  median: xs.length ? median(xs.map((x) => x.moved)) : null,
  worst: worstOf(xs),
})

/** The timed price of a proxy: median proxy CPU µs/req of its `same`/article rows in the closed model (the open model's fixed-rate rows are another load). */
function timedPrice(run: Pick<RunTables, 'measurements'>): Map<string, number> {
  const rows = run.measurements.filter(
    (r) => r.series === 'same' && r.variant === 'article' && r.model === 'closed' && r.status === 'valid' && r.proxy_cpu_us_per_req !== null,
  )
  return new Map([...groupBy(rows, (r) => [r.proxy])].map(([p, rs]) => [p, median(rs.map((r) => r.proxy_cpu_us_per_req!))]))
}

export interface WorkBenchFigures {
  base: {
    cells: CountedCell[]
    /** Cells not counted, with their reason. */
    uncounted: CountedCell[]
    /** Half-width of the median counted cell's interval. */
    interval: number | null
    /** Seconds from the first work row to the first row after the work series (or the run's end). */
    wallS: number | null
  }
  /** Base counts against the planted run's then side (the same binaries and configs, counted again). */
  runs: Spread | null
  /** The taxed run against the base, per cell; and each proxy's timed price taxed ÷ base. */
  tax: { counts: Spread; price: { proxy: string; ratio: number }[] } | null
  /** The planted run's paired work cells: the plant's cell, and any other flagged as a change. */
  plant: { cell: PairedCell | null; others: PairedCell[]; cells: number } | null
}

const pairedLabel = (c: PairedCell) => cellLabel(c.table, { ...c, version: c.thenVersion, key_type: c.key.key_type })

export interface WorkBenchRuns {
  base: RunTables & { manifest: { finished: string | null } }
  planted?: PairedRun
  taxed?: RunTables
  plantProxy: string
}

/** Seconds the work series took in a run: its first row to the next row of another series, or the run's end. */
export function workWallS(run: RunTables & { manifest: { finished: string | null } }): number | null {
  const all = [...run.measurements, ...run.handshakes].map((r) => ({ work: r.series === WORK, at: Date.parse(r.started_at) })).sort((a, b) => a.at - b.at)
  const first = all.find((r) => r.work)
  if (!first) return null
  const lastWork = all.filter((r) => r.work).at(-1)!
  const after = all.find((r) => !r.work && r.at > lastWork.at)?.at ?? (run.manifest.finished ? Date.parse(run.manifest.finished) : null)
  return after === null ? null : (after - first.at) / 1000
}

export function workBenchFigures(r: WorkBenchRuns): WorkBenchFigures {
  const cells = countedCells(r.base)
  const widths = cells.flatMap((c) => (c.halfWidth === null ? [] : [c.halfWidth]))
  const paired = r.planted ? pairedCells(r.planted, r.base).filter((c) => c.basis === 'work') : []
  const plantCell = paired.find((c) => c.proxy === r.plantProxy && c.table === 'measurements' && c.variant === 'article') ?? null
  const basePrice = timedPrice(r.base)
  return {
    base: { cells, uncounted: cells.filter((c) => c.status !== 'valid'), interval: widths.length ? median(widths) : null, wallS: workWallS(r.base) },
    runs: r.planted ? spread(paired.flatMap((c) => (c.machine === null ? [] : [{ label: pairedLabel(c), moved: Math.abs(c.machine - 1) }]))) : null,
    tax: r.taxed
      ? {
          counts: spread(moved(countedCells(r.taxed), cells)),
          price: [...timedPrice(r.taxed)].flatMap(([proxy, us]) => (basePrice.has(proxy) ? [{ proxy, ratio: us / basePrice.get(proxy)! }] : [])),
        }
      : null,
    plant: r.planted
      ? {
          cell: plantCell,
          others: paired.filter((c) => c !== plantCell && (c.verdict === 'cheaper' || c.verdict === 'dearer')),
          cells: paired.length,
        }
      : null,
  }
}

const pct = (x: number | null | undefined, digits = 2) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(digits)}%`)
const meets = (x: number | null, bound: number) => (x === null ? 'not measured' : x <= bound ? 'met' : 'NOT met')

/** The bench's lines: each figure beside its target. */
export function formatWorkBench(f: WorkBenchFigures): string {
  const b = f.base
  const lines = [
    `work series: ${b.cells.length - b.uncounted.length} of ${b.cells.length} cells counted; wall time ${b.wallS === null ? '—' : `${Math.round(b.wallS)} s`}`,
    ...b.uncounted.map((c) => `  not counted: ${c.label}: ${c.reason}`),
    ...b.cells.map((c) => `  ${c.label}: ${c.value === null ? '—' : Math.round(c.value).toLocaleString('en-US')} ±${pct(c.halfWidth)}`),
    `within a run: interval of the median cell ±${pct(b.interval)} (target ≤ ±${pct(TARGETS.interval, 1)}: ${meets(b.interval, TARGETS.interval)})`,
  ]
  if (f.runs)
    lines.push(
      `two runs (base vs then counted again): median cell ${pct(f.runs.median)} (≤ ${pct(TARGETS.runsMedian, 1)}: ${meets(f.runs.median, TARGETS.runsMedian)}), worst ${pct(f.runs.worst?.moved)} ${f.runs.worst?.label ?? ''} (≤ ${pct(TARGETS.runsWorst, 0)}: ${meets(f.runs.worst?.moved ?? null, TARGETS.runsWorst)}), ${f.runs.cells} cells`,
    )
  if (f.tax)
    lines.push(
      `under the syscall tax: counts moved ${pct(f.tax.counts.median)} on the median cell (≤ ${pct(TARGETS.taxMedian, 1)}: ${meets(f.tax.counts.median, TARGETS.taxMedian)}), worst ${pct(f.tax.counts.worst?.moved)} ${f.tax.counts.worst?.label ?? ''}; timed µs/req taxed ÷ base: ${f.tax.price.map((p) => `${p.proxy} ${p.ratio.toFixed(3)}`).join(', ') || '—'}`,
    )
  if (f.plant) {
    const c = f.plant.cell?.change
    const seen = f.plant.cell?.verdict === 'dearer'
    lines.push(
      `plant: ${c ? `${f.plant.cell!.proxy} article now ÷ then ${c.value.toFixed(4)} [${c.lo.toFixed(4)}, ${c.hi.toFixed(4)}] (${pct(c.value - 1)}), ${f.plant.cell!.verdict}: ${seen ? 'seen, dearer, interval above 1' : 'NOT seen'}` : 'no paired cell'}; other cells flagged: ${f.plant.others.length ? f.plant.others.map((o) => `${pairedLabel(o)} ${o.verdict}${o.change ? ` ${o.change.value.toFixed(4)} [${o.change.lo.toFixed(4)}, ${o.change.hi.toFixed(4)}]` : ''}`).join(', ') : `none of ${f.plant.cells - 1}`}`,
    )
  }
  return lines.join('\n')
}

/** The work bench's plant: `n` transaction variables set per request in HAProxy's article config. */
export function plantedVariables(article: string, n: number): string {
  return plantAfterBind(
    article,
    Array.from({ length: n }, (_, i) => `http-request set-var(txn.plant${i}) int(${i})`),
    'bench/work.mjs',
  )
}
