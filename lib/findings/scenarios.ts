import { ratioInterval, type Interval } from '../core/intervals.ts'
import { noisyCells, projectId } from '../data/grouping.ts'
import { median } from '../core/stats.ts'
import type { Measurement } from '../data/schema.ts'
import { fmtIv } from './decide.ts'
import type { Finding } from './types.ts'

/** The `series` value of the scenarios rows (lib/series/scenarios.ts writes it). */
export const SCENARIOS_SERIES = 'scenarios'

export type ScenarioKind = 'https-http' | 'logging' | 'json' | 'conns'

/** What each ratio compares, in the article's words. */
export const SCENARIO_TITLES: Record<ScenarioKind, string> = {
  'https-http': 'HTTPS / plain HTTP (pool-added vs http)',
  logging: 'access log on / off (logging vs pool-added)',
  json: 'dynamic /json?size=N / static hello world (pool-added)',
  conns: "N connections / the profile's connections (http variant)",
}

/** One ratio of two scenario cells of a proxy: numerator / denominator medians, with the paired bootstrap interval. */
export interface ScenarioRatio {
  kind: ScenarioKind
  proxy: string
  version: string
  /** The numerator cell in words: the variant, path and size, connections. */
  numerator: string
  denominator: string
  metric: 'proxy_cpu_us_per_req' | 'rps' | 'backend_cpu_us_per_req' | 'proxy_syscalls_per_req'
  /** Medians of each side over valid rows. */
  a: number
  b: number
  interval: Interval
  /** Valid rows of each side. */
  n: [number, number]
}

type Pick = (r: Measurement) => boolean

const describe = (r: Measurement) => `${r.variant}${r.path === '/' ? '' : ` ${r.path}?size=${r.body_bytes}`}, ${r.connections} conns`

/**
 * The scenarios' ratios per proxy from a run's rows, each a / b over valid rows paired by
 * round (the cells of a ratio are measured in the same interleaved rounds):
 * https-http and logging on proxy CPU per request (and rps for logging: seed 004 speaks of
 * QPS), json on proxy CPU per request per body size (and the backend's for the direct row:
 * the cost of the body itself), conns on proxy CPU per request per connection count.
 */
export function scenarioRatios(rows: readonly Measurement[]): ScenarioRatio[] {
  const mine = rows.filter((r) => r.series === SCENARIOS_SERIES && r.model === 'closed')
  const reference = mine.find((r) => r.proxy !== 'direct' && r.variant === 'pool-added' && r.path === '/')
  const base = reference?.connections ?? mine.find((r) => r.proxy === 'direct' && r.path === '/')?.connections
  if (base === undefined) return []
  const out: ScenarioRatio[] = []
  const proxies = [...new Set(mine.map((r) => r.proxy))].sort((x, y) => (x === 'direct' ? 1 : y === 'direct' ? -1 : x.localeCompare(y)))
  // Per metric, every scenario cell with the series' pooled noise (core/intervals).
  const scenarioCell = ['proxy', 'variant', 'path', 'body_bytes', 'connections']
  const cellKey = (r: Measurement) => projectId(r, scenarioCell)
  const valid = mine.filter((r) => r.status === 'valid')
  const cells = Object.fromEntries(
    (['proxy_cpu_us_per_req', 'rps', 'backend_cpu_us_per_req', 'proxy_syscalls_per_req'] as const).map((m) => [
      m,
      noisyCells(valid, scenarioCell, (r) => r[m]),
    ]),
  )
  for (const proxy of proxies) {
    const own = valid.filter((r) => r.proxy === proxy)
    const ratio = (kind: ScenarioKind, metric: ScenarioRatio['metric'], num: Pick, den: Pick) => {
      const A = own.filter(num)
      const B = own.filter(den)
      const ra = A[0] && cells[metric]!.get(cellKey(A[0]))
      const rb = B[0] && cells[metric]!.get(cellKey(B[0]))
      if (!ra?.size || !rb?.size) return
      const interval = ratioInterval(ra, rb)
      out.push({
        kind,
        proxy,
        version: A[0]!.version,
        numerator: describe(A[0]!),
        denominator: describe(B[0]!),
        metric,
        a: median([...ra.values()]),
        b: median([...rb.values()]),
        interval,
        n: [ra.size, rb.size],
      })
    }
    const plain =
      (variant: string, conns = base): Pick =>
      (r) =>
        r.variant === variant && r.path === '/' && r.connections === conns
    const cost = proxy === 'direct' ? 'backend_cpu_us_per_req' : 'proxy_cpu_us_per_req'
    if (proxy !== 'direct') {
      ratio('https-http', cost, plain('pool-added'), plain('http'))
      // Every ratio under S2 is on / off, as its title: a log that costs shows CPU above 1 and rps below.
      ratio('logging', cost, plain('logging'), plain('pool-added'))
      ratio('logging', 'rps', plain('logging'), plain('pool-added'))
      // The counts behind the times: a log line is a write, TLS adds reads and writes of records (empty where not counted).
      ratio('https-http', 'proxy_syscalls_per_req', plain('pool-added'), plain('http'))
      ratio('logging', 'proxy_syscalls_per_req', plain('logging'), plain('pool-added'))
    }
    const ref = proxy === 'direct' ? 'direct' : 'pool-added'
    for (const size of [...new Set(own.flatMap((r) => (r.body_bytes ? [r.body_bytes] : [])))].sort((x, y) => x - y)) {
      ratio('json', cost, (r) => r.variant === ref && r.body_bytes === size && r.connections === base, plain(ref))
    }
    const connVariant = proxy === 'direct' ? 'direct' : 'http'
    for (const c of [...new Set(own.filter((r) => r.variant === connVariant && r.path === '/').map((r) => r.connections))]
      .filter((c) => c !== base)
      .sort((x, y) => x - y)) {
      ratio('conns', cost, plain(connVariant, c), plain(connVariant))
    }
  }
  return out
}

const ID: Record<ScenarioKind, string> = { 'https-http': 'S1', logging: 'S2', json: 'S3', conns: 'S4' }
const METRIC = { proxy_cpu_us_per_req: 'proxy CPU/req', backend_cpu_us_per_req: 'backend CPU/req', rps: 'rps', proxy_syscalls_per_req: 'syscalls/req' } as const

/**
 * The scenarios series as figures (info: no seed target here; the claims ledger judges
 * seed 003's and 004's published figures on the same cells): one finding per scenario,
 * each proxy's ratio with its interval.
 */
export function scenarioFindings(rows: readonly Measurement[]): Finding[] {
  const ratios = scenarioRatios(rows)
  return (Object.keys(ID) as ScenarioKind[]).flatMap((kind) => {
    const mine = ratios.filter((r) => r.kind === kind)
    if (mine.length === 0) return []
    const label = (r: (typeof mine)[number]) =>
      `${r.proxy} ${METRIC[r.metric]}${kind === 'json' || kind === 'conns' ? ` ${r.numerator.replace(/^\S+ ?/, '').replace(/, /, ' ')}` : ''}`
    return [
      {
        id: ID[kind],
        title: SCENARIO_TITLES[kind],
        verdict: 'info' as const,
        figure: mine.map((r) => `${label(r)} ${fmtIv(r.interval, 'x')}`).join('; '),
        intervals: mine.map((r) => ({ label: `${label(r)}: ${r.numerator} / ${r.denominator}`, interval: r.interval })),
      },
    ]
  })
}
