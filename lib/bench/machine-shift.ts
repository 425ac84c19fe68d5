/**
 * Two halves of one selection, measured interleaved on one machine, the second with the
 * machine changed on purpose (bench/machine-shift.mjs: a system-call tax), or two runs
 * minutes apart: per unit, how far each cell moved between them, how far the counts moved,
 * and whether a decided verdict differs (docs/benchmarks.md#machine-shift).
 */
import { isDirectReference } from '../analysis/calibrated.ts'
import { cellIdOf, keyId } from '../data/grouping.ts'
import type { Ledger } from '../claims/ledger.ts'
import { median, quantile } from '../core/stats.ts'
import { formatTable } from '../core/text-table.ts'
import { isDisturbed, precisionValue } from '../data/precision.ts'
import type { Manifest } from '../data/schema.ts'
import type { TableName } from '../data/tables.ts'
import { verdictLines, type StabilityRun } from './stability.ts'
import { isDecided } from '../core/verdict.ts'

export interface ShiftRun extends StabilityRun {
  tables: StabilityRun['tables'] & { manifest?: Pick<Manifest, 'calibration' | 'profile_settings' | 'syscall_tax'> }
}

/** A cell's figure in a unit: from its rows (a column) or from its raw median and the run's reference. */
interface Unit {
  name: string
  /** What the unit divides by, for the printout. */
  label: string
  /** Per-cell value of one run: null where the run has no such figure for the cell. */
  value(run: ShiftRun, table: TableName, rows: readonly Record<string, unknown>[], raw: number | null, direct: number | null): number | null
}

const TABLES = ['measurements', 'handshakes', 'websocket'] as const

/**
 * The cells compared: closed-model HTTP, handshakes and WebSocket echo; valid rows, and with
 * `disturbed` also the windows made invalid only because something else ran on the cores
 * (what the same-instant reference is meant to cancel; the printout says they are in).
 */
function cellRows(run: ShiftRun, disturbed: boolean): Map<string, { table: TableName; direct: boolean; rows: Record<string, unknown>[] }> {
  const out = new Map<string, { table: TableName; direct: boolean; rows: Record<string, unknown>[] }>()
  for (const table of TABLES) {
    for (const r of run.tables[table] as unknown as Record<string, unknown>[]) {
      if (r.status !== 'valid' && !(disturbed && isDisturbed(r as { status: string; reason: string }))) continue
      if (table === 'measurements' && r.model !== 'closed') continue
      if (table === 'websocket' && r.mode !== 'echo') continue
      const id = keyId([table, cellIdOf(table, r)])
      const cell = out.get(id) ?? { table, direct: table === 'measurements' && isDirectReference(r as { series: string; model: string }), rows: [] }
      cell.rows.push(r)
      out.set(id, cell)
    }
  }
  return out
}

const columnMedian = (rows: readonly Record<string, unknown>[], column: string): number | null => {
  const xs = rows.map((r) => r[column]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0)
  return xs.length ? median(xs) : null
}

/** raw µs; the direct row's unit; the per-run calibration's round trip; the counts engineer's calibrated column; the same-instant reference. */
export const UNITS: readonly Unit[] = [
  { name: 'raw', label: 'µs, as measured', value: (_r, _t, _rows, raw) => raw },
  {
    name: 'direct row',
    label: "the run's direct row (backend µs/req)",
    value: (_run, _t, _rows, raw, direct) => (raw !== null && direct ? raw / direct : null),
  },
  {
    name: 'run calibration',
    label: "the run's loopback round trip (manifest.calibration)",
    value: (run, _t, _rows, raw) => {
      const c = run.tables.manifest?.calibration?.loopback_rtt_us
      return raw !== null && c ? raw / c : null
    },
  },
  { name: 'calibrated', label: 'column proxy_cpu_calibrated', value: (_r, _t, rows) => columnMedian(rows, 'proxy_cpu_calibrated') },
  {
    name: 'same-instant reference',
    label: "column proxy_cpu_per_reference (each window's own reading)",
    value: (_r, _t, rows) => columnMedian(rows, 'proxy_cpu_per_reference'),
  },
]

/** Counts per request: backend connections, and the counts engineer's columns where recorded. */
export const COUNTS = ['backend_conns_per_1k_req', 'proxy_syscalls_per_req', 'proxy_ctxsw_per_req'] as const

export interface Movement {
  name: string
  label: string
  /** Cells both runs have a figure for. */
  cells: number
  /** Per-cell ratio second / first: median, 10th and 90th percentile; null: not recorded. */
  median: number | null
  p10: number | null
  p90: number | null
  /** Fraction of those cells within ±tolerance of 1 (tolerances: WITHIN). */
  within: Record<string, number | null>
  /** The cell whose first-run figure is the median of its group's, and its ratio (the "median cell"). */
  medianCell: { cell: string; ratio: number } | null
}

