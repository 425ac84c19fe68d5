import { existsSync, readFileSync } from 'node:fs'
import Papa from 'papaparse'
import type { z } from 'zod'
import { userError } from '../core/errors.ts'
import { writeFileAtomic } from '../core/atomic.ts'

type Row = Record<string, unknown>

const cell = (v: unknown) => (v === null || v === undefined ? '' : v)

/** Rows as CSV text in the given column order (a column a row lacks is empty). */
export const csvText = (fields: readonly string[], rows: readonly Row[]): string =>
  Papa.unparse({ fields: [...fields], data: rows.map((r) => fields.map((f) => r[f] ?? '')) }, { newline: '\n' }) + '\n'

/**
 * Appends rows to a CSV (header first when new) by rewriting it through a temp file,
 * so every completed measurement is on disk before the next one starts. The rows go by
 * the file's own header: an older file keeps its columns (a retired one's cells left empty).
 */
export function appendCsvRows(file: string, columns: readonly string[], rows: Row[]): void {
  const { text: old, fields } = withHeader(existsSync(file) ? readFileSync(file, 'utf8') : '', columns)
  const body = Papa.unparse({ fields, data: rows.map((r) => fields.map((c) => cell(r[c]))) }, { header: old === '', newline: '\n' })
  writeFileAtomic(file, old + (old && !old.endsWith('\n') ? '\n' : '') + body + '\n')
}

/**
 * Sets cells of rows already written (row i: the i-th row after the header, as readCsv
 * reads them), every other cell as it was; temp file + rename, as appending.
 */
export function setCsvCells(file: string, cells: ReadonlyMap<number, Record<string, string>>): void {
  const [header = [], ...rows] = Papa.parse<string[]>(readFileSync(file, 'utf8'), { skipEmptyLines: true }).data
  for (const [i, values] of cells) {
    const row = rows[i]
    if (!row) throw new Error(`${file}: no row ${i + 1} to set`)
    for (const [column, value] of Object.entries(values)) {
      const at = header.indexOf(column)
      if (at < 0) throw new Error(`${file}: no column ${column}`)
      row[at] = value
    }
  }
  writeFileAtomic(file, Papa.unparse({ fields: header, data: rows }, { newline: '\n' }) + '\n')
}

/**
 * The file's columns with those it lacks appended (a file written before columns were
 * added at the end, e.g. the resume of an older run): its header gets them and its rows
 * empty cells for them, so appended rows line up by name.
 */
function withHeader(text: string, columns: readonly string[]): { text: string; fields: string[] } {
  const nl = text.indexOf('\n')
  if (text === '' || nl < 0) return { text, fields: [...columns] }
  const header = text.slice(0, nl).split(',')
  const added = columns.filter((c) => !header.includes(c))
  const fields = [...header, ...added]
  if (added.length === 0) return { text, fields }
  const pad = ','.repeat(added.length)
  const rows = Papa.parse<string[]>(text.slice(nl + 1), { skipEmptyLines: true }).data
  return { text: [fields.join(','), ...rows.map((r) => Papa.unparse([r], { newline: '\n' }) + pad)].join('\n') + '\n', fields }
}

/**
 * Reads a CSV into rows checked by a zod schema: each of `columns` is what `cell` makes of
 * its text (undefined: the file has no such column; a value undefined is left out). The first bad row is a one-line error
 * with its line number.
 */
export function readCsv<S extends z.ZodTypeAny>(
  file: string,
  schema: S,
  columns: readonly string[],
  cell: (column: string, text: string | undefined) => unknown,
): z.infer<S>[] {
  const text = readFileSync(file, 'utf8')
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true })
  if (parsed.errors.length > 0) {
    const e = parsed.errors[0]!
    throw userError(`${file}:${(e.row ?? 0) + 2}`, `malformed CSV (${e.message})`, 'Fix or remove that line; other rows are kept')
  }
  return parsed.data.map((raw, i) => {
    const row: Row = {}
    for (const c of columns) {
      const value = cell(c, raw[c])
      // Undefined (an optional field's empty value) stays out of the row, as in one built without it.
      if (value !== undefined) row[c] = value
    }
    const r = schema.safeParse(row)
    if (!r.success) {
      const issue = r.error.issues[0]!
      throw userError(`${file}:${i + 2}`, `column ${issue.path.join('.')}: ${issue.message}`, 'Fix or remove that line; other rows are kept')
    }
    return r.data
  })
}
