import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { z } from 'zod'
import { userError } from '../core/errors.ts'
import type { RowFile } from './columns/column.ts'
import { cellValue, columnNames, requiredColumns } from './columns/derive.ts'
import { ROW_FILES } from './columns/table.ts'
import { appendCsvRows, readCsv, setCsvCells } from './csv.ts'
import { CELL_COLUMNS, cellIdentity, type CellId, type TableName } from './grouping.ts'
import { readManifest } from './manifest.ts'
import { handshakeSchema, measurementSchema, tcpSchema, websocketSchema, type Handshake, type Measurement, type TcpRow, type WebSocketRow } from './schema.ts'

export type { TableName }

/** One CSV of a run directory: its file, columns, schema and what identifies a repeat. */
export interface Table<T> {
  /** A table of TABLES, or a run file of one phase that no cell summary reads (default-keys: lib/data/default-keys.ts). */
  name: TableName | 'default-keys'
  file: string
  columns: readonly string[]
  schema: z.ZodType<T>
  cellColumns: readonly string[]
  /** A row's cell (lib/data/grouping.ts). */
  cellId(row: T): CellId
  /** What --resume compares: the same key means the same cell and repeat. */
  key(row: T): string
  /** Its entries in the column table (lib/data/columns/table.ts): how each cell reads, which columns a file of each version has. */
  rowFile: RowFile
}

/** A table from its entries in the column table and the schema derived from them (lib/data/schema.ts). */
export function table<T>(name: Table<T>['name'], rowFile: RowFile, schema: z.ZodType<T>, cellColumns: readonly string[]): Table<T> {
  return { name, file: rowFile.file, columns: columnNames(rowFile), schema, ...cellIdentity(cellColumns), rowFile }
}

export const MEASUREMENTS = table<Measurement>('measurements', ROW_FILES.measurements, measurementSchema, CELL_COLUMNS.measurements)
export const HANDSHAKES = table<Handshake>('handshakes', ROW_FILES.handshakes, handshakeSchema, CELL_COLUMNS.handshakes)
export const WEBSOCKETS = table<WebSocketRow>('websocket', ROW_FILES.websocket, websocketSchema, CELL_COLUMNS.websocket)
export const TCP = table<TcpRow>('tcp', ROW_FILES.tcp, tcpSchema, CELL_COLUMNS.tcp)
export const TABLES = { measurements: MEASUREMENTS, handshakes: HANDSHAKES, websocket: WEBSOCKETS, tcp: TCP } as const

/** The schema version a run directory's files were written under: its manifest's; 1 without one (as a manifest without the field). */
export const runSchemaVersion = (runDir: string): number => readManifest(runDir)?.schema_version ?? 1

/**
 * The rows of a table, read by the one rule for older files (docs/data.md#schema-versions):
 * a file of schema version v has every column that appeared by v; the columns that
 * appeared after v may be absent, and read as their empty value.
 */
export function readTable<T>(runDir: string, t: Table<T>, version = runSchemaVersion(runDir)): T[] {
  const file = join(runDir, t.file)
  if (!existsSync(file)) return []
  checkHeader(file, t as Table<unknown>, version)
  const columns = new Map(t.rowFile.columns.map((c) => [c.name, c]))
  return readCsv(file, t.schema as z.ZodTypeAny, t.columns, (name, raw) => cellValue(columns.get(name)!, raw))
}

/**
 * A header column this harness does not know (a renamed or foreign column) is an error, never ignored: its values would be
 * lost or read under another name; a retired one is read past (docs/data.md#retired-columns). So is a missing column every
 * file of the run's version has: a damaged file, not an older one.
 */
function checkHeader(file: string, t: Table<unknown>, version: number): void {
  const text = readFileSync(file, 'utf8')
  const header = text
    .slice(0, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n'))
    .replace(/\r$/, '')
    .split(',')
    .map((h) => h.trim().replace(/^"(.*)"$/, '$1'))
  const unknown = header.filter((h) => !t.columns.includes(h) && !t.rowFile.retired.includes(h))
  const twice = header.filter((h, i) => header.indexOf(h) !== i)
  const restore = `Restore the header this harness writes (${t.file} columns: ${t.columns.slice(0, 4).join(', ')}, …; see docs/data.md`
  if (unknown.length + twice.length > 0) {
    const what = unknown.length ? `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')}` : `column "${twice[0]}" twice`
    throw userError(`${file}:1`, `${what} in the header`, `${restore})`)
  }
  const missing = requiredColumns(t.rowFile, version).filter((c) => !header.includes(c))
  if (missing.length > 0) {
    const what = `column${missing.length > 1 ? 's' : ''} ${missing.map((c) => `"${c}"`).join(', ')} missing from the header`
    throw userError(`${file}:1`, `${what}: every file of schema version ${version} has ${missing.length > 1 ? 'them' : 'it'}`, `${restore}#schema-versions)`)
  }
}

/** Validates, then appends one row (temp file + rename: a crash keeps every earlier row). */
export function appendRow<T>(runDir: string, t: Table<T>, row: T): void {
  appendCsvRows(join(runDir, t.file), t.columns, [t.schema.parse(row) as Record<string, unknown>])
}

/**
 * Marks rows already written (by their index in readTable's order) with a new status and
 * reason, every other cell as it was: a window judged against its cell's others once they
 * are in (lib/measure/validity.ts collapsedRows). The row stays, with why.
 */
export function markRows(runDir: string, t: Table<unknown>, marks: ReadonlyMap<number, { status: string; reason: string }>): void {
  if (marks.size > 0) setCsvCells(join(runDir, t.file), marks)
}
