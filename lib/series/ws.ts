import { holdVariants } from '../catalog/variants.ts'
import { interleavedOrder } from '../core/shuffle.ts'
import type { WebSocketRow } from '../data/schema.ts'
import { WEBSOCKETS } from '../data/tables.ts'
import { catalogCell, type Cell } from '../measure/cell.ts'
import { ECHO_CONNECTIONS, HOLD, measureEcho, measureHold } from '../measure/ws.ts'
import type { Series, SeriesContext, Task } from './types.ts'

function wsTasks(cells: Cell[], mode: 'echo' | 'hold', ctx: SeriesContext): Task[] {
  return interleavedOrder(cells, ctx.profile.repeats, ctx.seed).map(({ cell: c, repeat }) => ({
    label: `ws-${mode} ${c.proxy} ${c.variant} ${c.connections} conns r${repeat}`,
    table: WEBSOCKETS,
    key: WEBSOCKETS.key({ series: c.series, proxy: c.proxy, version: c.version, variant: c.variant, mode, conns_target: c.connections, repeat } as WebSocketRow),
    run: () => (mode === 'echo' ? measureEcho(c, repeat, ctx) : measureHold(c, repeat, ctx)),
  })) as Task[]
}

export function wsSeries(): Series {
  return {
    name: 'ws',
    phases: [
      { name: 'ws-echo', tasks: (ctx) => wsTasks(ctx.proxies.flatMap((p) => ['article', 'ws'].map((variant) => catalogCell(p, { series: 'ws-echo', variant, connections: ECHO_CONNECTIONS }))), 'echo', ctx) },
      {
        name: 'ws-hold',
        tasks: (ctx) => {
          const connections = (HOLD[ctx.profile.name] ?? HOLD.quick!).conns
          return wsTasks(ctx.proxies.flatMap((p) => holdVariants(p).map((variant) => catalogCell(p, { series: 'ws-hold', variant, connections }))), 'hold', ctx)
        },
      },
    ],
  }
}
