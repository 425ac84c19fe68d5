import { formatDelta, type Delta } from '../../analysis/compare.ts'
import type { PublishedDelta } from '../../analysis/published.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { BarRow } from '../charts.ts'
import { Article, esc, num, pct } from '../markdown.ts'

/** What the article shows of a baseline: deltas per cell (a promoted run) or per figure (published). */
export type BaselineComparison =
  | { id: string; kind: 'run'; title: string; machine: string; sameMachine: boolean; deltas: Delta[] }
  | { id: string; kind: 'published'; title: string; machine: string; sameMachine: false; deltas: PublishedDelta[] }

const WHY = 'Across machines only CPU microseconds per request (or per handshake, per message) and ratios between cells of one run are compared, never requests per second: a rate says what that bench allowed, the CPU a request costs says what the proxy costs.'

const CHART = 'charts/baseline.svg'
const cellName = (d: Delta) => [d.key.proxy, d.key.variant, d.key.key_type !== 'ec256' ? d.key.key_type : '', d.key.mode, d.key.target_rps ? `@${d.key.target_rps}` : ''].filter(Boolean).join(' ')

/** The section, and the chart of its deltas (none when no cell has one). */
export function baselineSection(a: Article, b: BaselineComparison | undefined): ChartRequest[] {
  a.heading(2, 'Comparison with the baseline')
  if (!b) {
    a.para('*No baseline given (`--baseline <id>`).* ' + WHY)
    return []
  }
  a.para(`Baseline **${esc(b.id)}**: ${esc(b.title)}. Baseline machine: ${esc(b.machine)}${b.sameMachine ? ' (the same machine as this run)' : ''}. ${WHY}`)
  if (b.kind === 'run') {
    a.para('Per cell: the medians, the change, and a Mann-Whitney U test over the repeats (α = 0.05); `~` means the difference is not significant. Cells are matched without the version: where it changed, the row says `old → new`.')
    a.table('baseline', [
      { title: 'table', value: (d) => d.table },
      { title: 'series', value: (d) => d.key.series ?? null },
      { title: 'proxy', value: (d) => d.key.proxy ?? null },
      { title: 'version', value: (d) => d.key.version ?? null },
      { title: 'cell', value: (d) => String(d.key.variant ?? '') + (d.key.key_type ? ` ${d.key.key_type}` : '') + (d.key.mode ? ` ${d.key.mode}` : '') + (d.key.target_rps ? ` @${d.key.target_rps} rps` : '') },
      { title: `baseline (${'µs'})`, value: (d) => d.base?.median ?? null },
      { title: 'this run (µs)', value: (d) => d.run?.median ?? null },
      { title: 'delta', value: (d) => formatDelta(d), show: (d) => (d.significant ? `**${esc(formatDelta(d))}**` : esc(formatDelta(d))) },
    ], b.deltas, 'No cell of this run is in the baseline.')
    // One bar per cell of the main series (the detail is in the table), coloured by significance.
    const rows = b.deltas.filter((d) => d.delta !== null && d.table === 'measurements' && ['same', 'pool-added', 'pool-removed'].includes(String(d.key.series)))
      .map((d) => ({ category: cellName(d), value: d.delta! * 100, group: d.significant ? 'significant (p < 0.05)' : '~ not significant' }))
    return chart(a, rows, 'Change of proxy CPU per request against the baseline, %')
  }
  a.para('The baseline is a published article whose tables did not survive: each quoted figure it states is matched with the cell of this run that measures the same thing. A published figure has no repeats, so no significance test is possible; the delta is shown as is.')
  a.table('baseline', [
    { title: 'figure', value: (d) => d.label },
    { title: 'published', value: (d) => d.published },
    { title: 'this run', value: (d) => d.ours === null ? null : num(d.ours), show: (d) => esc(d.oursText) },
    { title: 'delta', value: (d) => (d.delta === null ? null : pct(d.delta)) },
    { title: 'note', value: (d) => d.note },
  ], b.deltas, 'No figure of the baseline has a matching cell in this run.')
  const rows = b.deltas.filter((d) => d.delta !== null).map((d) => ({ category: d.label, value: d.delta! * 100 }))
  return chart(a, rows, 'This run against the published figure, %')
}

function chart(a: Article, rows: BarRow[], title: string): ChartRequest[] {
  if (rows.length === 0) return []
  a.image(CHART, title)
  return [{ path: CHART, title, kind: 'bar', rows, options: { horizontal: true, valueTitle: 'delta %' } }]
}
