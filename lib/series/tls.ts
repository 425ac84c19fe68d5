import type { PinnedVersions } from '../catalog/version-choice.ts'
import type { ProxyName } from '../catalog/stack.ts'
import type { RowSeries } from '../data/series.ts'
import { KEY_TYPES, type KeyType } from '../setup/certs.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import { OPEN_PREALLOC } from '../measure/open.ts'
import { closedTasks, defaultKeyTasks, handshakeTasks, openTasks } from './tasks.ts'
import { ACME_DEFAULT_PROXIES, ACME_DEFAULT_SERIES, DEFAULT_KEY_PROXIES, DEFAULT_KEY_SERIES, DEFAULT_KEY_VARIANT } from '../data/default-keys.ts'
import { CALIBRATION_STEPS, OPEN_RATES, openReference, rateAt, tlsCeilings, ceilingRows } from './open-rate.ts'
import type { Series, SeriesContext } from './types.ts'

/** Concurrent handshaking clients: enough to keep one proxy core busy, few enough not to saturate the generator. */
export const HANDSHAKE_WORKERS = 4
export const OPEN_MAX_VUS = 1000

const tlsCell = (proxy: ProxyName, series: RowSeries, keyType: KeyType, connections: number, pinned?: PinnedVersions): CellPlan =>
  catalogCellPlan(proxy, { series, variant: 'pool-added', keyType, connections, pinned })

/** Seed 004's TLS scenario (RSA-2048, HAProxy vs nginx): those two also get an RSA-2048 ceiling. */
export const RSA2048_CEILING_PROXIES: readonly ProxyName[] = ['haproxy', 'nginx']

/** Closed-model TLS ceilings: EC-256 for every proxy (the open-model rate comes from them), RSA-2048 for seed 004's pair. */
export const ceilingCells = (proxies: readonly ProxyName[], connections: number, pinned?: PinnedVersions): CellPlan[] => [
  ...proxies.map((p) => tlsCell(p, 'tls-ceiling', 'ec256', connections, pinned)),
  ...proxies.filter((p) => RSA2048_CEILING_PROXIES.includes(p)).map((p) => tlsCell(p, 'tls-ceiling', 'rsa2048', connections, pinned)),
]

/**
 * The default-cert cells, on the newest version: the key served when given no certificate
 * (Traefik's generated default certificate, Caddy's internal issuer), and Traefik's ACME
 * default key type as its binary states it (its own row series, ACME_DEFAULT_SERIES).
 */
export const defaultKeyCells = (proxies: readonly ProxyName[]): CellPlan[] => {
  const cells = (series: string, of: readonly string[]) =>
    proxies.filter((p) => of.includes(p)).map((p) => catalogCellPlan(p, { series, variant: DEFAULT_KEY_VARIANT, connections: 1 }))
  return [...cells(DEFAULT_KEY_SERIES, DEFAULT_KEY_PROXIES), ...cells(ACME_DEFAULT_SERIES, ACME_DEFAULT_PROXIES)]
}

export function tlsSeries(): Series {
  return {
    name: 'tls',
    phases: [
      {
        name: 'tls-handshake',
        tasks: (ctx) =>
          handshakeTasks(
            ctx.proxies.flatMap((p) => KEY_TYPES.map((kt) => tlsCell(p, 'tls-handshake', kt, HANDSHAKE_WORKERS, ctx.plan.pinned))),
            ctx,
          ),
      },
      { name: 'tls-ceiling', tasks: (ctx) => closedTasks(ceilingCells(ctx.proxies, ctx.connections, ctx.plan.pinned), ctx) },
      // What Traefik and Caddy serve when given no certificate (read from the handshake) and Traefik's ACME default (its --help): facts, not costs.
      { name: DEFAULT_KEY_SERIES, tasks: (ctx) => defaultKeyTasks(defaultKeyCells(ctx.proxies), ctx), adaptive: false },
      ...OPEN_RATES.map(({ series, fraction, what }) => ({
        name: series,
        tasks: (ctx: SeriesContext) => {
          const c = tlsCeilings(ceilingRows(ctx.runDir))
          const ref = openReference(c)
          if (!ref) {
            ctx.log.warn(`${series}: no valid closed-model ceiling, so no open-model rate: phase skipped`)
            return []
          }
          const rate = rateAt(fraction, ref.ceiling)
          const whose = ref.proxy === 'haproxy' ? "HAProxy's" : `the slowest proxy's (${ref.proxy}: no HAProxy ceiling in this run)`
          ctx.log.info(
            `${series}: ${rate} rps = ${what} ${(fraction * 100).toFixed(1)}% of ${whose} EC-256 closed ceiling, ${Math.round(ref.ceiling)} rps; VUs ${OPEN_PREALLOC}..${OPEN_MAX_VUS}`,
          )
          return openTasks(
            ctx.proxies.flatMap((p) => (['ec256', 'rsa4096'] as const).map((kt) => tlsCell(p, series, kt, OPEN_MAX_VUS, ctx.plan.pinned))),
            [rate],
            ctx,
          )
        },
      })),
      {
        name: 'tls-calibration',
        tasks: (ctx) => {
          const c = tlsCeilings(ceilingRows(ctx.runDir))
          const proxy = ctx.proxies.includes('haproxy') ? 'haproxy' : ctx.proxies[0]!
          const ceiling = c.get(proxy)
          if (!ceiling) return []
          const rates = CALIBRATION_STEPS.map((f) => rateAt(f, ceiling))
          return openTasks([tlsCell(proxy, 'tls-calibration', 'ec256', OPEN_MAX_VUS, ctx.plan.pinned)], rates, ctx)
        },
        // Steps of a curve (how the proxy's cost moves with the rate), not a cost to pin down: exactly the profile's rounds.
        adaptive: false,
      },
    ],
  }
}
