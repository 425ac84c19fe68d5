import type { PinnedVersions } from '../catalog/version-choice.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import type { ProxyName } from '../catalog/stack.ts'
import { closedTasks } from './tasks.ts'
import type { Series } from './types.ts'

/** Streams per connection (h2load -m): 1 is HTTP/1.1's one request in flight; 10 and 100 multiplex. */
export const H2_STREAMS = [1, 10, 100] as const
/** quick and smoke: one h2 cell per proxy (the like-for-like m=1) beside its HTTP/1.1 cell. */
export const QUICK_H2_STREAMS = [1] as const

/**
 * HTTP/2 from the client (docs/series/h2-resumption.md): every proxy's `h2` variant (an h2-capable TLS
 * listener; the backend side stays HTTP/1.1 with the pool of pool-added), measured with
 * h2load at each stream count (series `h2`) and with wrk over HTTP/1.1 through the very
 * same config (series `h2-h1`), so the h2/h1 ratio changes only the client's protocol.
 */
export function h2Cells(proxies: readonly ProxyName[], connections: number, profile: string, pinned?: PinnedVersions): CellPlan[] {
  const streams = profile === 'smoke' || profile === 'quick' ? QUICK_H2_STREAMS : H2_STREAMS
  return proxies.flatMap((p) => [
    catalogCellPlan(p, { series: 'h2-h1', variant: 'h2', connections, pinned }),
    ...streams.map((m) => ({ ...catalogCellPlan(p, { series: 'h2', variant: 'h2', connections, pinned }), streams: m })),
  ])
}

export function h2Series(): Series {
  return { name: 'h2', phases: [{ name: 'h2', tasks: (ctx) => closedTasks(h2Cells(ctx.proxies, ctx.connections, ctx.profile.name, ctx.plan.pinned), ctx) }] }
}