/** The tolerances of issue 27's targets, fixed before any data: ±15% and ±10% for costs, ±3% for counts. */
export const WITHIN = { cost: [0.15, 0.1], count: [0.03] } as const

function movement(name: string, label: string, pairs: { cell: string; a: number; b: number }[], tolerances: readonly number[]): Movement {
  const ratios = pairs.map((p) => p.b / p.a)
  const within = Object.fromEntries(
    tolerances.map((t) => [`±${Math.round(t * 100)}%`, ratios.length ? ratios.filter((x) => Math.abs(x - 1) <= t + 1e-12).length / ratios.length : null]),
  )
  const byFirst = [...pairs].sort((x, y) => x.a - y.a)
  const mid = byFirst[Math.floor((byFirst.length - 1) / 2)]
  return {
    name,
    label,
    cells: pairs.length,
    median: ratios.length ? median(ratios) : null,
    p10: ratios.length ? quantile(ratios, 0.1) : null,
    p90: ratios.length ? quantile(ratios, 0.9) : null,
    within,
    medianCell: mid ? { cell: mid.cell, ratio: mid.b / mid.a } : null,
  }
}

/** What each unit divides by, in each run: the direct row, the run's calibration, the median same-instant reading. */
export interface ReferenceFigures {
  name: string
  first: number | null
  second: number | null
}

function referenceFigures(run: ShiftRun, disturbed: boolean, direct: number | null): Record<string, number | null> {
  const readings = TABLES.flatMap((t) =>
    (run.tables[t] as unknown as Record<string, unknown>[])
      .filter((r) => r.status === 'valid' || (disturbed && isDisturbed(r as { status: string; reason: string })))
      .map((r) => r.reference_cpu_us_per_op),
  ).filter((v): v is number => typeof v === 'number' && v > 0)
  return {
    'direct row (backend µs/req)': direct,
    'run calibration (loopback round trip µs)': run.tables.manifest?.calibration?.loopback_rtt_us ?? null,
    'same-instant reference (median µs per round trip)': readings.length ? median(readings) : null,
  }
}

export interface ShiftReport {
  /** Disturbed windows were compared too (--include-disturbed). */
  disturbed: boolean
  references: ReferenceFigures[]
  /** Per unit, over all compared cells (the direct row left out of every unit but raw: it is the direct unit's 1). */
  units: Movement[]
  /** The same per group of cells (series of measurements; handshakes; websocket), raw and in every unit. */
  groups: { group: string; units: Movement[] }[]
  counts: Movement[]
  /** Verdicts decided in both runs that differ. */
  differing: { id: string; title: string; first: string; second: string }[]
  decidedInBoth: number
}

export function machineShift(first: ShiftRun, second: ShiftRun, ledger: Ledger, o: { disturbed?: boolean } = {}): ShiftReport {
  const disturbed = !!o.disturbed
  const ca = cellRows(first, disturbed)
  const cb = cellRows(second, disturbed)
  const common = [...ca.keys()].filter((k) => cb.has(k))
  const groupOf = (id: string) => (ca.get(id)!.table === 'measurements' ? id.split('|')[1]! : ca.get(id)!.table)
  const rawOf = (c: { table: TableName; rows: Record<string, unknown>[] }) => {
    const xs = c.rows.map((r) => precisionValue(c.table, r)).filter((v): v is number => v !== null && v > 0)
    return xs.length ? median(xs) : null
  }
  // The direct row's figure over the same rows as the cells' (disturbed windows too when they are in).
  const directOf = (cells: typeof ca) => {
    const xs = [...cells.values()]
      .filter((c) => c.direct)
      .map(rawOf)
      .filter((v): v is number => v !== null)
    return xs.length ? median(xs) : null
  }
  const [da, db] = [directOf(ca), directOf(cb)]
  const pairsFor = (unit: Unit, ids: readonly string[]) =>
    ids.flatMap((id) => {
      const a = ca.get(id)!
      const b = cb.get(id)!
      if (a.direct && unit.name !== 'raw') return []
      const va = unit.value(first, a.table, a.rows, rawOf(a), da)
      const vb = unit.value(second, b.table, b.rows, rawOf(b), db)
      return va !== null && vb !== null && va > 0 && vb > 0 ? [{ cell: id, a: va, b: vb }] : []
    })
  const units = UNITS.map((u) => movement(u.name, u.label, pairsFor(u, common), WITHIN.cost))
  const groups = [...new Set(common.map(groupOf))].map((group) => ({
    group,
    units: UNITS.map((u) =>
      movement(
        u.name,
        u.label,
        pairsFor(
          u,
          common.filter((id) => groupOf(id) === group),
        ),
        WITHIN.cost,
      ),
    ),
  }))
  const counts = COUNTS.map((column) =>
    movement(
      column,
      'per request',
      common.flatMap((id) => {
        const a = columnMedian(ca.get(id)!.rows, column)
        const b = columnMedian(cb.get(id)!.rows, column)
        return a !== null && b !== null ? [{ cell: id, a, b }] : []
      }),
      WITHIN.count,
    ),
  )
  const lines = verdictLines([first, second], ledger)
  const both = lines.filter((l) => isDecided(l.verdicts[0] ?? '') && isDecided(l.verdicts[1] ?? ''))
  const ra = referenceFigures(first, disturbed, da)
  const rb = referenceFigures(second, disturbed, db)
  return {
    disturbed,
    references: Object.keys(ra).map((name) => ({ name, first: ra[name]!, second: rb[name]! })),
    units,
    groups,
    counts,
    decidedInBoth: both.length,
    differing: both.filter((l) => l.verdicts[0] !== l.verdicts[1]).map((l) => ({ id: l.id, title: l.title, first: l.verdicts[0]!, second: l.verdicts[1]! })),
  }
}

