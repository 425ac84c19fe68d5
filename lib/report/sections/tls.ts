import type { CellSummary } from '../../analysis/cells.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { cellColumns, countCellColumns, findingList, k } from './common.ts'
import { precisionLine, withPrecision } from '../precision.ts'
import type { ArticleInput } from './input.ts'

/** Proxy CPU per full TLS handshake by certificate key type, and its chart. */
export function tlsSection(a: Article, { aggregates, findings, run }: ArticleInput): ChartRequest[] {
  // Full handshakes of the tls series only: the resumption series has a section of its own.
  const hs = aggregates.cells.handshakes.filter((c) => c.key.series === 'tls-handshake')
  if (hs.length === 0) return (a.skip('TLS handshake cost', 'tls series'), [])
  a.heading(2, 'TLS handshake cost')
  a.para(
    'Full handshakes only (resumption off; a resumed handshake makes the row invalid), one GET each, classical key exchange. Proxy CPU per handshake by certificate key type.',
  )
  // The picture draws every cell and F5 below gives the ratios; the table is for looking one up.
  a.siteOnly('Every TLS handshake cell', () => {
    a.table(
      'handshake-cells',
      [
        ...withPrecision(cellColumns('CPU', 'µs/handshake')).map((c) =>
          c.title === 'variant' ? { title: 'key type', value: (x: CellSummary) => k(x, 'key_type') } : c,
        ),
        { title: 'handshakes/s', value: (c) => c.medians.rate },
        ...countCellColumns('handshake', false),
      ],
      hs,
    )
    precisionLine(a, run?.manifest, hs)
  })
  findingList(a, findings, ['F5'])
  return []
}
