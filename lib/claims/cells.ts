/**
 * Cell groups of a run and the selectors of claims.yaml over them. A cell group is the
 * group of rows of one table with equal key columns (every repeat of one measured
 * configuration, i.e. of one CellPlan of lib/measure/cell.ts; grouped by
 * lib/data/grouping.ts, as the aggregation and resume group them); its value for a
 * metric is the median over its rows (valid rows only unless rows: all or open), with the rows'
 * values by repeat for its interval; its status the most common status of its rows (a tie
 * is shown as the worse one, and `statusTie` says so: a status check does not decide on it).
 */
import { compareVersions } from '../catalog/stack.ts'
import { groupCells, type CellKey, type CellRows } from '../data/grouping.ts'
import type { Handshake, Measurement, TcpRow, WebSocketRow } from '../data/schema.ts'
import { repeatsOf, withFamilyNoise, type Repeats } from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { failShare, validButForErrors } from '../data/open-outcome.ts'
import { NUMBER_WANT, type Agg, type CellStatus, type ClaimTable, type ColumnWant, type RowRule, type Scalar, type SelectorSpec } from './selectors.ts'

export type Row = Measurement | Handshake | WebSocketRow | TcpRow

/** The rows of one table with equal key columns, and their combined status. */
export interface CellGroup extends CellRows<Row> {
  table: ClaimTable
  status: CellStatus
}

const WORSE: Record<CellStatus, number> = { valid: 0, invalid: 1, failed: 2 }

function statusCounts(rows: readonly { status: CellStatus }[]): [CellStatus, number][] {
  const counts = new Map<CellStatus, number>()
  for (const r of rows) counts.set(r.status, (counts.get(r.status) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1] || WORSE[b[0]] - WORSE[a[0]])
}

/**
 * The most common status of the rows. A tie is shown as the worse one (failed > invalid >
 * valid) so a table never looks better than its rows; it decides nothing (see statusTie).
 */
export function cellStatus(rows: readonly { status: CellStatus }[]): CellStatus {
  return statusCounts(rows)[0]?.[0] ?? 'failed'
}

/** The statuses tied for most common (worst first), or null when one status is most common. */
export function statusTie(rows: readonly { status: CellStatus }[]): CellStatus[] | null {
  const counts = statusCounts(rows)
  const top = counts.filter(([, n]) => n === counts[0]?.[1]).map(([s]) => s)
  return top.length > 1 ? top : null
}

export function buildCellGroups(table: ClaimTable, rows: readonly Row[]): CellGroup[] {
  return groupCells(table, rows).map((g) => ({ ...g, table, status: cellStatus(g.rows) }))
}

/**
 * A row's value of a metric: a numeric column, or a derived metric (selectors.ts DERIVED_METRICS):
 * errors_pct, failed_pct (errors and dropped iterations over every attempt), dropped_pct;
 * resumed_pct (resumed handshakes over all of a handshakes row). A closed-model row drops
 * nothing (dropped 0); an open-model row without `dropped` has no failed_pct or dropped_pct.
 */
