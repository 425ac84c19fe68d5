import type { Variant } from '../catalog/variants.ts'
import type { PinnedVersions } from '../catalog/version-choice.ts'
import { loadStack, type ProxyName } from '../catalog/stack.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import { handshakeTasks } from './tasks.ts'
import { HANDSHAKE_WORKERS } from './tls.ts'
import type { Series } from './types.ts'

type Resumption = NonNullable<CellPlan['resumption']>

/**
 * What the client offers: nothing (every handshake full, the reference), TLS 1.3 tickets
 * (a PSK handshake that still runs a key exchange) and TLS 1.2 tickets (abbreviated: no
 * key exchange, no signature). Go's client has no session-ID resumption (docs/series/h2-resumption.md).
 */
export const RESUMPTIONS: readonly Resumption[] = ['none', 'tickets', 'tickets-tls12']
export const QUICK_RESUMPTIONS: readonly Resumption[] = ['none', 'tickets']

/**
 * The proxy's default config (pool-added, as the tls series) and, where a proxy has one,
 * its `session-cache` variant with the documented cache settings (shared/reference/proxy-defaults.md).
 */
export function resumptionCells(proxies: readonly ProxyName[], profile: string, pinned?: PinnedVersions): CellPlan[] {
  const quick = profile === 'smoke' || profile === 'quick'
  return proxies.flatMap((p) => {
    const variants: Variant[] = ['pool-added', ...(!quick && loadStack(p).variants['session-cache'] ? (['session-cache'] as const) : [])]
    return variants.flatMap((variant) =>
      (quick ? QUICK_RESUMPTIONS : RESUMPTIONS).map((resumption) => ({
        ...catalogCellPlan(p, { series: 'resumption', variant, keyType: 'ec256', connections: HANDSHAKE_WORKERS, pinned }),
        resumption,
      })),
    )
  })
}

export function resumptionSeries(): Series {
  return {
    name: 'resumption',
    phases: [{ name: 'resumption', tasks: (ctx) => handshakeTasks(resumptionCells(ctx.proxies, ctx.profile.name, ctx.plan.pinned), ctx) }],
  }
}
