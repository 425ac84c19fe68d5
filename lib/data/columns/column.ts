import type { Kind } from './kinds.ts'

/**
 * One column of a row table: everything the schema, the blank row, the reader and the
 * data dictionary know about it (lib/data/columns/table.ts holds them all).
 */
export interface Column<N extends string = string, K extends Kind = Kind> {
  name: N
  kind: K
  /** The schema version it appeared in (docs/data.md#schema-versions). */
  since: number
  unit: string
  meaning: string
}

export const column = <N extends string, K extends Kind>(name: N, kind: K, since: number, unit: string, meaning: string): Column<N, K> => ({
  name,
  kind,
  since,
  unit,
  meaning,
})

/** A column shared by several tables as one table has it: another kind, unit or meaning. */
export const inFile = <N extends string, K extends Kind, K2 extends Kind = K>(
  c: Column<N, K>,
  o: { kind?: K2; unit?: string; meaning?: string; since?: number },
): Column<N, K2> => ({ ...c, kind: (o.kind ?? c.kind) as K2, since: o.since ?? c.since, unit: o.unit ?? c.unit, meaning: o.meaning ?? c.meaning })

/** Columns by name, for the tables that share them. */
export const byName = <C extends Column>(columns: readonly C[]): { [X in C as X['name']]: X } =>
  Object.fromEntries(columns.map((c) => [c.name, c])) as { [X in C as X['name']]: X }

/** One CSV of a run directory: its file, the version it appeared in, its columns in file order (appended at the end, never reordered). */
export interface RowFile<C extends Column = Column> {
  file: string
  since: number
  columns: readonly C[]
  /** Columns older files of this name have and this harness no longer writes: read past, never an error (docs/data.md#retired-columns). */
  retired: readonly string[]
}

export const rowFile = <C extends Column>(file: string, since: number, columns: readonly C[]): RowFile<C> => ({ file, since, columns, retired: [] })

/** The file with columns it no longer writes (docs/data.md#retired-columns). */
export const withRetired = <C extends Column>(f: RowFile<C>, retired: readonly string[]): RowFile<C> => ({ ...f, retired })

/** The version from which every file of its table has the column: a file older than that may lack it. */
export const columnSince = (f: RowFile, c: Column): number => Math.max(f.since, c.since)
