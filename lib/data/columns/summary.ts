/**
 * The column table's second part: the summary CSVs a run's report writes (summary/*.csv), each
 * column once with its unit and meaning, each file's list in file order. The row files are in
 * ./table.ts; a cell summary's key columns and its metric statistics (`<metric>_median`, …)
 * are the row table's columns and are described from it. lib/analysis/summary.ts and
 * lib/report/summary-export.ts write these columns in this order; lib/data/dictionary.ts
 * describes them from here.
 */

export interface OutputColumn<N extends string = string> {
  name: N
  unit: string
  meaning: string
}

const out = <N extends string>(name: N, unit: string, meaning: string): OutputColumn<N> => ({ name, unit, meaning })

/** One CSV of summary/: its file and its columns in file order. */
export interface OutputFile<C extends OutputColumn = OutputColumn> {
  file: string
  columns: readonly C[]
}

/** Columns several summary files have, the same meaning in each. */
const value = out('value', 'ratio or figure', 'the value (findings.csv: the figure the verdict was decided on)')
const lo = out('lo', 'as value', 'low end of the 95% interval')
const hi = out('hi', 'as value', 'high end of the 95% interval')
const warnings = out('warnings', '', 'what to keep in mind reading the figure (few repeats, rows excluded, noisy cell)')
const id = out('id', '', 'the finding (F1-F8) or claim id (baselines/published/claims.yaml)')
const verdict = out(
  'verdict',
  '',
  'findings: held, not held, inconclusive, not measured, info; claims: reproduced, not reproduced, inconclusive, not measured, not runnable here',
)

/**
 * summary/{measurements,handshakes,websocket,tcp}.csv, one row per cell: the cell's key columns,
 * then COUNTS, the primary metric's statistics, SPREAD, the secondary metrics' medians, NOTES.
 */
export const CELL_SUMMARY = {
  counts: [
    out('rows', 'count', 'rows of the cell (all repeats, any status)'),
    out('valid', 'count', 'valid rows of the cell'),
    out('invalid', 'count', 'invalid rows of the cell'),
    out('failed', 'count', 'failed rows of the cell'),
    out('status', '', "the cell's status: the most common status of its rows (valid, invalid or failed)"),
  ],
  spread: [
    out('ci_level', 'probability', "real coverage of the median's interval (below 0.95 with fewer than 6 repeats)"),
    out('cv', 'fraction', 'coefficient of variation of the primary metric over valid rows'),
    out('ci_halfwidth_pct', '%', "half-width of the 95% interval of the cost metric's median, relative to it (the adaptive repeats' target)"),
    out('ci_halfwidth_level', 'probability', 'coverage of that interval'),
    out('disturbed', 'count', 'windows of the cell marked disturbed'),
    out(
      'unstable',
      'boolean',
      "its repeats disagree beyond the pooled noise of the table's cells under its load model (p < 0.001): figures on it are widened by its own spread",
    ),
  ],
  notes: [out('reasons', '', "the distinct reasons of the cell's invalid and failed rows"), warnings],
} as const

/** Metrics a cell summary has that no row column is (their statistics are described from these). */
export const DERIVED_METRIC_COLUMNS = [out('errors_pct', '%', 'errors / (requests + errors)')] as const

/** summary/ratios.csv: the derived ratios (lib/analysis/derived.ts Ratio). */
export const RATIOS = {
  file: 'summary/ratios.csv',
  columns: [
    out('name', '', 'the ratio: pool effect, pool-removed spread, proxy vs direct, …'),
    out('proxy', '', 'the proxy the ratio is about'),
    out('version', '', 'its version'),
    value,
    out('numerator', '', 'the numerator cell and its median'),
    out('denominator', '', 'the denominator cell and its median'),
    out('comparable', 'boolean', 'false for ratios of rates (RPS): never compared across machines'),
    warnings,
  ],
} as const satisfies OutputFile

/** summary/findings.csv: one row per interval of each finding. */
export const FINDINGS = {
  file: 'summary/findings.csv',
  columns: [
    id,
    out('title', '', 'the finding as the seed stated it'),
    verdict,
    out('figure', '', "the finding's figures in words"),
    out('label', '', 'which figure of the finding the interval belongs to'),
    value,
    lo,
    hi,
    out('level', 'probability', "the interval's coverage (order statistics: exact, below 0.95 with few repeats)"),
    out('method', '', 'how the interval was computed: order statistics, (paired) bootstrap, single repeat'),
    out('n', 'count', 'fewest repeats of any cell behind the figure'),
  ],
} as const satisfies OutputFile

/** summary/claims.csv: one row per claim of the ledger. */
export const CLAIMS = {
  file: 'summary/claims.csv',
  columns: [
    id,
    out('source', '', 'the seed article the claim comes from'),
    out('finding', '', 'the finding the claim belongs to, if any'),
    verdict,
    out('expect', '', "the claim's check in words"),
    out('measured', '', 'what this run shows, with numbers'),
    value,
    lo,
    hi,
    out('interval_method', '', "how the claim value's interval was computed"),
    out('reference', 'as value', 'what the check centres the value on (the published figure, 1, …)'),
    out('comparable_across_machines', 'boolean', "whether the claim may be judged against another machine's figures"),
    warnings,
  ],
} as const satisfies OutputFile

/** A file's column names, in file order. */
export const outputNames = <C extends OutputColumn>(f: { columns: readonly C[] }): C['name'][] => f.columns.map((c) => c.name)

/** A cell summary's columns with a fixed name, in file order (its key columns and statistics aside). */
export const CELL_SUMMARY_COLUMNS = [...CELL_SUMMARY.counts, ...CELL_SUMMARY.spread, ...CELL_SUMMARY.notes] as const

/** The summary files of fixed columns. */
export const OUTPUT_FILES: readonly OutputFile[] = [RATIOS, FINDINGS, CLAIMS]
