import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { readManifest } from './manifest.ts'
import { SCHEMA_VERSION, type Handshake, type Manifest, type Measurement, type TcpRow, type WebSocketRow } from './schema.ts'
import { HANDSHAKES, MEASUREMENTS, readTable, TCP, WEBSOCKETS } from './tables.ts'
import { userError } from '../core/errors.ts'
import { displayPath } from '../core/paths.ts'

/** The rows of a run's three tables. */
export interface RunTables {
  measurements: Measurement[]
  handshakes: Handshake[]
  websocket: WebSocketRow[]
  /** L4 rows (series l4, tcp.csv); absent where a reader built its tables before it. */
  tcp?: TcpRow[]
}

/** A run directory read and validated: what every reader of results works from. */
export interface RunData extends RunTables {
  dir: string
  manifest: Manifest
}

/** The tables of a run directory as they are now (absent files: no rows). */
export const readRunTables = (dir: string): RunTables => ({ measurements: readTable(dir, MEASUREMENTS), handshakes: readTable(dir, HANDSHAKES), websocket: readTable(dir, WEBSOCKETS), tcp: readTable(dir, TCP) })

/** Reads a run (or promoted baseline) directory; any bad file is a one-line error with file:line. */
export function loadRun(dir: string): RunData {
  if (!existsSync(dir)) throw userError(displayPath(dir), 'no such run directory', 'Pass a directory written by run-all (results/<run-id>)')
  const manifest = readManifest(dir)
  if (!manifest) throw userError(displayPath(join(dir, 'manifest.json')), 'missing: not a run directory', 'Pass a directory written by run-all (results/<run-id>)')
  if (manifest.schema_version !== SCHEMA_VERSION) {
    throw userError(displayPath(join(dir, 'manifest.json')), `schema version ${manifest.schema_version}, this harness reads ${SCHEMA_VERSION}`, 'Use a harness of the version that wrote it, or re-run and promote a new baseline')
  }
  return { dir, manifest, ...readRunTables(dir) }
}
