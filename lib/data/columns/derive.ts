import { z } from 'zod'
import { columnSince, type Column, type RowFile } from './column.ts'
import { NO_EMPTY, type NoEmpty } from './kinds.ts'

/**
 * What the code knows of a row file, derived from its entries in the column table: the
 * zod schema and row type, the column names, the blank row, and the reader's one rule for
 * files older than a column (docs/data.md#schema-versions).
 */

type ShapeOf<C extends Column> = Extract<{ [X in C as X['name']]: X['kind']['zod'] }, z.ZodRawShape>
export type RowSchema<C extends Column> = z.ZodObject<ShapeOf<C>, 'strip'>
/** The row type of a file: one field per column, of its kind's type. */
export type RowOf<F extends RowFile> = z.infer<RowSchema<F['columns'][number]>>

export function rowSchema<C extends Column>(f: RowFile<C>): RowSchema<C> {
  return z.object(Object.fromEntries(f.columns.map((c) => [c.name, c.kind.zod])) as ShapeOf<C>)
}

/** The file's header: its column names in file order. */
export const columnNames = <C extends Column>(f: RowFile<C>): readonly C['name'][] => f.columns.map((c) => c.name)

type BlankOf<C extends Column> = { [X in C as X['kind']['empty'] extends NoEmpty | undefined ? never : X['name']]: X['kind']['empty'] }

/**
 * Every column (of a file, or a group of its columns) that has an empty value, empty: the
 * row a protocol starts from; it sets the rest. An empty value `undefined` is left out, as
 * the reader leaves it out: an optional field.
 */
export function blankRow<C extends Column>(f: Pick<RowFile<C>, 'columns'>): BlankOf<C> {
  return Object.fromEntries(f.columns.filter((c) => c.kind.empty !== NO_EMPTY && c.kind.empty !== undefined).map((c) => [c.name, c.kind.empty])) as BlankOf<C>
}

/** The columns every file of the table written under schema version `version` has: those that appeared by then. */
export const requiredColumns = (f: RowFile, version: number): string[] => f.columns.filter((c) => columnSince(f, c) <= version).map((c) => c.name)

/**
 * What one CSV cell reads as. Empty, or absent because the file predates the column: the
 * column's empty value (a kind without one keeps it empty, and the schema rejects the row).
 * A number column's text is parsed.
 */
export function cellValue(c: Column, raw: string | undefined): unknown {
  if (raw === undefined || raw === '') return c.kind.empty !== NO_EMPTY ? c.kind.empty : c.kind.numeric ? null : raw
  return c.kind.numeric ? Number(raw) : raw
}

/** The schema version this harness writes: the highest any file or column of the table appeared in. */
export const latestVersion = (files: readonly RowFile[]): number => Math.max(...files.flatMap((f) => [f.since, ...f.columns.map((c) => c.since)]))

/** What each version added: new files with all their columns, and the columns appended to older files. */
export function versionHistory(files: readonly RowFile[]): { version: number; file: string; newFile: boolean; columns: string[] }[] {
  const out: { version: number; file: string; newFile: boolean; columns: string[] }[] = []
  for (let v = 1; v <= latestVersion(files); v++) {
    for (const f of files) {
      const added = f.columns.filter((c) => columnSince(f, c) === v).map((c) => c.name)
      if (added.length > 0) out.push({ version: v, file: f.file, newFile: f.since === v, columns: added })
    }
  }
  return out
}

/**
 * Entries the reader's rule cannot serve: a name twice in one file, a version below 1, a
 * column appended after its file without an empty value (files written before it could
 * not be read), and a column both written and retired. Empty: the table is sound.
 */
export function tableProblems(files: readonly RowFile[]): string[] {
  return files.flatMap((f) => [
    ...(Number.isInteger(f.since) && f.since >= 1 ? [] : [`${f.file}: version ${f.since} (versions count from 1)`]),
    ...f.columns.flatMap((c, i) => [
      ...(f.columns.findIndex((o) => o.name === c.name) === i ? [] : [`${f.file}: column ${c.name} twice`]),
      ...(Number.isInteger(c.since) && c.since >= 1 ? [] : [`${f.file}: column ${c.name} since ${c.since} (versions count from 1)`]),
      ...(c.kind.empty === NO_EMPTY && columnSince(f, c) > f.since
        ? [`${f.file}: column ${c.name} appeared after its file (version ${c.since}) but has no empty value for the files written before it`]
        : []),
    ]),
    ...f.retired.filter((r) => f.columns.some((c) => c.name === r)).map((r) => `${f.file}: column ${r} both written and retired`),
  ])
}
