import type { PinnedVersions } from '../catalog/version-choice.ts'
import { hasVariant, loadStack, type ProxyName } from '../catalog/stack.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import { L4_MIX, L4_SERIES, type TcpMode } from '../measure/tcp.ts'
import { tcpTasks } from './tasks.ts'
import type { Series } from './types.ts'

/** The L4 variants of every stack that has them (stack.yaml `l4`). */
export const L4_VARIANTS = ['l4-tcp', 'l4-passthrough', 'l4-terminate'] as const

/**
 * quick: one cell of each kind per proxy, cheap: plain TCP short and stream, and the two
 * TLS variants short (where TLS costs most: a handshake per connection). standard and
 * full: every variant in both modes.
 */
export const QUICK_L4: Record<TcpMode, readonly string[]> = { short: L4_VARIANTS, stream: ['l4-tcp'] }

/** Proxies with L4 variants: Caddy has none (no catalog build carries the layer4 app: docs/series/l4.md). */
export const l4Proxies = (proxies: readonly ProxyName[]): ProxyName[] => proxies.filter((p) => Object.values(loadStack(p).variants).some((v) => v.l4))

/** The cells of one mode for a profile, on each proxy's newest version. */
export function l4Cells(proxies: readonly ProxyName[], mode: TcpMode, profile: string, pinned?: PinnedVersions): CellPlan[] {
  const variants = profile === 'smoke' || profile === 'quick' ? QUICK_L4[mode] : L4_VARIANTS
  return l4Proxies(proxies).flatMap((p) => {
    const stack = loadStack(p)
    return variants
      .filter((v) => hasVariant(stack, v))
      .filter((v) => stack.variants[v]?.l4)
      .map((variant) => catalogCellPlan(stack, { series: L4_SERIES[mode], variant, connections: L4_MIX[mode].connections, pinned }))
  })
}

export function l4Series(): Series {
  return {
    name: 'l4',
    phases: (['short', 'stream'] as const).map((mode) => ({
      name: L4_SERIES[mode],
      tasks: (ctx) => {
        const skipped = ctx.proxies.filter((p) => !l4Proxies([p]).length)
        if (skipped.length) ctx.log.info(`${L4_SERIES[mode]}: no L4 variant for ${skipped.join(', ')} (docs/series/l4.md)`)
        return tcpTasks(l4Cells(ctx.proxies, mode, ctx.profile.name, ctx.plan.pinned), mode, ctx)
      },
    })),
  }
}
