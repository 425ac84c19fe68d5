import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { z } from 'zod'
import { userError } from '../core/errors.ts'
import { appendCsvRows, readCsv } from './csv.ts'
import {
  HANDSHAKE_COLUMNS, handshakeSchema, MEASUREMENT_COLUMNS, measurementSchema, TCP_COLUMNS, tcpSchema, WEBSOCKET_COLUMNS, websocketSchema,
  type Handshake, type Measurement, type TcpRow, type WebSocketRow,
} from './schema.ts'

export type TableName = 'measurements' | 'handshakes' | 'websocket' | 'tcp'

/**
 * The columns that identify a cell (one measured configuration) in each table: the one
 * definition that resume, aggregation, the claims ledger and the report group by.
 */
export const CELL_COLUMNS = {
  // path and body_bytes last: files written before them read / and empty, so their cells keep their identity.
  measurements: ['series', 'proxy', 'version', 'variant', 'key_type', 'model', 'connections', 'target_rps', 'path', 'body_bytes', 'streams'],
  // resumption last: files written before it read none, so their cells keep their identity.
  handshakes: ['series', 'proxy', 'version', 'variant', 'key_type', 'connections', 'resumption'],
  websocket: ['series', 'proxy', 'version', 'variant', 'mode', 'conns_target'],
  tcp: ['series', 'proxy', 'version', 'variant', 'key_type', 'mode', 'connections', 'msg_bytes', 'stream_bytes'],
} as const satisfies Record<TableName, readonly string[]>

/** One CSV of a run directory: its file, columns, schema and what identifies a repeat. */
export interface Table<T> {
  /** A table of TABLES, or a run file of one phase that no cell summary reads (default-keys: lib/data/default-keys.ts). */
  name: TableName | 'default-keys'
  file: string
  columns: readonly string[]
  schema: z.ZodType<T>
  cellColumns: readonly string[]
  /** What --resume compares: the same key means the same cell and repeat. */
  key(row: T): string
}

/** A row's cell identity and repeat as one string (nulls as empty). */
const repeatKey = (cols: readonly string[]) => (row: unknown): string => {
  const r = row as Record<string, unknown>
  return [...cols, 'repeat'].map((c) => r[c] ?? '').join('|')
}

const numericColumns = (t: Table<unknown>) => {
  const shape = (t.schema as unknown as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>
  return t.columns.filter((c) => {
    // Through nullable and optional wrappers (the invocation column is both).
    let inner = shape[c]
    while (inner && ['ZodNullable', 'ZodOptional'].includes(inner._def.typeName)) inner = inner._def.innerType
    return inner?._def.typeName === 'ZodNumber'
  })
}

function table<T>(name: TableName, file: string, columns: readonly string[], schema: z.ZodType<T>): Table<T> {
  return { name, file, columns, schema, cellColumns: CELL_COLUMNS[name], key: repeatKey(CELL_COLUMNS[name]) }
}

// Cast: the path column reads '' (files written before it) as / (its preprocess), so its input type is wider than the row's.
export const MEASUREMENTS = table<Measurement>('measurements', 'measurements.csv', MEASUREMENT_COLUMNS, measurementSchema as unknown as z.ZodType<Measurement>)
// Cast: the resumption column reads '' (files written before it) as absent, so its input type is wider than the row's.
export const HANDSHAKES = table<Handshake>('handshakes', 'handshakes.csv', HANDSHAKE_COLUMNS, handshakeSchema as unknown as z.ZodType<Handshake>)
export const WEBSOCKETS = table<WebSocketRow>('websocket', 'websocket.csv', WEBSOCKET_COLUMNS, websocketSchema)
export const TCP = table<TcpRow>('tcp', 'tcp.csv', TCP_COLUMNS, tcpSchema)
export const TABLES = { measurements: MEASUREMENTS, handshakes: HANDSHAKES, websocket: WEBSOCKETS, tcp: TCP } as const

export function readTable<T>(runDir: string, t: Table<T>): T[] {
  const file = join(runDir, t.file)
  if (!existsSync(file)) return []
  checkHeader(file, t as Table<unknown>)
  return readCsv(file, t.schema as z.ZodTypeAny, numericColumns(t as Table<unknown>))
}

/** A header column this harness does not write (a renamed or foreign column) is an error, never ignored: its values would be lost or read under another name. */
function checkHeader(file: string, t: Table<unknown>): void {
  const text = readFileSync(file, 'utf8')
  const header = text.slice(0, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n')).replace(/\r$/, '').split(',').map((h) => h.trim().replace(/^"(.*)"$/, '$1'))
  const unknown = header.filter((h) => !t.columns.includes(h))
  const twice = header.filter((h, i) => header.indexOf(h) !== i)
  if (unknown.length + twice.length > 0) {
    const what = unknown.length ? `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((c) => `"${c}"`).join(', ')}` : `column "${twice[0]}" twice`
    throw userError(`${file}:1`, `${what} in the header`, `Restore the header this harness writes (${t.file} columns: ${t.columns.slice(0, 4).join(', ')}, …; see docs/data.md)`)
  }
}

/** Validates, then appends one row (temp file + rename: a crash keeps every earlier row). */
export function appendRow<T>(runDir: string, t: Table<T>, row: T): void {
  appendCsvRows(join(runDir, t.file), t.columns, [t.schema.parse(row) as Record<string, unknown>])
}
