/**
 * The one grouping stage (as benchstat's benchproc): what identifies a cell, a row's key
 * under a projection of columns, and rows grouped into cells. Resume (run/), aggregation
 * (analysis/), the claims ledger (claims/), the findings and the series' open-model rates
 * group rows through here; test/architecture/imports.test.ts keeps hand-made keys out of
 * the other files (CONTRIBUTING.md#grouping).
 */
import { repeatsOf, withPooledNoise, type Repeats } from '../core/intervals.ts'

export type TableName = 'measurements' | 'handshakes' | 'websocket' | 'tcp'

/**
 * The columns that identify a cell (one measured configuration, every repeat of one planned
 * CellPlan of lib/measure/cell.ts) in each table: the one definition that resume, aggregation,
 * the claims ledger and the report group by.
 */
export const CELL_COLUMNS = {
  // path and body_bytes last: files written before them read / and empty, so their cells keep their identity.
  measurements: ['series', 'proxy', 'version', 'variant', 'key_type', 'model', 'connections', 'target_rps', 'path', 'body_bytes', 'streams'],
  // resumption last: files written before it read none, so their cells keep their identity.
  handshakes: ['series', 'proxy', 'version', 'variant', 'key_type', 'connections', 'resumption'],
  websocket: ['series', 'proxy', 'version', 'variant', 'mode', 'conns_target'],
  tcp: ['series', 'proxy', 'version', 'variant', 'key_type', 'mode', 'connections', 'msg_bytes', 'stream_bytes'],
} as const satisfies Record<TableName, readonly string[]>

/** A cell's (or a projection's) identity as values by column; an absent value is null. */
export type CellKey = Record<string, string | number | null>

/** A cell's (or a projection's) identity as one string: its values in column order, null and absent as empty, joined by `|`. */
export type CellId = string

/** The rows of one cell (or of one projection) and their key. */
export interface CellRows<R> {
  id: CellId
  key: CellKey
  rows: R[]
}

const field = (row: object, column: string): unknown => (row as Record<string, unknown>)[column]

/** The identity of key values, in column order (null, undefined and '' are one value, as a CSV reads them). */
export const keyId = (values: readonly unknown[]): CellId => values.map((v) => String(v ?? '')).join('|')

/** A row's key under a projection: its values of `columns`, absent as null. */
export const projectKey = (row: object, columns: readonly string[]): CellKey =>
  Object.fromEntries(columns.map((c) => [c, (field(row, c) ?? null) as string | number | null]))

/** A row's identity under a projection of `columns` (a key from projectKey has the same one). */
export const projectId = (row: object, columns: readonly string[]): CellId => keyId(columns.map((c) => field(row, c)))

/** A row's cell in its table (CELL_COLUMNS). */
export const cellIdOf = (table: TableName, row: object): CellId => projectId(row, CELL_COLUMNS[table])

/** A repeat's identity: its cell and its repeat number, what --resume compares. */
export const repeatIdOf = (cell: CellId, repeat: unknown): string => keyId([cell, repeat])

/** The cell of a repeat's identity (repeatIdOf). */
export const cellOfRepeatId = (repeatId: string): CellId => repeatId.slice(0, repeatId.lastIndexOf('|'))

/** What a table knows of its cells: the key columns, a row's cell and a row's repeat identity. */
export function cellIdentity(columns: readonly string[]): { cellColumns: readonly string[]; cellId(row: unknown): CellId; key(row: unknown): string } {
  return {
    cellColumns: columns,
    cellId: (row) => projectId(row as object, columns),
    key: (row) => repeatIdOf(projectId(row as object, columns), field(row as object, 'repeat')),
  }
}

/**
 * Rows grouped by a derived projection (`keyOf` gives a row's key values, e.g. a column
 * read with its default): groups in the order they first appear, rows in their order.
 */
export function groupBy<R>(rows: readonly R[], keyOf: (row: R) => readonly unknown[]): Map<CellId, R[]> {
  const groups = new Map<CellId, R[]>()
  for (const r of rows) {
    const id = keyId(keyOf(r))
    const group = groups.get(id)
    if (group) group.push(r)
    else groups.set(id, [r])
  }
  return groups
}

/** Rows grouped by a projection of columns, with each group's key: groups in the order they first appear. */
export function groupRows<R extends object>(rows: readonly R[], columns: readonly string[]): CellRows<R>[] {
  return [...groupBy(rows, (r) => columns.map((c) => field(r, c)))].map(([id, members]) => ({ id, key: projectKey(members[0]!, columns), rows: members }))
}

/** A table's rows grouped into its cells (CELL_COLUMNS). */
export const groupCells = <R extends object>(table: TableName, rows: readonly R[]): CellRows<R>[] => groupRows(rows, CELL_COLUMNS[table])

/**
 * Rows grouped by a projection of columns: each group's repeats of `value`, with the pooled
 * noise of all of them (core/intervals), by the group's id (keyId of its values).
 */
export function noisyCells<R extends { repeat: number }>(
  rows: readonly R[],
  columns: readonly string[],
  value: (r: R) => number | null | undefined,
): Map<CellId, Repeats> {
  const groups = groupRows(rows, columns)
  const noisy = withPooledNoise(groups.map((g) => repeatsOf(g.rows, value)))
  return new Map(groups.map((g, i) => [g.id, noisy[i]!]))
}
