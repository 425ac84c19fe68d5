import type { DataFrame } from 'danfojs-node'
import { compareVersions } from '../catalog/stack.ts'
import type { Handshake, Measurement, TcpRow, WebSocketRow } from '../data/schema.ts'
import { CELL_COLUMNS, groupRows, projectId, type CellKey, type CellRows, type TableName } from '../data/grouping.ts'

export type { TableName }
// A cell's status and a row's metric (errors_pct included) come from the claims ledger's
// definitions, so the article and the ledger never disagree.
import { cellStatus, metricValue } from '../claims/cells.ts'
import { summarize, type Summary } from '../core/stats.ts'
import { medianInterval, relativeHalfWidth, withFamilyNoise } from '../core/intervals.ts'
import { isDisturbed, precisionValue } from '../data/precision.ts'
import { POOLING_ROWS } from '../data/series.ts'

/**
 * Per-cell aggregates of a run's CSVs: one cell = the rows that differ only by repeat,
 * grouped by lib/data/grouping.ts. danfojs computes the medians of the secondary metrics;
 * lib/stats the primary metric's summary and what danfojs cannot (CI of the median, CV,
 * warnings). That the two agree on a median is checked in test/analysis/cells.test.ts.
 */

type Row = Measurement | Handshake | WebSocketRow | TcpRow
// The ledger's metric definitions read a tcp row by column name like any other.
const rowValue = (r: Row, metric: string) => metricValue(r as Parameters<typeof metricValue>[0], metric)
type Status = 'valid' | 'invalid' | 'failed'

export interface TableSpec {
  name: TableName
  /** Columns that identify a cell (CELL_COLUMNS). */
  keys: readonly string[]
  /** The cost metric the article is about. */
  primary: string
  /** Reported beside it as medians over valid rows. */
  secondary: readonly string[]
}

/** Kernel counts per unit (lib/data/columns/table.ts COUNTS): medians over valid rows beside every cost. */
export const COUNT_METRICS = ['proxy_syscalls_per_req', 'proxy_ctxsw_per_req', 'proxy_user_us_per_req', 'proxy_sys_us_per_req'] as const

export const TABLE_SPECS: Record<TableName, TableSpec> = {
  measurements: {
    name: 'measurements',
    keys: CELL_COLUMNS.measurements,
    primary: 'proxy_cpu_us_per_req',
    secondary: [
      'backend_cpu_us_per_req',
      'rps',
      'p50_ms',
      'p99_ms',
      'backend_conns_per_1k_req',
      'errors_pct',
      'generator_cpu_share',
      'proxy_cpu_share',
      'max_vus',
      'dropped',
      ...COUNT_METRICS,
    ],
  },
  handshakes: {
    name: 'handshakes',
    keys: CELL_COLUMNS.handshakes,
    primary: 'proxy_cpu_us_per_handshake',
    secondary: ['rate', 'p50_ms', 'p99_ms', 'generator_cpu_share', 'proxy_cpu_share', ...COUNT_METRICS],
  },
  websocket: {
    name: 'websocket',
    keys: CELL_COLUMNS.websocket,
    primary: 'proxy_cpu_us_per_msg',
    secondary: ['conns_established', 'refused', 'msg_rate', 'p50_ms', 'p99_ms', 'generator_cpu_share', ...COUNT_METRICS],
  },
  tcp: {
    name: 'tcp',
    keys: CELL_COLUMNS.tcp,
    // Short cells cost per connection, stream cells per MiB (data/precision.ts judges each on its own).
    primary: 'proxy_cpu_us_per_conn',
    secondary: [
      'proxy_cpu_us_per_mib',
      'conn_rate',
      'mib_per_s',
      'p50_ms',
      'p99_ms',
      'backend_conns_per_conn',
      'generator_cpu_share',
      'proxy_cpu_share',
      ...COUNT_METRICS,
    ],
  },
}

export interface CellSummary {
  table: TableName
  key: CellKey
  rows: number
  counts: Record<Status, number>
  status: Status
  /** The primary metric over valid rows; null when no valid row has it. */
  summary: Summary | null
  /** Medians of the secondary metrics over valid rows (null: none). */
  medians: Record<string, number | null>
  /** Reasons of the rows that are not valid, deduplicated. */
  reasons: string[]
  warnings: string[]
  /**
   * Precision reached (what the adaptive repeats aim at): the 95% CI of the median of the
   * cost metric (the backend's for the direct row) as ±% of the median, and the interval's
   * real coverage (below 95% under 6 repeats); null with fewer than 2 valid values.
   */
  ciHalfWidthPct: number | null
  ciLevel: number | null
  /** Rows invalid because the window was disturbed (re-measured, not repeats). */
  disturbed: number
  /** Its repeats disagree beyond the pooled noise of the table's cells under its load model (core/intervals). */
  unstable: boolean
}

