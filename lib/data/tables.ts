import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { z } from 'zod'
import { appendCsvRows, readCsv } from './csv.ts'
import {
  HANDSHAKE_COLUMNS, handshakeSchema, MEASUREMENT_COLUMNS, measurementSchema, WEBSOCKET_COLUMNS, websocketSchema,
  type Handshake, type Measurement, type WebSocketRow,
} from './schema.ts'

/** One CSV of a run directory: its file, columns, schema and what identifies a repeat. */
export interface Table<T> {
  file: string
  columns: readonly string[]
  schema: z.ZodType<T>
  /** What --resume compares: the same key means the same cell and repeat. */
  key(row: T): string
}

const numericColumns = (t: Table<unknown>) => {
  const shape = (t.schema as unknown as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>
  return t.columns.filter((c) => {
    const inner = shape[c]?._def.typeName === 'ZodNullable' ? shape[c]!._def.innerType : shape[c]
    return inner?._def.typeName === 'ZodNumber'
  })
}

export const MEASUREMENTS: Table<Measurement> = {
  file: 'measurements.csv',
  columns: MEASUREMENT_COLUMNS,
  schema: measurementSchema,
  key: (r) => [r.series, r.proxy, r.version, r.variant, r.key_type, r.model, r.connections, r.target_rps ?? '', r.repeat].join('|'),
}

export const HANDSHAKES: Table<Handshake> = {
  file: 'handshakes.csv',
  columns: HANDSHAKE_COLUMNS,
  schema: handshakeSchema,
  key: (r) => [r.series, r.proxy, r.version, r.variant, r.key_type, r.connections, r.repeat].join('|'),
}

export const WEBSOCKETS: Table<WebSocketRow> = {
  file: 'websocket.csv',
  columns: WEBSOCKET_COLUMNS,
  schema: websocketSchema,
  key: (r) => [r.series, r.proxy, r.version, r.variant, r.mode, r.conns_target, r.repeat].join('|'),
}

export function readTable<T>(runDir: string, t: Table<T>): T[] {
  const file = join(runDir, t.file)
  return existsSync(file) ? readCsv(file, t.schema as z.ZodTypeAny, numericColumns(t as Table<unknown>)) : []
}

/** Validates, then appends one row (temp file + rename: a crash keeps every earlier row). */
export function appendRow<T>(runDir: string, t: Table<T>, row: T): void {
  appendCsvRows(join(runDir, t.file), t.columns, [t.schema.parse(row) as Record<string, unknown>])
}
