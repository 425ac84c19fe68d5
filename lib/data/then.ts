import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { writeFileAtomic } from '../core/atomic.ts'
import { readJsonFile } from '../core/json-file.ts'
import { CELL_COLUMNS, type CellId, projectId, type TableName } from './grouping.ts'
import type { Table } from './tables.ts'

/**
 * The *then* side of a run made `--like BASELINE` (docs/method/pairs.md): the baseline's
 * builds and configs measured today, in the same rounds as today's. Its rows live in
 * `then/` beside the run's own tables, in the same files and columns, so that no reader
 * of the run's tables ever mixes them in; what each proxy's then side ran is `then/sides.json`.
 */
export const THEN_DIR = 'then'

/** How a then side got its binary (lib/setup/then-builds.ts), from the best to none. */
export const THEN_HOW = ['same build', 'copy', 'catalog', 'archive', 'substitute', 'not runnable'] as const

export const thenSideSchema = z
  .object({
    proxy: z.string(),
    /** The baseline's version of the proxy (its one-version series). */
    version: z.string(),
    /** The binary the baseline measured; null: the baseline recorded none. */
    baseline_sha256: z.string().nullable(),
    /** The binary measured as then today; null: none (same build measured once, or not runnable). */
    sha256: z.string().nullable(),
    how: z.enum(THEN_HOW),
    /** One line: what runs as then and why (a substitute or a gap is said here). */
    note: z.string(),
    /** Today's version of the proxy, the now side. */
    now_version: z.string(),
    /** Where the then configs came from: the baseline's kept templates, or today's (the baseline kept none). */
    configs: z.enum(['baseline', 'today']),
  })
  .strict()

export type ThenSide = z.infer<typeof thenSideSchema>

export const thenSidesSchema = z.object({ baseline: z.string().min(1), pair_same: z.boolean(), sides: z.array(thenSideSchema) }).strict()
export type ThenSides = z.infer<typeof thenSidesSchema>

const SIDES_FILE = join(THEN_DIR, 'sides.json')

export function readThenSides(runDir: string): ThenSides | undefined {
  return readJsonFile(join(runDir, SIDES_FILE), thenSidesSchema, 'Restore it from the run, or delete then/ (the run then has no then side)')
}

export function writeThenSides(runDir: string, sides: ThenSides): void {
  mkdirSync(join(runDir, THEN_DIR), { recursive: true })
  writeFileAtomic(join(runDir, SIDES_FILE), JSON.stringify(thenSidesSchema.parse(sides), null, 2) + '\n')
}

/** A run's copy of the templates it rendered (stacks/<proxy>/templates), kept by promote: a later run's then configs. */
export const TEMPLATES_DIR = 'templates'

/** The files of a then side a promoted baseline keeps (data, never raw output). */
export const THEN_KEPT = [SIDES_FILE]

const THEN_KEY = 'then|'

/**
 * A table's then twin: the same columns in `then/<file>`, its cells and repeats prefixed so
 * that a then cell never shares an identity with a now cell (resume, adaptive rounds).
 */
export function thenTable<T>(t: Table<T>): Table<T> {
  return { ...t, file: join(THEN_DIR, t.file), cellId: (r) => thenKey(t.cellId(r)), key: (r) => thenKey(t.key(r)) }
}

/** A now task's key (or cell) as its then twin's. */
export const thenKey = (key: string): string => THEN_KEY + key

/** A table's cell columns less the version: a pair's now and then rows share them. */
export const pairColumns = (table: TableName): string[] => CELL_COLUMNS[table].filter((c) => c !== 'version')

/** A row's cell without its version: its pair's other side has the same. */
export const pairCellId = (table: TableName, row: object): CellId => projectId(row, pairColumns(table))

/** Whether a key (or cell) is a then side's. */
export const isThenKey = (key: string): boolean => key.startsWith(THEN_KEY)
