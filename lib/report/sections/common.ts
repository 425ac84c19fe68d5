import type { CellSummary } from '../../analysis/cells.ts'
import type { Aggregates } from '../../analysis/summary.ts'
import { Article, esc, num, pct, type Column } from '../markdown.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Finding } from './input.ts'

/** How a finding's verdict reads in the article. */
export const MARK: Record<Finding['verdict'], string> = { held: '✓ held', 'not held': '✗ not held', inconclusive: '? inconclusive', 'not measured': '· not measured', info: '• figure' }

/** Findings whose id is in `ids`, as a list with their verdict and figure. */
export function findingList(a: Article, findings: readonly Finding[], ids: readonly string[]) {
  const chosen = findings.filter((f) => ids.includes(f.id))
  if (chosen.length) a.bullets(chosen.map((f) => `**${f.id} ${esc(f.title)}**: ${MARK[f.verdict]}${f.figure ? `, ${esc(f.figure)}` : ''}`))
}

/** A chart and its image; with nothing to draw (every window of the run invalid or disturbed), one line instead of an empty chart. */
export function chartOrNote(a: Article, charts: ChartRequest[], chart: ChartRequest, alt: string) {
  if (chart.rows.length === 0) return a.para('*No chart: no cell has a valid value; the table says why.*')
  charts.push(chart)
  a.image(chart.path, alt)
}

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
export const countCellColumns = (unit: string): Column<CellSummary>[] => [
  { title: `syscalls/${unit}`, value: (c) => c.medians.proxy_syscalls_per_req ?? null },
  { title: `ctx sw/${unit}`, value: (c) => c.medians.proxy_ctxsw_per_req ?? null },
  { title: `sys µs/${unit}`, value: (c) => c.medians.proxy_sys_us_per_req ?? null },
]

/** Closed-model cells of the measurements table outside the TLS, scenarios and h2 series (the direct floor included). */
export const closedPoolingCells = (aggregates: Aggregates): CellSummary[] =>
  aggregates.cells.measurements.filter((c) => c.key.model === 'closed' && !String(c.key.series).startsWith('tls') && c.key.series !== 'scenarios' && !String(c.key.series).startsWith('h2'))

/** The closed pooling cells that went through a proxy (the direct floor left out). */
export const proxiedPoolingCells = (aggregates: Aggregates): CellSummary[] => closedPoolingCells(aggregates).filter((c) => c.key.proxy !== 'direct')
