import { median } from '../core/stats.ts'
import { withFamilyNoise, type Repeats } from '../core/intervals.ts'
import type { Handshake, Manifest, Measurement, WebSocketRow } from '../data/schema.ts'
import { CALIBRATION_REFERENCE, runReferences } from './calibrated.ts'
import { groupBy, projectId, projectKey, type CellKey } from '../data/grouping.ts'
import { TABLE_SPECS, type TableName } from './cells.ts'

/**
 * The figures of one run that a comparison across runs judges (docs/method/comparison.md):
 * counts per request, ratios between cells of the run, then costs. Each figure is a cell
 * with one value per round (repeat), so its noise within the run is known, and with a key
 * that matches the same figure of another run (the version left out: a re-run meets new
 * releases).
 */
export type FigureKind = 'count' | 'ratio' | 'cost'

/** Counts the comparison reads, with the offset added before taking logs (one event per 1000 requests: below it a pool is a pool). */
export const COUNT_METRICS = [
  { metric: 'backend_conns_per_1k_req', offset: 1 },
  // Added by the counters (issue 27 item 1) where the kernel allows it; a run without them has none of these figures.
  { metric: 'proxy_syscalls_per_req', offset: 0.001 },
  { metric: 'proxy_ctxsw_per_req', offset: 0.001 },
] as const

/** Ratios within a run: numerator cell / denominator cell, round by round. */
export const RATIO_METRICS = {
  pooling: 'pool-removed / pool-added',
  rsa2048: 'RSA-2048 / EC-256',
  rsa4096: 'RSA-4096 / EC-256',
  calibrated: 'proxy / direct',
} as const

export interface Figure {
  kind: FigureKind
  /** A column (counts, costs) or one of RATIO_METRICS. */
  metric: string
  table: TableName
  /** The key columns of the cell (of the numerator, for a ratio), version included. */
  key: CellKey
  version: string
  /** Matches the same figure of another run: kind, metric, table and the key without the version. */
  match: string
  /** Figures of one noise family share the run's pooled noise within and their between-run variance (lib/analysis/between-run.ts). */
  family: string
  /** Repeat (round) → value; the family's pooled noise attached (lib/core/intervals.ts). */
  repeats: Repeats
  /** Added before logs: counts may be 0. */
  offset: number
}

export interface FigureRun {
  measurements: readonly Measurement[]
  handshakes: readonly Handshake[]
  websocket: readonly WebSocketRow[]
  manifest?: Pick<Manifest, 'calibration'>
}

type Row = Record<string, unknown> & { repeat: number; status: string; version: string }

/** Rows whose figures are steps of a curve, not costs of a cell (lib/series/types.ts: not adaptive). */
const CURVE_SERIES = new Set(['tls-calibration', 'ws-hold'])

const keyOf = (table: TableName, r: Row) => projectKey(r, TABLE_SPECS[table].keys)
const cellWithoutVersion = (table: TableName, r: Row) =>
  projectId(
    r,
    TABLE_SPECS[table].keys.filter((k) => k !== 'version'),
  )

/** Noise family: one window design (table, load model) and one kind of figure. */
export const familyOf = (kind: FigureKind, metric: string, table: TableName, key: Figure['key']) =>
  [kind, metric, table, key.model === 'open' ? 'open' : table === 'measurements' ? 'closed' : String(key.series ?? '')].join('|')

interface Draft {
  kind: FigureKind
  metric: string
  table: TableName
  key: Figure['key']
  version: string
  cell: string
  values: Map<number, number>
  offset: number
}

/** repeat → value of valid rows (two rows of one repeat: their mean). */
function byRepeat(rows: readonly Row[], value: (r: Row) => number | null): Map<number, number> {
  const out = new Map<number, number>()
  for (const r of rows) {
    const v = r.status === 'valid' ? value(r) : null
    if (v === null || !Number.isFinite(v)) continue
    out.set(r.repeat, out.has(r.repeat) ? (out.get(r.repeat)! + v) / 2 : v)
  }
  return out
}

const num = (v: unknown) => (typeof v === 'number' ? v : null)

function group(table: TableName, rows: readonly Row[]): Map<string, Row[]> {
  const keys = TABLE_SPECS[table].keys
  return groupBy(
    rows.filter((r) => !CURVE_SERIES.has(String(r.series))),
    (r) => keys.map((k) => r[k]),
  )
}

/** Numerator / denominator round by round, over the rounds both have. */
function pairedRatio(a: Map<number, number>, b: Map<number, number>): Map<number, number> {
  const out = new Map<number, number>()
  for (const [r, x] of a) {
    const y = b.get(r)
    if (y !== undefined && y > 0) out.set(r, x / y)
  }
  return out
}

type Tables = Record<'measurements' | 'handshakes' | 'websocket', ReturnType<typeof group>>
type AddFigure = (kind: FigureKind, metric: string, table: TableName, first: Row, values: Map<number, number>, offset?: number) => void

