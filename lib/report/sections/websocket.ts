import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { countCellColumns, findingList, k, statusText } from './common.ts'
import { precisionLine, withPrecision } from '../precision.ts'
import type { ArticleInput } from './input.ts'

/** WebSocket echo and hold cells, and the connections held of the target. */
export function websocketSection(a: Article, { aggregates, findings, run }: ArticleInput): ChartRequest[] {
  const ws = aggregates.cells.websocket
  if (ws.length === 0) return (a.skip('WebSocket', 'ws series'), [])
  a.heading(2, 'WebSocket')
  // The picture draws the hold and F8 below gives the figures; the table is for looking one up.
  a.siteOnly('Every WebSocket cell', () => {
    a.table(
      'websocket-cells',
      withPrecision([
        { title: 'mode', value: (c) => k(c, 'mode') },
        { title: 'proxy', value: (c) => k(c, 'proxy') },
        { title: 'version', value: (c) => k(c, 'version') },
        { title: 'variant', value: (c) => k(c, 'variant') },
        { title: 'target conns', value: (c) => k(c, 'conns_target') },
        { title: 'established', value: (c) => c.medians.conns_established },
        { title: 'µs/msg', value: (c) => c.summary?.median ?? null },
        { title: 'msg/s', value: (c) => c.medians.msg_rate },
        { title: 'p99 ms', value: (c) => c.medians.p99_ms },
        ...countCellColumns('msg'),
        { title: 'status', value: (c) => statusText(c) },
      ]),
      ws,
    )
    precisionLine(
      a,
      run?.manifest,
      ws.filter((c) => c.key.mode === 'echo'),
    )
  })
  findingList(a, findings, ['F8'])
  return []
}
