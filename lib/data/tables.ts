import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { z } from 'zod'
import { userError } from '../core/errors.ts'
import { appendCsvRows, readCsv } from './csv.ts'
import { CELL_COLUMNS, cellIdentity, type CellId, type TableName } from './grouping.ts'
import {
  HANDSHAKE_COLUMNS, handshakeSchema, MEASUREMENT_COLUMNS, measurementSchema, TCP_COLUMNS, tcpSchema, WEBSOCKET_COLUMNS, websocketSchema,
  type Handshake, type Measurement, type TcpRow, type WebSocketRow,
} from './schema.ts'

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
  return { name, file, columns, schema, ...cellIdentity(CELL_COLUMNS[name]) }
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
