import type { z } from 'zod'
import { columnNames, latestVersion, rowSchema, tableProblems } from './columns/derive.ts'
import { ROW_FILES } from './columns/table.ts'

export * from './manifest-schema.ts'

/**
 * The row schemas, types and column lists of a run's CSVs, each derived from its entries
 * in the one column table (lib/data/columns/table.ts); a change of column goes there.
 */

const problems = tableProblems(Object.values(ROW_FILES))
if (problems.length > 0) throw new Error(`lib/data/columns/table.ts: ${problems.join('; ')}`)

/** Version of the run directory's schema (CSV columns + manifest): the highest version the column table names. */
export const SCHEMA_VERSION = latestVersion(Object.values(ROW_FILES))

export const measurementSchema = rowSchema(ROW_FILES.measurements)
export type Measurement = z.infer<typeof measurementSchema>
/** Columns of measurements.csv in file order; readers rely on these names. */
export const MEASUREMENT_COLUMNS = columnNames(ROW_FILES.measurements)

export const handshakeSchema = rowSchema(ROW_FILES.handshakes)
export type Handshake = z.infer<typeof handshakeSchema>

export const websocketSchema = rowSchema(ROW_FILES.websocket)
export type WebSocketRow = z.infer<typeof websocketSchema>

export const tcpSchema = rowSchema(ROW_FILES.tcp)
export type TcpRow = z.infer<typeof tcpSchema>
