import { CELL_SUMMARY_COLUMNS, DERIVED_METRIC_COLUMNS, OUTPUT_FILES } from './columns/summary.ts'
import { ROW_FILES } from './columns/table.ts'

/**
 * The data dictionary: the unit and meaning of every column of every CSV of a run, from the
 * column table (row files: lib/data/columns/table.ts; summary/*: lib/data/columns/summary.ts),
 * published as the site's `data/README.md`. A column means what its first file says in every
 * file unless FILE_COLUMNS says otherwise; summary statistics of a metric (`<metric>_median`, …)
 * are described from the metric's own entry. test/data/dictionary.test.ts checks that
 * every column is described.
 */

export interface ColumnDoc {
  unit: string
  meaning: string
}

const d = (unit: string, meaning: string): ColumnDoc => ({ unit, meaning })

/** What the dictionary reads of a file of the column table (row files and summary files). */
type DocFile = { file: string; columns: readonly { name: string; unit: string; meaning: string }[] }

/** Columns by name: unit and meaning as the first file that has the column says. */
export function rowColumnDocs(files: readonly DocFile[]): Record<string, ColumnDoc> {
  const out: Record<string, ColumnDoc> = {}
  for (const c of files.flatMap((f) => f.columns)) out[c.name] ??= d(c.unit, c.meaning)
  return out
}

/** Where a file's column means something other than its first file's (`general`: rowColumnDocs). */
export function rowFileDocs(files: readonly DocFile[], general: Record<string, ColumnDoc>): Record<string, Record<string, ColumnDoc>> {
  return Object.fromEntries(
    files.flatMap((f) => {
      const own = f.columns.filter((c) => general[c.name]?.unit !== c.unit || general[c.name]?.meaning !== c.meaning)
      return own.length ? [[f.file, Object.fromEntries(own.map((c) => [c.name, d(c.unit, c.meaning)]))]] : []
    }),
  )
}

const ROW_COLUMNS = rowColumnDocs(Object.values(ROW_FILES))
const ROW_FILE_DOCS = rowFileDocs(Object.values(ROW_FILES), ROW_COLUMNS)
const CELL_FILE = { file: 'summary/<table>.csv', columns: [...CELL_SUMMARY_COLUMNS, ...DERIVED_METRIC_COLUMNS] }

/** Columns by name, the same meaning in every file that has them: a row column as its first row file says, else a summary column. */
export const COLUMNS: Record<string, ColumnDoc> = { ...rowColumnDocs([CELL_FILE, ...OUTPUT_FILES]), ...ROW_COLUMNS }

/** A summary file's columns that a row column names but that mean something else there (status, proxy, version). */
const ownInSummary = (f: DocFile) => rowFileDocs([{ ...f, columns: f.columns.filter((c) => c.name in ROW_COLUMNS) }], ROW_COLUMNS)[f.file] ?? {}

/**
 * Where a column means something else in one file: a row file's own columns; a summary
 * column whose name a row column has; a cell summary's key columns as its row file has them
 * (summary/tcp.csv: mode and connections as tcp.csv says).
 */
export const FILE_COLUMNS: Record<string, Record<string, ColumnDoc>> = {
  ...ROW_FILE_DOCS,
  ...Object.fromEntries(Object.keys(ROW_FILES).map((t) => [`summary/${t}.csv`, { ...ROW_FILE_DOCS[`${t}.csv`], ...ownInSummary(CELL_FILE) }])),
  ...Object.fromEntries(OUTPUT_FILES.map((f) => [f.file, ownInSummary(f)])),
}

/** Summary statistics of a metric over a cell's valid repeats, by suffix. */
const STATS: [RegExp, string][] = [
  [/_median$/, "median over the cell's valid repeats of"],
  [/_min$/, 'smallest valid repeat of'],
  [/_max$/, 'largest valid repeat of'],
  [/_ci_lo$/, 'low end of the interval of the median of'],
  [/_ci_hi$/, 'high end of the interval of the median of'],
]

/** Row files' retired columns, by file: an older run's CSV in the site still has them. */
const RETIRED: Record<string, readonly string[]> = Object.fromEntries(Object.values(ROW_FILES).map((f) => [f.file, f.retired]))

/** A column of a file, or null when the dictionary does not describe it. */
export function describeColumn(file: string, column: string): ColumnDoc | null {
  const own = FILE_COLUMNS[file]?.[column] ?? COLUMNS[column]
  if (own) return own
  if (RETIRED[file]?.includes(column)) return d('', 'retired: written by an older harness, read past by this one (docs/data.md#retired-columns)')
  for (const [re, words] of STATS) {
    if (!re.test(column)) continue
    const base = COLUMNS[column.replace(re, '')]
    if (base) return { unit: base.unit, meaning: `${words} ${column.replace(re, '')}` }
  }
  return null
}

/** `data/README.md`: one table per CSV (its columns in file order). Undescribed columns say so. */
export function dataDictionary(files: readonly { path: string; columns: readonly string[] }[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|')
  const parts = [
    '# Data dictionary',
    '',
    "Every CSV of this run, its columns in file order, with units and meaning. The run's own CSVs have one row per measured repeat; `summary/` has one row per cell (statistics over valid repeats), the ratios, and the findings and claims with their 95% intervals. An empty value means not applicable or not measured.",
    '',
  ]
  for (const f of files) {
    parts.push(`## ${f.path}`, '', '| column | unit | meaning |', '|---|---|---|')
    for (const c of f.columns) {
      const doc = describeColumn(f.path.replace(/^data\//, ''), c)
      parts.push(`| \`${cell(c)}\` | ${cell(doc?.unit ?? '')} | ${cell(doc?.meaning ?? 'not described')} |`)
    }
    parts.push('')
  }
  return parts.join('\n')
}

/** The header of a CSV text (its first line), for the dictionary. */
export const csvHeader = (text: string): string[] =>
  (text.split('\n')[0] ?? '')
    .split(',')
    .map((s) => s.replace(/^"|"$/g, ''))
    .filter(Boolean)
