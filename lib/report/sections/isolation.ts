import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { cellColumns, closedPoolingCells, countCellColumns, findingList } from './common.ts'
import type { ArticleInput } from './input.ts'

/** HAProxy's reuse settings and nginx's upstream keepalive, each against its article config. */
export function isolationSection(a: Article, { aggregates, findings }: ArticleInput): ChartRequest[] {
  const cells = closedPoolingCells(aggregates).filter((c) => c.key.series === 'haproxy-reuse' || c.key.series === 'nginx-keepalive')
  if (cells.length === 0) return (a.skip('nginx and HAProxy isolation', 'pooling series'), [])
  a.heading(2, 'nginx and HAProxy isolation')
  a.para(
    'HAProxy: `http-reuse never` against the article config, and `option http-server-close`, the one setting that really removes reuse. nginx: a literal `proxy_pass` against an `upstream` block with and without `keepalive`, on a version before and after 1.29.7.',
  )
  // F4 and F7 below give the figures; every cell with its CI and status is for looking up.
  a.siteOnly('Every isolation cell', () => {
    a.table(
      'isolation',
      [...cellColumns('CPU', 'µs/req'), { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req }, ...countCellColumns('req')],
      cells,
    )
  })
  findingList(a, findings, ['F4', 'F7'])
  return []
}