/** Every figure of a run: counts, ratios within the run, costs. */
export function runFigures(run: FigureRun): Figure[] {
  const drafts: Draft[] = []
  const refs = runReferences({ measurements: [...run.measurements], ...(run.manifest ? { manifest: run.manifest } : {}) })
  const add: AddFigure = (kind, metric, table, first, values, offset = 0) => {
    if (values.size > 0)
      drafts.push({ kind, metric, table, key: keyOf(table, first), version: first.version, cell: cellWithoutVersion(table, first), values, offset })
  }
  const tables: Tables = {
    measurements: group('measurements', run.measurements as unknown as Row[]),
    handshakes: group('handshakes', run.handshakes as unknown as Row[]),
    websocket: group('websocket', run.websocket as unknown as Row[]),
  }
  addCounts(tables, add)
  addPoolingRatios(tables, add)
  addKeyTypeRatios(tables, add)
  addCosts(tables, refs, add)
  // Non-positive values have no log: such a figure is left out with its family's noise unchanged.
  const usable = drafts.filter((d) => [...d.values.values()].every((v) => v + d.offset > 0))
  const noisy = withFamilyNoise(
    usable,
    (d) => familyOf(d.kind, d.metric, d.table, d.key),
    (d) => new Map([...d.values].map(([k, v]) => [k, v + d.offset])),
  )
  return usable.map((d, i) => ({
    kind: d.kind,
    metric: d.metric,
    table: d.table,
    key: d.key,
    version: d.version,
    offset: d.offset,
    match: [d.kind, d.metric, d.table, d.cell].join('|'),
    family: familyOf(d.kind, d.metric, d.table, d.key),
    repeats: noisy[i]!,
  }))
}

/** Counts: per proxied cell (the direct row has no proxy), in any table whose rows carry the column. */
function addCounts(tables: Tables, add: AddFigure): void {
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    for (const rows of tables[table].values()) {
      if (rows[0]!.proxy === 'direct') continue
      for (const c of COUNT_METRICS)
        add(
          'count',
          c.metric,
          table,
          rows[0]!,
          byRepeat(rows, (r) => num(r[c.metric])),
          c.offset,
        )
    }
  }
}

/** Ratios: pool removed / pool added per proxy, version and load model. */
function addPoolingRatios(tables: Tables, add: AddFigure): void {
  const cells = [...tables.measurements.values()]
  for (const removed of cells.filter((rows) => rows[0]!.series === 'pool-removed')) {
    const r0 = removed[0]!
    const added = cells.find(
      (rows) => rows[0]!.series === 'pool-added' && ['proxy', 'version', 'model', 'connections', 'target_rps', 'key_type'].every((k) => rows[0]![k] === r0[k]),
    )
    if (added)
      add(
        'ratio',
        RATIO_METRICS.pooling,
        'measurements',
        r0,
        pairedRatio(
          byRepeat(removed, (r) => num(r.proxy_cpu_us_per_req)),
          byRepeat(added, (r) => num(r.proxy_cpu_us_per_req)),
        ),
      )
  }
}

/** RSA / EC per proxy, version and series of handshakes. */
function addKeyTypeRatios(tables: Tables, add: AddFigure): void {
  const hs = [...tables.handshakes.values()]
  for (const [keyType, metric] of [
    ['rsa2048', RATIO_METRICS.rsa2048],
    ['rsa4096', RATIO_METRICS.rsa4096],
  ] as const) {
    for (const rsa of hs.filter((rows) => rows[0]!.key_type === keyType)) {
      const r0 = rsa[0]!
      // The same resumption too: the h3 series has full and resumed cells of every key type.
      const ec = hs.find(
        (rows) => rows[0]!.key_type === 'ec256' && ['series', 'proxy', 'version', 'variant', 'connections', 'resumption'].every((k) => rows[0]![k] === r0[k]),
      )
      if (ec)
        add(
          'ratio',
          metric,
          'handshakes',
          r0,
          pairedRatio(
            byRepeat(rsa, (r) => num(r.proxy_cpu_us_per_handshake)),
            byRepeat(ec, (r) => num(r.proxy_cpu_us_per_handshake)),
          ),
        )
    }
  }
}

/** proxy / direct (the calibrated unit) and the raw costs; the direct row's own cost is the reference itself. */
function addCosts(tables: Tables, refs: ReturnType<typeof runReferences>, add: AddFigure): void {
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    const primary = TABLE_SPECS[table].primary
    const ref = refs[CALIBRATION_REFERENCE[table]]
    for (const rows of tables[table].values()) {
      const r0 = rows[0]!
      if (r0.proxy === 'direct') {
        add(
          'cost',
          'backend_cpu_us_per_req',
          table,
          r0,
          byRepeat(rows, (r) => num(r.backend_cpu_us_per_req)),
        )
        continue
      }
      const raw = byRepeat(rows, (r) => num(r[primary]))
      if (ref) add('ratio', RATIO_METRICS.calibrated, table, r0, new Map([...raw].map(([k, v]) => [k, v / ref])))
      add('cost', primary, table, r0, raw)
    }
  }
}

/** A figure's median on its own scale (the offset taken off again). */
export const figureMedian = (f: Figure) => median([...f.repeats.values()]) - f.offset
