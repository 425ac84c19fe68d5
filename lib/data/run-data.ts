import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { readBisectPlan, type BisectPlan } from './bisect.ts'
import { DEFAULT_KEYS, type DefaultKeyRow } from './default-keys.ts'
import { readManifest } from './manifest.ts'
import { SCHEMA_VERSION, type Handshake, type Manifest, type Measurement, type TcpRow, type WebSocketRow } from './schema.ts'
import { HANDSHAKES, MEASUREMENTS, readTable, runSchemaVersion, TABLES, TCP, WEBSOCKETS, type Table } from './tables.ts'
import { userError } from '../core/errors.ts'
import { readThenSides, THEN_DIR, type ThenSides } from './then.ts'
import { displayPath } from '../core/paths.ts'

/** The rows of a run's three tables. */
export interface RunTables {
  measurements: Measurement[]
  handshakes: Handshake[]
  websocket: WebSocketRow[]
  /** L4 rows (series l4, tcp.csv); absent where a reader built its tables before it. */
  tcp?: TcpRow[]
  /** The bisect plan (bisect.json) whose search the bisect rows replay; absent: no bisect in the run. */
  bisect?: BisectPlan
  /** What Traefik and Caddy served when given no certificate (default-keys.csv); absent in older readers. */
  defaultKeys?: DefaultKeyRow[]
}

/** A run directory read and validated: what every reader of results works from. */
export interface RunData extends RunTables {
  dir: string
  manifest: Manifest
  /** --like: the baseline's builds measured beside the run's (then/, lib/data/then.ts); absent: none. */
  paired?: { sides: ThenSides; tables: RunTables }
}

/** The tables of a run directory as they are now (absent files: no rows), read as files of its schema version. */
export const readRunTables = (dir: string, version = runSchemaVersion(dir)): RunTables => {
  const bisect = readBisectPlan(dir)
  const read = <T>(t: Table<T>) => readTable(dir, t, version)
  return {
    measurements: read(MEASUREMENTS),
    handshakes: read(HANDSHAKES),
    websocket: read(WEBSOCKETS),
    tcp: read(TCP),
    defaultKeys: read(DEFAULT_KEYS),
    ...(bisect ? { bisect } : {}),
  }
}

/** Reads a run (or promoted baseline) directory; any bad file is a one-line error with file:line. */
export function loadRun(dir: string): RunData {
  if (!existsSync(dir)) throw userError(displayPath(dir), 'no such run directory', 'Pass a directory written by run-all (results/<run-id>)')
  const manifest = readManifest(dir)
  if (!manifest)
    throw userError(displayPath(join(dir, 'manifest.json')), 'missing: not a run directory', 'Pass a directory written by run-all (results/<run-id>)')
  // Older versions read by the column table's rule (docs/data.md#schema-versions); a newer one has columns this harness does not know.
  if (manifest.schema_version > SCHEMA_VERSION) {
    throw userError(
      displayPath(join(dir, 'manifest.json')),
      `schema version ${manifest.schema_version}, this harness reads 1 to ${SCHEMA_VERSION}`,
      'Use a harness of the version that wrote it (or newer), or re-run and promote a new baseline',
    )
  }
  const tables = readRunTables(dir, manifest.schema_version)
  for (const t of Object.values(TABLES) as Table<unknown>[]) checkFinishedTable(dir, t, (tables[t.name as keyof typeof TABLES] ?? []) as readonly unknown[])
  checkFinishedTable(dir, DEFAULT_KEYS as Table<unknown>, tables.defaultKeys ?? [])
  const sides = readThenSides(dir)
  return { dir, manifest, ...tables, ...(sides ? { paired: { sides, tables: readRunTables(join(dir, THEN_DIR), manifest.schema_version) } } : {}) }
}

/**
 * What a finished run's table must be before a reader aggregates it (docs/reliability.md
 * "Bad input"): a file that exists holds rows (a header alone reports "not measured"
 * everywhere without a word), and each repeat of a cell is one row (a copy-paste or a bad
 * merge would be counted twice). The identity is the table's own key: its cell columns and
 * the repeat, what --resume compares.
 */
export function checkFinishedTable(dir: string, t: Table<unknown>, rows: readonly unknown[]): void {
  const file = join(dir, t.file)
  if (!existsSync(file)) return
  if (rows.length === 0) {
    throw userError(
      `${displayPath(file)}:1`,
      'a header and no rows: nothing measured is in this file',
      `Restore its rows from the run's copy, or remove the file if the run measured nothing there (its series then read as not measured)`,
    )
  }
  const firstLine = new Map<string, number>()
  rows.forEach((row, i) => {
    const key = t.key(row)
    const seen = firstLine.get(key)
    // Data rows start on line 2 (readCsv numbers them the same way).
    if (seen !== undefined) {
      const r = row as Record<string, unknown>
      const cell = t.cellColumns
        .map((c) => r[c])
        .filter((v) => v !== null && v !== undefined && v !== '')
        .join(' ')
      throw userError(
        `${displayPath(file)}:${i + 2}`,
        `repeat ${String(r.repeat)} of cell ${cell} is also on line ${seen + 2}`,
        'Remove one of the two lines (a copy or a bad merge): each repeat of a cell is one row',
      )
    }
    firstLine.set(key, i)
  })
}