let danfo: typeof import('danfojs-node') | undefined
/** danfojs takes seconds to load (TensorFlow.js): only when something is aggregated. */
async function loadDanfo() {
  danfo ??= await import('danfojs-node')
  return danfo
}

/** Median, min, max and count of `metric` per cell id (lib/data/grouping.ts), over valid rows with a value, by danfojs. */
export async function groupStats(spec: TableSpec, rows: readonly Row[], metric: string) {
  const values = rows.flatMap((r) => {
    const v = rowValue(r, metric)
    return r.status === 'valid' && v !== null ? [{ cell: projectId(r, spec.keys), v }] : []
  })
  const out = new Map<string, { median: number; min: number; max: number; count: number }>()
  if (values.length === 0) return out
  const dfd = await loadDanfo()
  const df: DataFrame = new dfd.DataFrame(values)
  const g = df.groupby(['cell']).agg({ v: ['median', 'min', 'max', 'count'] })
  for (const rec of dfd.toJSON(g) as Record<string, number | string>[]) {
    out.set(String(rec.cell), { median: Number(rec.v_median), min: Number(rec.v_min), max: Number(rec.v_max), count: Number(rec.v_count) })
  }
  return out
}

/** One summary per cell, sorted by proxy, then the other key columns (numbers as numbers). */
export async function summarizeCells(spec: TableSpec, rows: readonly Row[]): Promise<CellSummary[]> {
  const groups = groupRows(rows, spec.keys)
  const secondary = new Map(await Promise.all(spec.secondary.map(async (m) => [m, await groupStats(spec, rows, m)] as const)))
  const order = ['proxy', ...spec.keys.filter((k) => k !== 'proxy')]
  const byKey = (a: Row, b: Row) => {
    for (const k of order) {
      const x = (a as unknown as Record<string, unknown>)[k]
      const y = (b as unknown as Record<string, unknown>)[k]
      const d =
        typeof x === 'number' && typeof y === 'number'
          ? x - y
          : k === 'version'
            ? compareVersions(String(x ?? ''), String(y ?? ''))
            : String(x ?? '').localeCompare(String(y ?? ''))
      if (d !== 0) return d
    }
    return 0
  }
  const sorted = groups.sort((a, b) => byKey(a.rows[0]!, b.rows[0]!))
  const preciseOf = (members: readonly Row[]) =>
    members.flatMap((m) => (m.status === 'valid' && precisionValue(spec.name, m) !== null ? [precisionValue(spec.name, m)!] : []))
  const unstable = withFamilyNoise(
    sorted,
    (g: CellRows<Row>) => String((g.rows[0] as unknown as Record<string, unknown>).model ?? ''),
    (g) => new Map(preciseOf(g.rows).map((v, i) => [i + 1, v])),
  )
  return sorted.map(({ id, key, rows: members }, index) => {
    const counts = { valid: 0, invalid: 0, failed: 0 }
    for (const m of members) counts[m.status]++
    const values = members.flatMap((m) => (m.status === 'valid' && rowValue(m, spec.primary) !== null ? [rowValue(m, spec.primary)!] : []))
    const stats = values.length ? summarize(values) : null
    const precise = preciseOf(members)
    const iv = precise.length >= 2 ? medianInterval(new Map(precise.map((v, i) => [i + 1, v]))) : null
    const warnings = [...(stats?.warnings ?? [])]
    const excluded = counts.invalid + counts.failed
    if (excluded > 0) warnings.push(`${excluded} of ${members.length} rows not valid, excluded`)
    return {
      table: spec.name,
      key,
      rows: members.length,
      counts,
      status: cellStatus(members),
      summary: stats,
      medians: Object.fromEntries(spec.secondary.map((m) => [m, secondary.get(m)?.get(id)?.median ?? null])),
      reasons: [
        ...new Set(
          members
            .filter((m) => m.status !== 'valid')
            .map((m) => m.reason)
            .filter(Boolean),
        ),
      ],
      warnings,
      ciHalfWidthPct: iv && Number.isFinite(relativeHalfWidth(iv)) ? 100 * relativeHalfWidth(iv) : null,
      ciLevel: iv?.level ?? null,
      disturbed: members.filter((m) => isDisturbed(m)).length,
      unstable: unstable[index]!.unstable === true,
    }
  })
}

/**
 * The pooling series' closed-model cells (series same, pool-added, pool-removed,
 * haproxy-reuse, nginx-keepalive, direct, custom), never the versions series' rows: the
 * versions series measures the same proxy, version and variant again in its own phase, and
 * a figure must come from the same rows as the findings (F1-F4 read these series only).
 */
export const poolingSeriesCells = (measurements: readonly CellSummary[]): CellSummary[] =>
  measurements.filter((c) => c.key.model === 'closed' && POOLING_ROWS.includes(String(c.key.series)))

/** The versions series' closed-model cells. */
export const versionsSeriesCells = (measurements: readonly CellSummary[]): CellSummary[] =>
  measurements.filter((c) => c.key.model === 'closed' && c.key.series === 'versions')
