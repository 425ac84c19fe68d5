import type { CellSummary } from '../../analysis/cells.ts'
import type { Aggregates } from '../../analysis/summary.ts'
import { type Article, esc, num, pct, type Column } from '../markdown.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { markedLabel, VERDICTS } from '../../core/verdict.ts'
import { badge } from '../render.ts'
import type { Finding } from './input.ts'

/** How a finding's verdict reads in the article: `✓ held`, `• figure`. */
export const MARK = (v: Finding['verdict']): string => markedLabel(v)

/** A finding's verdict as a coloured badge. */
export const findingBadge = (f: Pick<Finding, 'verdict'>) => badge(VERDICTS[f.verdict].badge)

/** Findings whose id is in `ids`, as a list with their verdict and figure. */
export function findingList(a: Article, findings: readonly Finding[], ids: readonly string[]) {
  const chosen = findings.filter((f) => ids.includes(f.id))
  if (chosen.length) a.bullets(chosen.map((f) => `**${f.id} ${esc(f.title)}**: ${MARK(f.verdict)}${f.figure ? `, ${esc(f.figure)}` : ''}`))
}

/** What a figure of the article says beside its chart: its unit, its load model, the verdicts it shows. */
export interface FigureText {
  /** The metric and what the marks are, e.g. "proxy CPU µs per request (median; bars: 95% CI of the median)". */
  unit: string
  /** How the load was made, e.g. "closed model: wrk, 200 keep-alive connections, 2 s windows". */
  model: string
  /** Extra words after the unit and model (Markdown, already escaped). */
  note?: string
}

/**
 * A chart with its caption line: unit and load model (in the SVG's subtitle too, so the PDF
 * says them) and a link to the CSV of exactly what is drawn (data/charts/<name>.csv).
 * With no rows, one line instead of an empty chart.
 */
export function figure(
  a: Article,
  charts: ChartRequest[],
  chart: ChartRequest,
  alt: string,
  text: FigureText,
  csvRows?: readonly Record<string, string | number | boolean | null | undefined>[],
): void {
  if (chart.rows.length === 0) {
    a.para('*No chart: no cell has a valid value; the table says why.*')
    return
  }
  // charts/x.svg → data/charts/x.csv; history/charts/x.svg → history/data/charts/x.csv
  const csv = chart.path.replace(/(^|\/)charts\//, '$1data/charts/').replace(/\.svg$/, '.csv')
  // The SVG names the load model under its title (the axis names the unit), so a printed chart says both.
  charts.push({ ...chart, options: { ...chart.options, subtitle: text.model } } as ChartRequest)
  a.image(chart.path, alt)
  a.csv(csv, (csvRows ?? chart.rows) as Record<string, string | number | boolean | null | undefined>[])
  a.para(`*Unit:* ${esc(text.unit)}. *Load:* ${esc(text.model)}.${text.note ? ` ${text.note}` : ''} [${csv.split('/').pop()}](${csv})`)
}

/** `000` from `000_ad6047c3dfc67502.txt`: a source article's number. */
export const articleNumber = (source: string) => source.replace(/_.*$/, '')

/** `article 000`: how the report names a source article in prose and in a row of its own. */
export const articleName = (source: string) => `article ${articleNumber(source)}`

/**
 * What carries over between runs and machines, said once for the run page and the history
 * page (docs/method/pairs.md): ratios within a run, counts and counted work do; raw µs do not.
 */
export const CARRIES_OVER =
  "What carries over between runs and machines: ratios between cells of one run, counts per request (system calls, backend connections) and the instructions the work series counts. Raw CPU µs per request do not, not even between two runs on one machine (it drifts 15-40%): a proxy's change across runs is read from a paired run (`--like`), which measures then and now in one run."

/** The closed model as the profile ran it (the pooling, versions and scenarios series). */
export const closedModelText = (p: { connections: number; threads: number; duration_s: number; warmup_s: number }) =>
  `closed model, wrk, ${p.connections} keep-alive connections, ${p.threads} thread${p.threads === 1 ? '' : 's'}, ${p.duration_s} s windows after ${p.warmup_s} s warm-up`

/** The CI of the median; with too few repeats for 95%, the interval's real coverage is shown. */
const ci = (c: CellSummary) => {
  const s = c.summary
  if (!s || s.n < 2) return '—'
  const range = `${num(s.ci[0])}–${num(s.ci[1])}`
  return s.ciLevel >= 0.95 ? range : `${range} (${Math.round(s.ciLevel * 100)}%)`
}
export const statusText = (c: { status: string; reasons?: string[] }) => (c.status === 'valid' ? 'valid' : `${c.status}: ${(c.reasons ?? []).join('; ')}`)
/** A key column of a cell (null when the table has no such column). */
export const k = (c: CellSummary, key: string) => c.key[key] ?? null

/** The columns every cell table starts with: the cell, its median, CI, CV, valid/n and status. */
export const cellColumns = (metric: string, unit: string): Column<CellSummary>[] => [
  { title: 'series', value: (c) => k(c, 'series') },
  { title: 'proxy', value: (c) => k(c, 'proxy') },
  { title: 'version', value: (c) => k(c, 'version') },
  { title: 'variant', value: (c) => k(c, 'variant') },
  { title: `${metric} ${unit}, median`, value: (c) => c.summary?.median ?? null },
  { title: 'CI of median', value: (c) => ci(c) },
  { title: 'CV', value: (c) => (c.summary ? pct(c.summary.cv) : null) },
  { title: 'valid/n', value: (c) => `${c.counts.valid}/${c.rows}` },
  { title: 'status', value: (c) => statusText(c) },
]

/** The kernel counts beside a cost (docs/method/counts.md): system calls and context switches per unit, and the system part of the CPU. */
/**
 * The proxy's kernel counts per unit. System calls are shown on the page where it has room
 * (`onPage`); context switches and system time, and everything of a table already as wide as
 * an A4 page, go to the table's CSV only.
 */
export const countCellColumns = (unit: string, onPage = true): Column<CellSummary>[] => [
  { title: `syscalls/${unit}`, value: (c) => c.medians.proxy_syscalls_per_req ?? null, csvOnly: !onPage },
  { title: `ctx sw/${unit}`, value: (c) => c.medians.proxy_ctxsw_per_req ?? null, csvOnly: true },
  { title: `sys µs/${unit}`, value: (c) => c.medians.proxy_sys_us_per_req ?? null, csvOnly: true },
]

/** Closed-model cells of the measurements table outside the TLS, scenarios and h2 series (the direct floor included). */
export const closedPoolingCells = (aggregates: Aggregates): CellSummary[] =>
  aggregates.cells.measurements.filter(
    (c) => c.key.model === 'closed' && !String(c.key.series).startsWith('tls') && c.key.series !== 'scenarios' && !String(c.key.series).startsWith('h2'),
  )

/** The closed pooling cells that went through a proxy (the direct floor left out). */
export const proxiedPoolingCells = (aggregates: Aggregates): CellSummary[] => closedPoolingCells(aggregates).filter((c) => c.key.proxy !== 'direct')
