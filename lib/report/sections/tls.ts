import type { CellSummary } from '../../analysis/cells.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { cellColumns, chartOrNote, countCellColumns, findingList, k } from './common.ts'
import { precisionLine, withPrecision } from '../precision.ts'
import type { ArticleInput } from './input.ts'

/** Proxy CPU per full TLS handshake by certificate key type, and its chart. */
export function tlsSection(a: Article, { aggregates, findings, run }: ArticleInput): ChartRequest[] {
  const charts: ChartRequest[] = []
  // Full handshakes of the tls series only: the resumption series has a section of its own.
  const hs = aggregates.cells.handshakes.filter((c) => c.key.series === 'tls-handshake')
  a.heading(2, 'TLS handshake cost')
  if (hs.length === 0) a.para('*Not measured in this run (tls series).*')
  else {
    a.para('Full handshakes only (resumption off; a resumed handshake makes the row invalid), one GET each, classical key exchange. Proxy CPU per handshake by certificate key type.')
    a.table('handshake-cells', [...withPrecision(cellColumns('CPU', 'µs/handshake')).map((c) => (c.title === 'variant' ? { title: 'key type', value: (x: CellSummary) => k(x, 'key_type') } : c)),
      { title: 'handshakes/s', value: (c) => c.medians.rate }, ...countCellColumns('handshake')], hs)
    precisionLine(a, run?.manifest, hs)
    chartOrNote(a, charts, {
      path: 'charts/handshakes.svg', title: 'Proxy CPU per full handshake by key type', kind: 'bar',
      rows: hs.flatMap((c) => (c.summary ? [{ category: `${c.key.proxy} ${c.key.version}`, group: String(c.key.key_type), value: c.summary.median, lo: c.summary.min, hi: c.summary.max }] : [])),
      options: { valueTitle: 'proxy CPU µs / handshake (median, min–max)' },
    }, 'Proxy CPU per full handshake by key type')
  }
  findingList(a, findings, ['F5'])
  return charts
}
