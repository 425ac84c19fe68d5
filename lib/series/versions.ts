import { loadStack, type ProxyName } from '../catalog/stack.ts'
import { chooseVersions, type VersionChoice } from '../catalog/version-choice.ts'
import { VERSION_VARIANTS, type VersionVariant } from '../catalog/variants.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import { closedTasks } from './tasks.ts'
import type { Series } from './types.ts'

/**
 * Every catalog version of every proxy with its article config and with a pool added, in
 * one interleaved phase so versions are compared under the same conditions (seed 000:
 * nginx ≥ 1.29.7 slower on the article config; Traefik and Caddy across releases).
 */
export function versionCells(
  proxies: readonly ProxyName[],
  connections: number,
  choice: VersionChoice = { kind: 'all' },
  variants: readonly VersionVariant[] = VERSION_VARIANTS,
): CellPlan[] {
  return proxies.flatMap((proxy) => {
    const stack = loadStack(proxy)
    return chooseVersions(stack, choice).flatMap((version) =>
      variants.map((variant) => catalogCellPlan(stack, { series: 'versions', variant, connections, version })),
    )
  })
}

export function versionsSeries(): Series {
  return {
    name: 'versions',
    phases: [
      { name: 'versions', tasks: (ctx) => closedTasks(versionCells(ctx.proxies, ctx.connections, ctx.plan.versions, ctx.profile.versionVariants), ctx) },
    ],
  }
}