export function metricValue(row: Row, metric: string): number | null {
  const rec = row as unknown as Record<string, unknown>
  if (metric === 'resumed_pct') return resumedPct(rec)
  if (metric === 'errors_pct' || metric === 'failed_pct' || metric === 'dropped_pct') return failurePct(rec, metric)
  const v = rec[metric]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** resumed_pct: resumed handshakes over all of a handshakes row. */
function resumedPct({ resumed, handshakes }: Record<string, unknown>): number | null {
  return typeof resumed === 'number' && typeof handshakes === 'number' && handshakes > 0 ? (100 * resumed) / handshakes : null
}

/** errors_pct, failed_pct or dropped_pct of a row: null where a count it needs is missing, or nothing was attempted. */
function failurePct(rec: Record<string, unknown>, metric: 'errors_pct' | 'failed_pct' | 'dropped_pct'): number | null {
  const { requests, errors } = rec
  if (typeof requests !== 'number' || typeof errors !== 'number') return null
  if (metric === 'errors_pct') return requests + errors === 0 ? null : (100 * errors) / (requests + errors)
  const dropped = typeof rec.dropped === 'number' ? rec.dropped : rec.model === 'closed' ? 0 : null
  if (dropped === null || requests + errors + dropped === 0) return null
  // The failed share is the open-model outcomes' (F6) own: one formula.
  return metric === 'failed_pct' ? 100 * failShare({ requests, errors, dropped }) : (100 * dropped) / (requests + errors + dropped)
}

export interface CellValue {
  cell: CellGroup
  metric: string
  /** Median over the rows used; null when no used row has a value. */
  value: number | null
  /** Rows that gave a value. */
  n: number
  /** Rows left out by the check's row rule (rows: valid or open). */
  excluded: number
  /** The used rows' values by repeat: what an interval around `value` resamples. */
  repeats: Repeats
  /** The used rows that gave a value: when and by which invocation each repeat was measured (lib/claims/rounds.ts). */
  rows: readonly Row[]
}

/** The rows of a cell a rule reads (selectors.ts ROW_RULES): the one home of that selection. */
export function usedRows(cell: CellGroup, rule: RowRule): readonly Row[] {
  if (rule === 'all') return cell.rows
  if (rule === 'open') return cell.rows.filter(validButForErrors)
  return cell.rows.filter((r) => r.status === 'valid')
}

export function cellValue(cell: CellGroup, metric: string, rows: RowRule): CellValue {
  const used = usedRows(cell, rows)
  const values = used.map((r) => metricValue(r, metric)).filter((v): v is number => v !== null)
  return {
    rows: used.filter((r) => metricValue(r, metric) !== null),
    cell,
    metric,
    value: values.length ? median(values) : null,
    n: values.length,
    excluded: cell.rows.length - used.length,
    repeats: repeatsOf(used, (r) => metricValue(r, metric)),
  }
}

/**
 * Metrics whose noise is a factor of the host's state: costs, rates, latencies. Counts,
 * shares and percentages are capped or mostly zero; they keep their own intervals.
 */
export const MULTIPLICATIVE = /_us_per_|^rps$|_ms$/

/**
 * Every cell's repeats of a metric with the pooled noise of its family (core/intervals):
 * the cells of its table under the same load model, whose windows share one design.
 */
export function familyRepeats(cells: readonly CellGroup[], metric: string, rows: RowRule): Map<CellGroup, Repeats> {
  const repeats = (c: CellGroup) => cellValue(c, metric, rows).repeats
  const noisy = MULTIPLICATIVE.test(metric) ? withFamilyNoise(cells, (c) => String(c.key.model ?? ''), repeats) : cells.map(repeats)
  return new Map(cells.map((c, i) => [c, noisy[i]!]))
}

// ------------------------------------------------------------------ selectors

const isMap = (w: ColumnWant): w is Record<string, Scalar | Scalar[]> => typeof w === 'object' && !Array.isArray(w)

/** The wanted values of a column for a cell's proxy: undefined when a per-proxy map has no entry for it. */
function wantFor(w: ColumnWant, proxy: string): Scalar[] | undefined {
  if (isMap(w)) {
    const v = w[proxy]
    return v === undefined ? undefined : [v].flat()
  }
  return [w].flat()
}

const normVersion = (v: string) => v.trim().replace(/^v(?=\d)/, '')

type VersionWant = { op: '>=' | '<=' | '>' | '<' | '=='; version: string } | 'newest'

function parseVersionWant(s: string): VersionWant {
  if (s === 'newest') return 'newest'
  const m = /^(>=|<=|>|<|==|=)?\s*(.+)$/.exec(s.trim())!
  return { op: (m[1] === '=' || !m[1] ? '==' : m[1]) as '>=' | '<=' | '>' | '<' | '==', version: normVersion(m[2]!) }
}

function versionHolds(version: string, w: Exclude<VersionWant, 'newest'>): boolean {
  const d = compareVersions(normVersion(version), w.version)
  switch (w.op) {
    case '>=':
      return d >= 0
    case '<=':
      return d <= 0
    case '>':
      return d > 0
    case '<':
      return d < 0
    case '==':
      return normVersion(version) === w.version || (d === 0 && /^\d/.test(version))
  }
}

/** Proxies a selector names: its proxy column, else the keys shared by its per-proxy maps. */
export function neededProxies(spec: SelectorSpec): string[] | null {
  const p = spec.columns.proxy
  if (p !== undefined && !isMap(p)) return [p].flat().map(String)
  const maps = Object.values(spec.columns).filter(isMap)
  if (maps.length === 0) return null
  return Object.keys(maps[0]!).filter((k) => maps.every((m) => k in m))
}

/** A selector in words, as claims.yaml writes it, resolved for one proxy when given. */
export function describeSpec(spec: SelectorSpec, proxy?: string): string {
  const parts = Object.entries(spec.columns).flatMap(([col, w]) => {
    if (col === 'proxy' && proxy !== undefined) return [`proxy: ${proxy}`]
    const v = proxy !== undefined && isMap(w) ? w[proxy] : w
    if (v === undefined) return []
    return [`${col}: ${Array.isArray(v) ? `[${v.join(', ')}]` : isMap(v) ? JSON.stringify(v) : String(v)}`]
  })
  if (proxy !== undefined && spec.columns.proxy === undefined) parts.unshift(`proxy: ${proxy}`)
  if (spec.pick) parts.push(`pick: ${spec.pick}`)
  return `{${parts.join(', ')}}`
}

export interface Match {
  cells: CellGroup[]
  /** One line per needed cell that is absent. */
  missing: string[]
}

/** Whether a cell's column value is a wanted value: equal, or a comparison (">1024") on a number. */
function wantHolds(x: Scalar, have: string | number | null | undefined): boolean {
  const cmp = typeof x === 'string' ? NUMBER_WANT.exec(x.trim()) : null
  if (!cmp) return String(x) === String(have)
  if (typeof have !== 'number') return false
  const w = Number(cmp[2])
  return cmp[1] === '>' ? have > w : cmp[1] === '>=' ? have >= w : cmp[1] === '<' ? have < w : have <= w
}

/**
 * The cells a selector map matches. Columns: equality, a comparison on a numeric column
 * (">1024"), or any of a list, per proxy when the value is a map. version: a comparison, an exact version, or "newest" (also when left out:
 * the newest version among the cells that match the other columns, per proxy, as in
 * lib/findings/pooling.ts). pick: lowest-failing-target keeps the cells of the lowest target_rps
 * whose status is not valid. Every proxy the selector names needs a cell.
 */
export function matchSelector(cells: readonly CellGroup[], spec: SelectorSpec): Match {
  const { version, ...others } = spec.columns
  const candidates = cells.filter((c) =>
    Object.entries(others).every(([col, w]) => {
      if (!(col in c.key)) return false
      const want = wantFor(w, String(c.key.proxy))
      return want?.some((x) => wantHolds(x, c.key[col]))
    }),
  )
  const wants = versionWants(candidates, version)
  const newestOf = newestWanted(wants)
  let matched = [...wants]
    .filter(([c, w]) =>
      w.some((x) =>
        x === 'newest' ? compareVersions(String(c.key.version), newestOf.get(String(c.key.proxy))!) === 0 : versionHolds(String(c.key.version), x),
      ),
    )
    .map(([c]) => c)

  if (spec.pick === 'lowest-failing-target') {
    const failing = matched.filter((c) => c.status !== 'valid' && typeof c.key.target_rps === 'number')
    if (matched.length > 0 && failing.length === 0) {
      return { cells: [], missing: [`no failing target among the ${matched.length} cell${matched.length === 1 ? '' : 's'} of ${describeSpec(spec)}`] }
    }
    const lowest = Math.min(...failing.map((c) => c.key.target_rps as number))
    matched = failing.filter((c) => c.key.target_rps === lowest)
  }
  return { cells: matched, missing: missingCells(spec, matched) }
}

/** The versions each candidate cell's proxy wants (left out: the newest); a cell whose proxy the version map leaves out wants none. */
function versionWants(candidates: readonly CellGroup[], version: ColumnWant | undefined): Map<CellGroup, VersionWant[]> {
  const wants = new Map<CellGroup, VersionWant[]>()
  for (const c of candidates) {
    const w = version === undefined ? ['newest'] : wantFor(version, String(c.key.proxy))
    if (w !== undefined)
      wants.set(
        c,
        w.map((x) => parseVersionWant(String(x))),
      )
  }
  return wants
}

/** Per proxy, the newest version among the cells that want the newest. */
function newestWanted(wants: ReadonlyMap<CellGroup, VersionWant[]>): Map<string, string> {
  const newestOf = new Map<string, string>()
  for (const [c, w] of wants) {
    if (!w.includes('newest')) continue
    const p = String(c.key.proxy)
    const v = String(c.key.version)
    const best = newestOf.get(p)
    if (best === undefined || compareVersions(v, best) > 0) newestOf.set(p, v)
  }
  return newestOf
}

/** One line per proxy the selector names that no matched cell has; or one line when it names none and nothing matched. */
function missingCells(spec: SelectorSpec, matched: readonly CellGroup[]): string[] {
  const needed = neededProxies(spec)
  if (!needed) return matched.length === 0 ? [`no cell ${describeSpec(spec)}`] : []
  return needed.filter((p) => !matched.some((c) => c.key.proxy === p)).map((p) => `no cell ${describeSpec(spec, p)}`)
}

/** One value from several cells' values. newest: the cells of the newest version (their median). */
export function aggregate(values: readonly CellValue[], agg: Agg = 'median'): number | null {
  const xs = values.filter((v) => v.value !== null)
  if (xs.length === 0) return null
  return aggregateMedians(
    xs,
    xs.map((v) => v.value!),
    agg,
  )
}

/**
 * `aggregate` over given medians of the cells (medians[i] for values[i]): the same rule on
 * the bootstrap's resampled medians as on the measured ones.
 */
export function aggregateMedians(values: readonly CellValue[], medians: readonly number[], agg: Agg = 'median'): number {
  if (agg === 'min') return Math.min(...medians)
  if (agg === 'max') return Math.max(...medians)
  if (agg === 'newest') {
    const top = values
      .map((v) => String(v.cell.key.version))
      .sort(compareVersions)
      .at(-1)!
    return median(medians.filter((_, i) => compareVersions(String(values[i]!.cell.key.version), top) === 0))
  }
  return median(medians)
}

/** The series whose cells a variant names when nothing else is said (measurements). */
const HOME_SERIES: Record<string, string> = { article: 'same', 'pool-added': 'pool-added' }

/**
 * The series of a cell when its variant does not tell it: article and pool-added cells also
 * come from versions and tls-* (measurements); null otherwise.
 */
export function shownSeries(cell: CellGroup): string | null {
  const { variant, series } = cell.key
  const home = HOME_SERIES[String(variant)]
  return cell.table === 'measurements' && home !== undefined && series !== home ? String(series) : null
}

/** What a cell asked for beyond the usual GET / over HTTP/1.1 with full handshakes: "/json 10240 B", "m=10", "tickets". */
export function requestWords(k: CellKey): string[] {
  const words: string[] = []
  if (typeof k.path === 'string' && k.path !== '/') words.push(typeof k.body_bytes === 'number' ? `${k.path} ${k.body_bytes} B` : k.path)
  if (typeof k.streams === 'number') words.push(`m=${k.streams}`)
  if (typeof k.resumption === 'string' && k.resumption !== 'none') words.push(k.resumption)
  return words
}

/** A short name of a cell for the report: proxy version variant, then what differs from the usual. */
export function cellLabel(cell: CellGroup): string {
  const k = cell.key
  const parts = [k.proxy, k.version, k.variant]
  const series = shownSeries(cell)
  if (series) parts.push(series)
  if (k.key_type !== undefined && (cell.table === 'handshakes' || k.key_type !== 'ec256')) parts.push(k.key_type)
  if (k.mode !== undefined) parts.push(k.mode)
  if (k.model === 'open') parts.push(`open@${k.target_rps ?? '?'}`)
  parts.push(...requestWords(k))
  return parts.join(' ')
}
