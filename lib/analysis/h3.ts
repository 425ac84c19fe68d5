import { medianInterval, ratioInterval, repeatsOf, type Interval } from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { groupBy, keyId } from '../data/grouping.ts'
import type { Measurement } from '../data/schema.ts'

/* HTTP/3 against HTTP/2 and HTTP/1.1 per proxy (series h3, beside h2): docs/series/h3.md. */

const valid = (rows: readonly Measurement[]) => rows.filter((r) => r.status === 'valid')
const cpuRepeats = (rows: readonly Measurement[]) => repeatsOf(valid(rows), (r) => r.proxy_cpu_us_per_req)
const interval = (r: Map<number, number>) => (r.size ? medianInterval(r) : null)
const med = (xs: (number | null)[]) => {
  const v = xs.filter((x): x is number => typeof x === 'number')
  return v.length ? median(v) : null
}
const notValid = (rows: readonly Measurement[]) => [...new Set(rows.filter((r) => r.status !== 'valid').map((r) => `${r.status}: ${r.reason}`))]

/** The prefix of a failed row for a proxy version that cannot speak HTTP/3 (lib/series/h3.ts). */
export const NOT_MEASURED_PREFIX = 'not measured: '

export interface H3Cost {
  proxy: string
  version: string
  /** Streams per connection of the h3 cell (and of the h2 cell it is set beside). */
  streams: number
  h3: Interval | null
  /** The h2 series' cell of the same proxy, version and streams, when the run has one. */
  h2: Interval | null
  /** wrk over HTTP/1.1 through the same h3 config (series h3-h1). */
  h1: Interval | null
  h3VsH1: Interval | null
  h3VsH2: Interval | null
  conns_per_1k: number | null
  p50_ms: number | null
  p99_ms: number | null
  valid: number
  rows: number
  reasons: string[]
}

export interface H3Summary {
  costs: H3Cost[]
  /** The direct row (generator to the backend's own HTTP/3 listener) per streams count: the floor. */
  direct: { streams: number; p50_ms: number | null; p99_ms: number | null; rps: number | null; valid: number; rows: number }[]
  /** Proxy versions that cannot speak HTTP/3, with the probe's reason. */
  notMeasured: { proxy: string; version: string; reason: string }[]
}

export function h3Summary(measurements: readonly Measurement[]): H3Summary {
  const h3 = measurements.filter((r) => r.series === 'h3')
  const missing = h3.filter((r) => r.status === 'failed' && r.reason.startsWith(NOT_MEASURED_PREFIX))
  const notMeasured = [...new Map(missing.map((r) => [keyId([r.proxy, r.version]), { proxy: r.proxy, version: r.version, reason: r.reason.slice(NOT_MEASURED_PREFIX.length) }])).values()]
  const measured = h3.filter((r) => !missing.includes(r))
  const byKey = groupBy(measured, (r) => [r.proxy, r.version, r.streams ?? 1])
  const direct = [...byKey.values()].filter((g) => g[0]!.proxy === 'direct').map((g) => ({
    streams: g[0]!.streams ?? 1, p50_ms: med(valid(g).map((r) => r.p50_ms)), p99_ms: med(valid(g).map((r) => r.p99_ms)), rps: med(valid(g).map((r) => r.rps)), valid: valid(g).length, rows: g.length,
  })).sort((a, b) => a.streams - b.streams)
  const costs = [...byKey.values()].filter((g) => g[0]!.proxy !== 'direct').map((g): H3Cost => {
    const { proxy, version } = g[0]!
    const streams = g[0]!.streams ?? 1
    const own = cpuRepeats(g)
    const h1 = cpuRepeats(measurements.filter((r) => r.series === 'h3-h1' && r.proxy === proxy && r.version === version))
    const h2 = cpuRepeats(measurements.filter((r) => r.series === 'h2' && r.proxy === proxy && r.version === version && (r.streams ?? 1) === streams))
    return {
      proxy, version, streams, h3: interval(own), h2: interval(h2), h1: interval(h1),
      h3VsH1: own.size && h1.size ? ratioInterval(own, h1) : null,
      h3VsH2: own.size && h2.size ? ratioInterval(own, h2) : null,
      conns_per_1k: med(valid(g).map((r) => r.backend_conns_per_1k_req)), p50_ms: med(valid(g).map((r) => r.p50_ms)), p99_ms: med(valid(g).map((r) => r.p99_ms)),
      valid: valid(g).length, rows: g.length, reasons: notValid(g),
    }
  }).sort((a, b) => a.proxy.localeCompare(b.proxy) || a.streams - b.streams)
  return { costs, direct, notMeasured }
}