const r3 = (x: number | null) => (x === null ? '-' : Number(x.toPrecision(3)).toString())
const pct = (x: number | null) => (x === null ? '-' : `${Math.round(x * 100)}%`)

function movementRows(ms: readonly Movement[]) {
  return ms.map((m) =>
    m.cells === 0
      ? {
          unit: m.name,
          cells: 0,
          'median ratio': 'not recorded',
          'p10-p90': '',
          ...Object.fromEntries(Object.keys(m.within).map((k) => [`within ${k}`, ''])),
          'median cell': '',
        }
      : {
          unit: m.name,
          cells: m.cells,
          'median ratio': r3(m.median),
          'p10-p90': `${r3(m.p10)}-${r3(m.p90)}`,
          ...Object.fromEntries(Object.entries(m.within).map(([k, v]) => [`within ${k}`, pct(v)])),
          'median cell': m.medianCell ? `${r3(m.medianCell.ratio)} (${m.medianCell.cell.split('|').slice(1, 5).join(' ')})` : '',
        },
  )
}

/** The bench's printout. */
export function formatMachineShift(names: [string, string], report: ShiftReport, tax: Manifest['syscall_tax'] | undefined): string {
  const costCols = ['unit', 'cells', 'median ratio', 'p10-p90', 'within ±15%', 'within ±10%', 'median cell']
  const out = [
    `${names[1]} / ${names[0]}, per cell (the cell's median over ${report.disturbed ? 'valid repeats and disturbed windows: --include-disturbed' : 'valid repeats'}):`,
    tax
      ? `tax of ${names[1]}: ${tax.insns} filter instructions, measured +${tax.measured_ns.toFixed(0)} ns per system call on cpuset ${tax.cpuset} (asked ${tax.target_ns}; untaxed ${tax.base_ns.toFixed(0)} ns)`
      : `${names[1]} ran without a system-call tax`,
    '',
    'references:',
    formatTable(
      report.references.map((r) => ({
        reference: r.name,
        [names[0]]: r3(r.first),
        [names[1]]: r3(r.second),
        ratio: r.first && r.second ? r3(r.second / r.first) : '-',
      })),
      ['reference', names[0], names[1], 'ratio'],
    ),
    '',
    "costs, every compared cell (the direct row only in raw: it is the direct unit's 1):",
    formatTable(movementRows(report.units), costCols),
    ...report.units.filter((m) => m.cells === 0).map((m) => `${m.name}: not recorded (${m.label})`),
    '',
    'by group:',
    ...report.groups.flatMap((g) => [`${g.group}:`, formatTable(movementRows(g.units.filter((m) => m.cells > 0)), costCols)]),
    '',
    'counts per request:',
    formatTable(movementRows(report.counts), ['unit', 'cells', 'median ratio', 'p10-p90', 'within ±3%', 'median cell']),
    ...report.counts.filter((m) => m.cells === 0).map((m) => `${m.name}: not recorded`),
    '',
    report.differing.length === 0
      ? `verdicts: none of the ${report.decidedInBoth} checks decided in both differs`
      : `verdicts: ${report.differing.length} of the ${report.decidedInBoth} checks decided in both differ:\n${report.differing.map((d) => `  ${d.id} ${d.title}: ${d.first} → ${d.second}`).join('\n')}`,
  ]
  return out.join('\n')
}
