import type { RowFile } from './columns/column.ts'
import { ROW_FILES } from './columns/table.ts'

/**
 * The data dictionary: the unit and meaning of every column of every CSV of a run (the row
 * files from the column table, lib/data/columns/table.ts; summary/* here), published as the
 * site's `data/README.md`. A column means what its first row file says in every file
 * unless FILE_COLUMNS says otherwise; summary statistics of a metric (`<metric>_median`, …)
 * are described from the metric's own entry. test/data/dictionary.test.ts checks that
 * every column is described.
 */

export interface ColumnDoc {
  unit: string
  meaning: string
}

const d = (unit: string, meaning: string): ColumnDoc => ({ unit, meaning })

/** Row columns by name: unit and meaning as the first row file that has the column says. */
export function rowColumnDocs(files: readonly RowFile[]): Record<string, ColumnDoc> {
  const out: Record<string, ColumnDoc> = {}
  for (const c of files.flatMap((f) => f.columns)) out[c.name] ??= d(c.unit, c.meaning)
  return out
}

/** Where a row file's column means something other than its first file's (`general`: rowColumnDocs). */
export function rowFileDocs(files: readonly RowFile[], general: Record<string, ColumnDoc>): Record<string, Record<string, ColumnDoc>> {
  return Object.fromEntries(
    files.flatMap((f) => {
      const own = f.columns.filter((c) => general[c.name]?.unit !== c.unit || general[c.name]?.meaning !== c.meaning)
      return own.length ? [[f.file, Object.fromEntries(own.map((c) => [c.name, d(c.unit, c.meaning)]))]] : []
    }),
  )
}

const ROW_COLUMNS = rowColumnDocs(Object.values(ROW_FILES))

/** Columns by name, the same meaning in every file that has them. */
export const COLUMNS: Record<string, ColumnDoc> = {
  ...ROW_COLUMNS,
  // summary/{measurements,handshakes,websocket}.csv: one row per cell.
  rows: d('count', 'rows of the cell (all repeats, any status)'),
  valid: d('count', 'valid rows of the cell'),
  invalid: d('count', 'invalid rows of the cell'),
  failed: d('count', 'failed rows of the cell'),
  ci_level: d('probability', "real coverage of the median's interval (below 0.95 with fewer than 6 repeats)"),
  cv: d('fraction', 'coefficient of variation of the primary metric over valid rows'),
  ci_halfwidth_pct: d('%', "half-width of the 95% interval of the cost metric's median, relative to it (the adaptive repeats' target)"),
  ci_halfwidth_level: d('probability', 'coverage of that interval'),
  disturbed: d('count', 'windows of the cell marked disturbed'),
  unstable: d(
    'boolean',
    "its repeats disagree beyond the pooled noise of the table's cells under its load model (p < 0.001): figures on it are widened by its own spread",
  ),
  reasons: d('', "the distinct reasons of the cell's invalid and failed rows"),
  warnings: d('', 'what to keep in mind reading the figure (few repeats, rows excluded, noisy cell)'),
  errors_pct: d('%', 'errors / (requests + errors)'),
  // summary/ratios.csv
  name: d('', 'the ratio: pool effect, pool-removed spread, proxy vs direct, …'),
  value: d('ratio or figure', 'the value (findings.csv: the figure the verdict was decided on)'),
  numerator: d('', 'the numerator cell and its median'),
  denominator: d('', 'the denominator cell and its median'),
  comparable: d('boolean', 'false for ratios of rates (RPS): never compared across machines'),
  // summary/findings.csv and summary/claims.csv
  id: d('', 'the finding (F1-F8) or claim id (baselines/published/claims.yaml)'),
  title: d('', 'the finding as the seed stated it'),
  verdict: d(
    '',
    'findings: held, not held, inconclusive, not measured, info; claims: reproduced, not reproduced, inconclusive, not measured, not runnable here',
  ),
  figure: d('', "the finding's figures in words"),
  label: d('', 'which figure of the finding the interval belongs to'),
  lo: d('as value', 'low end of the 95% interval'),
  hi: d('as value', 'high end of the 95% interval'),
  level: d('probability', "the interval's coverage (order statistics: exact, below 0.95 with few repeats)"),
  method: d('', 'how the interval was computed: order statistics, (paired) bootstrap, single repeat'),
  n: d('count', 'fewest repeats of any cell behind the figure'),
  source: d('', 'the seed article the claim comes from'),
  finding: d('', 'the finding the claim belongs to, if any'),
  expect: d('', "the claim's check in words"),
  measured: d('', 'what this run shows, with numbers'),
  interval_method: d('', "how the claim value's interval was computed"),
  reference: d('as value', 'what the check centres the value on (the published figure, 1, …)'),
  comparable_across_machines: d('boolean', "whether the claim may be judged against another machine's figures"),
}

/** Where a column means something else in one file. */
export const FILE_COLUMNS: Record<string, Record<string, ColumnDoc>> = {
  ...rowFileDocs(Object.values(ROW_FILES), ROW_COLUMNS),
  'summary/tcp.csv': { mode: d('', 'short or stream'), connections: d('count', 'concurrent workers') },
  'summary/ratios.csv': { proxy: d('', 'the proxy the ratio is about'), version: d('', 'its version') },
}

/** Summary statistics of a metric over a cell's valid repeats, by suffix. */
const STATS: [RegExp, string][] = [
  [/_median$/, "median over the cell's valid repeats of"],
  [/_min$/, 'smallest valid repeat of'],
  [/_max$/, 'largest valid repeat of'],
  [/_ci_lo$/, 'low end of the interval of the median of'],
  [/_ci_hi$/, 'high end of the interval of the median of'],
]

/** A column of a file, or null when the dictionary does not describe it. */
export function describeColumn(file: string, column: string): ColumnDoc | null {
  const own = FILE_COLUMNS[file]?.[column] ?? COLUMNS[column]
  if (own) return own
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
