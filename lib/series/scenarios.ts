import type { Variant } from '../catalog/variants.ts'
import type { PinnedVersions } from '../catalog/version-choice.ts'
import { loadStack, type ProxyName } from '../catalog/stack.ts'
import { catalogCellPlan, directCell, type CellPlan } from '../measure/cell.ts'
import { overConnectionLimit, connectionLimit, type ConnectionLimit } from '../roles/limits.ts'
import { closedTasks } from './tasks.ts'
import type { Series } from './types.ts'

/**
 * The scenarios series (issue #16: plain HTTP, access logs, a dynamic endpoint, connection
 * counts): closed-model cells of measurements.csv, series `scenarios`, each beside the
 * reference it is a ratio of, measured in the same interleaved rounds:
 * - reference: pool-added, HTTPS, GET / (hello world), the profile's connections;
 * - http: the same config with a plain-HTTP listener (HTTPS / HTTP);
 * - logging: the same config with its access log on, to a file (on / off);
 * - json: the reference at GET /json?size=N, a body generated per request (dynamic / static);
 * - conns: the http variant at 500, 1000, 2000 connections (seed 003's plain HTTP with 1000,
 *   seed 004's L7 with 2000), against http at the profile's connections;
 * - seed 004's dynamic L7 test (standard, full): the http variant at /json?size=10240 with
 *   2000 connections, as its static one (plain HTTP, wrk 2000 keep-alive connections).
 * The direct rows (generator straight to the backend) give each request kind its floor.
 */
export const SCENARIOS_ROW = 'scenarios'

/** Body sizes of the /json cells: one (smoke, quick) or all (standard, full). */
export const JSON_SIZES = { one: [10240], all: [1024, 10240, 102400] } as const
/** Connection counts beyond the profile's own, from the articles' claims. */
export const CONNECTION_COUNTS = { one: [1000], all: [500, 1000, 2000] } as const
/** Seed 004's L7 set-up: plain HTTP, 2000 keep-alive connections; its dynamic endpoint as /json of 10 KiB. */
export const S004_L7 = { connections: 2000, bodyBytes: 10240 } as const

export interface ScenarioOptions {
  connections: number
  backendVersion: string
  set: 'one' | 'all'
  /** This machine's connection limit (lib/roles/limits.ts); a count above it is a failed row with the reason. */
  limit?: ConnectionLimit
  /** --pin-versions / --like: the version of each proxy instead of the newest. */
  pinned?: PinnedVersions
}

export function scenarioCells(proxies: readonly ProxyName[], o: ScenarioOptions): CellPlan[] {
  const limit = o.limit ?? connectionLimit()
  const series = SCENARIOS_ROW
  const counts = CONNECTION_COUNTS[o.set].filter((c) => c !== o.connections)
  const sized = (c: CellPlan): CellPlan => {
    const why = overConnectionLimit(c.connections, limit)
    return why ? { ...c, unrunnable: why } : c
  }
  const json = (c: CellPlan, bodyBytes: number): CellPlan => ({ ...c, path: '/json', bodyBytes })
  const floor = { ...directCell(o.backendVersion, o.connections), series }
  const s004 = o.set === 'all' && o.connections !== S004_L7.connections
  const cells: CellPlan[] = [floor, ...JSON_SIZES[o.set].map((n) => json(floor, n)), ...counts.map((n) => sized({ ...floor, connections: n }))]
  if (s004) cells.push(sized(json({ ...floor, connections: S004_L7.connections }, S004_L7.bodyBytes)))
  for (const proxy of proxies) {
    const stack = loadStack(proxy)
    const at = (variant: Variant, connections = o.connections) => catalogCellPlan(stack, { series, variant, connections, pinned: o.pinned })
    const reference = at('pool-added')
    cells.push(reference, at('http'), at('logging'), ...JSON_SIZES[o.set].map((n) => json(reference, n)), ...counts.map((n) => sized(at('http', n))))
    if (s004) cells.push(sized(json(at('http', S004_L7.connections), S004_L7.bodyBytes)))
  }
  return cells
}

export function scenariosSeries(): Series {
  return {
    name: 'scenarios',
    phases: [
      {
        name: 'scenarios',
        tasks: (ctx) =>
          closedTasks(
            scenarioCells(ctx.proxies, {
              connections: ctx.connections,
              backendVersion: ctx.backendVersion,
              set: ctx.profile.scenarioCells ?? 'all',
              pinned: ctx.plan.pinned,
            }),
            ctx,
          ),
      },
    ],
  }
}
