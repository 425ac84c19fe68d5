import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { countCellColumns, findingList, k, statusText } from './common.ts'
import { precisionLine, withPrecision } from '../precision.ts'
import type { ArticleInput } from './input.ts'

/** WebSocket echo and hold cells, and the connections held of the target. */
export function websocketSection(a: Article, { aggregates, findings, run }: ArticleInput): ChartRequest[] {
  const charts: ChartRequest[] = []
  const ws = aggregates.cells.websocket
  a.heading(2, 'WebSocket')
  if (ws.length === 0) a.para('*Not measured in this run (ws series).*')
  else {
    a.table('websocket-cells', withPrecision([
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
    ]), ws)
    precisionLine(a, run?.manifest, ws.filter((c) => c.key.mode === 'echo'))
    const hold = ws.filter((c) => c.key.mode === 'hold')
    if (hold.length) {
      charts.push({
        path: 'charts/websocket-hold.svg', title: 'WebSocket connections established of the target', kind: 'bar',
        rows: hold.map((c) => ({ category: `${c.key.proxy} ${c.key.variant}`, value: c.medians.conns_established ?? 0 })),
        options: { valueTitle: `connections established (target ${hold[0]!.key.conns_target})` },
      })
      a.image('charts/websocket-hold.svg', 'WebSocket hold: connections established')
    }
  }
  findingList(a, findings, ['F8'])
  return charts
}
