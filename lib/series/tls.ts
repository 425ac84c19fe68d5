import type { PinnedVersions } from '../catalog/version-choice.ts'
import type { ProxyName } from '../catalog/stack.ts'
import { summarize } from '../core/stats.ts'
import type { Measurement } from '../data/schema.ts'
import { MEASUREMENTS, readTable } from '../data/tables.ts'
import { KEY_TYPES, type KeyType } from '../setup/certs.ts'
import { catalogCell, type Cell } from '../measure/cell.ts'
import { OPEN_PREALLOC } from '../measure/open.ts'
import { closedTasks, handshakeTasks, openTasks } from './tasks.ts'
import type { Series } from './types.ts'

/** Concurrent handshaking clients: enough to keep one proxy core busy, few enough not to saturate the generator. */
export const HANDSHAKE_WORKERS = 4
/**
 * The open-model rate: this fraction of the slowest proxy's EC-256 closed-model ceiling
 * (the seed ran 15k rps against ceilings of 100-223k, i.e. 7-15%). At 50% on 2 cores
 * even EC-256 snowballed to the VU cap at start-up, each new VU paying a handshake.
 */
export const OPEN_FRACTION = 0.2
export const OPEN_MAX_VUS = 1000
/** Calibration steps, as fractions of HAProxy's closed-model ceiling. */
export const CALIBRATION_STEPS = [0.05, 0.1, 0.2, 0.4, 0.7, 1]

const tlsCell = (proxy: ProxyName, series: string, keyType: KeyType, connections: number, pinned?: PinnedVersions): Cell => catalogCell(proxy, { series, variant: 'pool-added', keyType, connections, pinned })

/** Median closed-model rps of each proxy's EC-256 ceiling cell (valid rows only). */
export function ceilings(rows: readonly Measurement[]): Map<string, number> {
  const by = new Map<string, number[]>()
  for (const r of rows) if (r.series === 'tls-ceiling' && r.key_type === 'ec256' && r.status === 'valid' && r.rps) by.set(r.proxy, [...(by.get(r.proxy) ?? []), r.rps])
  return new Map([...by].map(([p, v]) => [p, summarize(v).median]))
}

/** Seed 004's TLS scenario (RSA-2048, HAProxy vs nginx): those two also get an RSA-2048 ceiling. */
export const RSA2048_CEILING_PROXIES: readonly ProxyName[] = ['haproxy', 'nginx']

/** Closed-model TLS ceilings: EC-256 for every proxy (the open-model rate comes from them), RSA-2048 for seed 004's pair. */
export const ceilingCells = (proxies: readonly ProxyName[], connections: number, pinned?: PinnedVersions): Cell[] => [
  ...proxies.map((p) => tlsCell(p, 'tls-ceiling', 'ec256', connections, pinned)),
  ...proxies.filter((p) => RSA2048_CEILING_PROXIES.includes(p)).map((p) => tlsCell(p, 'tls-ceiling', 'rsa2048', connections, pinned)),
]

/** A fraction of a closed-model ceiling as an open-model rate: whole hundreds, at least 100. */
export const rateAt = (fraction: number, ceilingRps: number): number => Math.max(100, Math.round((fraction * ceilingRps) / 100) * 100)

/** The open-model rate: a stated fraction of the slowest proxy's ceiling, in hundreds. */
export function openRate(c: Map<string, number>): number | null {
  return c.size === 0 ? null : rateAt(OPEN_FRACTION, Math.min(...c.values()))
}

export function tlsSeries(): Series {
  return {
    name: 'tls',
    phases: [
      {
        name: 'tls-handshake',
        tasks: (ctx) => handshakeTasks(ctx.proxies.flatMap((p) => KEY_TYPES.map((kt) => tlsCell(p, 'tls-handshake', kt, HANDSHAKE_WORKERS, ctx.pinned))), ctx),
      },
      { name: 'tls-ceiling', tasks: (ctx) => closedTasks(ceilingCells(ctx.proxies, ctx.connections, ctx.pinned), ctx) },
      {
        name: 'tls-open',
        tasks: (ctx) => {
          const rate = openRate(ceilings(readTable(ctx.runDir, MEASUREMENTS)))
          if (rate === null) {
            ctx.log.warn('tls-open: no valid closed-model ceiling, so no open-model rate: phase skipped')
            return []
          }
          ctx.log.info(`tls-open: ${rate} rps = ${OPEN_FRACTION * 100}% of the slowest proxy's EC-256 closed ceiling; VUs ${OPEN_PREALLOC}..${OPEN_MAX_VUS}`)
          return openTasks(ctx.proxies.flatMap((p) => (['ec256', 'rsa4096'] as const).map((kt) => tlsCell(p, 'tls-open', kt, OPEN_MAX_VUS, ctx.pinned))), [rate], ctx)
        },
      },
      {
        name: 'tls-calibration',
        tasks: (ctx) => {
          const c = ceilings(readTable(ctx.runDir, MEASUREMENTS))
          const proxy = ctx.proxies.includes('haproxy') ? 'haproxy' : ctx.proxies[0]!
          const ceiling = c.get(proxy)
          if (!ceiling) return []
          const rates = CALIBRATION_STEPS.map((f) => rateAt(f, ceiling))
          return openTasks([tlsCell(proxy, 'tls-calibration', 'ec256', OPEN_MAX_VUS, ctx.pinned)], rates, ctx)
        },
        // Steps of a curve (how the proxy's cost moves with the rate), not a cost to pin down: exactly the profile's rounds.
        adaptive: false,
      },
    ],
  }
}
