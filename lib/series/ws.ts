import { holdVariants } from '../catalog/variants.ts'
import { catalogCellPlan } from '../measure/cell.ts'
import { ECHO_CONNECTIONS, HOLD } from '../measure/ws.ts'
import { wsTasks } from './tasks.ts'
import type { Series } from './types.ts'

export function wsSeries(): Series {
  return {
    name: 'ws',
    phases: [
      {
        name: 'ws-echo',
        tasks: (ctx) =>
          wsTasks(
            ctx.proxies.flatMap((p) =>
              (['article', 'ws'] as const).map((variant) =>
                catalogCellPlan(p, { series: 'ws-echo', variant, connections: ECHO_CONNECTIONS, pinned: ctx.plan.pinned }),
              ),
            ),
            'echo',
            ctx,
          ),
      },
      {
        name: 'ws-hold',
        tasks: (ctx) => {
          const connections = (HOLD[ctx.profile.name] ?? HOLD.quick!).conns
          return wsTasks(
            ctx.proxies.flatMap((p) =>
              holdVariants(p).map((variant) => catalogCellPlan(p, { series: 'ws-hold', variant, connections, pinned: ctx.plan.pinned })),
            ),
            'hold',
            ctx,
          )
        },
        // Its result is a count (connections held), and a window lasts minutes: exactly the profile's rounds.
        adaptive: false,
      },
    ],
  }
}
