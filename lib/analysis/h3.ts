import { repeatsOf, type Interval } from '../core/intervals.ts'
import { groupBy, keyId } from '../data/grouping.ts'
import type { Handshake, Measurement } from '../data/schema.ts'
import { SERIES_ROWS } from '../data/series.ts'
import { medianOfGiven, pairedRatio, repeatsInterval, rowCounts, validRows } from './cell-figures.ts'

/* HTTP/3 against HTTP/2 and HTTP/1.1 per proxy (series h3, beside h2), and QUIC handshakes against TCP+TLS ones: docs/series/h3.md. */

const cpuRepeats = (rows: readonly Measurement[]) => repeatsOf(validRows(rows), (r) => r.proxy_cpu_us_per_req)

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
  /** UDP datagrams both ways per request (median of the valid repeats); null where not counted. */
  datagrams_per_req: number | null
  p50_ms: number | null
  p99_ms: number | null
  valid: number
  rows: number
  reasons: string[]
}

export interface H3Summary {
  costs: H3Cost[]
  /** The direct row (generator to the backend's own HTTP/3 listener) per streams count: the floor. */
  direct: { streams: number; p50_ms: number | null; p99_ms: number | null; rps: number | null; datagrams_per_req: number | null; valid: number; rows: number }[]
  /** Proxy versions that cannot speak HTTP/3, with the probe's reason. */
  notMeasured: { proxy: string; version: string; reason: string }[]
}

export function h3Summary(measurements: readonly Measurement[]): H3Summary {
  const h3 = measurements.filter((r) => r.series === 'h3')
  const missing = h3.filter((r) => r.status === 'failed' && r.reason.startsWith(NOT_MEASURED_PREFIX))
  const notMeasured = [
    ...new Map(
      missing.map((r) => [keyId([r.proxy, r.version]), { proxy: r.proxy, version: r.version, reason: r.reason.slice(NOT_MEASURED_PREFIX.length) }]),
    ).values(),
  ]
  const measured = h3.filter((r) => !missing.includes(r))
  const byKey = groupBy(measured, (r) => [r.proxy, r.version, r.streams ?? 1])
  const direct = [...byKey.values()]
    .filter((g) => g[0]!.proxy === 'direct')
    .map((g) => ({
      streams: g[0]!.streams ?? 1,
      p50_ms: medianOfGiven(validRows(g).map((r) => r.p50_ms)),
      p99_ms: medianOfGiven(validRows(g).map((r) => r.p99_ms)),
      rps: medianOfGiven(validRows(g).map((r) => r.rps)),
      datagrams_per_req: medianOfGiven(validRows(g).map((r) => r.udp_datagrams_per_req)),
      valid: validRows(g).length,
      rows: g.length,
    }))
    .sort((a, b) => a.streams - b.streams)
  const costs = [...byKey.values()]
    .filter((g) => g[0]!.proxy !== 'direct')
    .map((g): H3Cost => {
      const { proxy, version } = g[0]!
      const streams = g[0]!.streams ?? 1
      const own = cpuRepeats(g)
      const h1 = cpuRepeats(measurements.filter((r) => r.series === 'h3-h1' && r.proxy === proxy && r.version === version))
      const h2 = cpuRepeats(measurements.filter((r) => r.series === 'h2' && r.proxy === proxy && r.version === version && (r.streams ?? 1) === streams))
      return {
        proxy,
        version,
        streams,
        h3: repeatsInterval(own),
        h2: repeatsInterval(h2),
        h1: repeatsInterval(h1),
        h3VsH1: pairedRatio(own, h1),
        h3VsH2: pairedRatio(own, h2),
        conns_per_1k: medianOfGiven(validRows(g).map((r) => r.backend_conns_per_1k_req)),
        datagrams_per_req: medianOfGiven(validRows(g).map((r) => r.udp_datagrams_per_req)),
        p50_ms: medianOfGiven(validRows(g).map((r) => r.p50_ms)),
        p99_ms: medianOfGiven(validRows(g).map((r) => r.p99_ms)),
        ...rowCounts(g),
      }
    })
    .sort((a, b) => a.proxy.localeCompare(b.proxy) || a.streams - b.streams)
  return { costs, direct, notMeasured }
}

/** The handshake rows of the h3 series (lib/series/h3.ts): over QUIC, and over TCP+TLS through the same config. */
const [QUIC_ROWS, TCP_ROWS] = SERIES_ROWS.h3.handshakes
const H3_HANDSHAKE_ROWS = { quic: QUIC_ROWS, tcp: TCP_ROWS } as const

/** One proxy version and key type over one transport: proxy CPU per handshake, full and resumed. */
export interface H3HandshakeRow {
  proxy: string
  version: string
  key_type: string
  transport: 'QUIC' | 'TCP+TLS'
  /** Full handshakes (resumption none). */
  full: Interval | null
  /** Resumed by a TLS 1.3 ticket (resumption tickets; a connection that finds no ticket is full). */
  resumed: Interval | null
  /** QUIC only: tickets and the request as 0-RTT early data, where the template accepts it. */
  early: Interval | null
  /** QUIC rows: per handshake over the same proxy, version and key type over TCP+TLS, paired by round. */
  fullVsTcp: Interval | null
  resumedVsTcp: Interval | null
  /** QUIC rows: UDP datagrams both ways per full handshake (median of the valid repeats). */
  datagrams: number | null
  valid: number
  rows: number
  reasons: string[]
}

const KEY_ORDER = ['ec256', 'rsa2048', 'rsa4096']

/** Per proxy, version and key type: the QUIC row, then the TCP+TLS row it is compared with. */
export function h3HandshakeSummary(handshakes: readonly Handshake[]): H3HandshakeRow[] {
  const rows = handshakes.filter((r) => r.series === H3_HANDSHAKE_ROWS.quic || r.series === H3_HANDSHAKE_ROWS.tcp)
  const groups = groupBy(rows, (r) => [r.proxy, r.version, r.key_type])
  const cpu = (g: readonly Handshake[], series: string, mode: string) =>
    repeatsOf(validRows(g.filter((r) => r.series === series && (r.resumption ?? 'none') === mode)), (r) => r.proxy_cpu_us_per_handshake)
  const sorted = [...groups.values()].sort(
    (a, b) =>
      a[0]!.proxy.localeCompare(b[0]!.proxy) ||
      a[0]!.version.localeCompare(b[0]!.version) ||
      KEY_ORDER.indexOf(a[0]!.key_type) - KEY_ORDER.indexOf(b[0]!.key_type),
  )
  return sorted.flatMap((g) => {
    const { proxy, version, key_type } = g[0]!
    const tcp = { full: cpu(g, H3_HANDSHAKE_ROWS.tcp, 'none'), resumed: cpu(g, H3_HANDSHAKE_ROWS.tcp, 'tickets') }
    const quic = {
      full: cpu(g, H3_HANDSHAKE_ROWS.quic, 'none'),
      resumed: cpu(g, H3_HANDSHAKE_ROWS.quic, 'tickets'),
      early: cpu(g, H3_HANDSHAKE_ROWS.quic, '0rtt'),
    }
    const own = (series: string) => g.filter((r) => r.series === series)
    const out: H3HandshakeRow[] = []
    if (own(H3_HANDSHAKE_ROWS.quic).length) {
      out.push({
        proxy,
        version,
        key_type,
        transport: 'QUIC',
        full: repeatsInterval(quic.full),
        resumed: repeatsInterval(quic.resumed),
        early: repeatsInterval(quic.early),
        fullVsTcp: pairedRatio(quic.full, tcp.full),
        resumedVsTcp: pairedRatio(quic.resumed, tcp.resumed),
        datagrams: medianOfGiven(validRows(own(H3_HANDSHAKE_ROWS.quic).filter((r) => (r.resumption ?? 'none') === 'none')).map((r) => r.udp_datagrams_per_req)),
        ...rowCounts(own(H3_HANDSHAKE_ROWS.quic)),
      })
    }
    if (own(H3_HANDSHAKE_ROWS.tcp).length) {
      out.push({
        proxy,
        version,
        key_type,
        transport: 'TCP+TLS',
        full: repeatsInterval(tcp.full),
        resumed: repeatsInterval(tcp.resumed),
        early: null,
        fullVsTcp: null,
        resumedVsTcp: null,
        datagrams: null,
        ...rowCounts(own(H3_HANDSHAKE_ROWS.tcp)),
      })
    }
    return out
  })
}

/** The open-model rows of the h3 series: over h3 (loadgen h3 -rate) and over HTTP/1.1 (loadgen open), same config, same rate. */
const [, , OPEN_ROWS, OPEN_H1_ROWS] = SERIES_ROWS.h3.measurements

/** One proxy version at its open-model rate: proxy CPU per request over h3 and over HTTP/1.1. */
export interface H3OpenCell {
  proxy: string
  version: string
  target_rps: number
  h3: Interval | null
  h1: Interval | null
  /** h3 over HTTP/1.1 per request at the same rate, paired by round. */
  h3VsH1: Interval | null
  h3_p99_ms: number | null
  h1_p99_ms: number | null
  /** Most virtual users (connections) in use, median of the valid repeats. */
  h3_max_vus: number | null
  h1_max_vus: number | null
  datagrams_per_req: number | null
  valid: number
  rows: number
  reasons: string[]
}

/** Per proxy, version and rate: the h3 open-model cell beside the HTTP/1.1 one. */
export function h3OpenSummary(measurements: readonly Measurement[]): H3OpenCell[] {
  const rows = measurements.filter((r) => r.model === 'open' && (r.series === OPEN_ROWS || r.series === OPEN_H1_ROWS))
  const groups = groupBy(rows, (r) => [r.proxy, r.version, r.target_rps])
  return [...groups.values()]
    .map((g): H3OpenCell => {
      const h3 = g.filter((r) => r.series === OPEN_ROWS)
      const h1 = g.filter((r) => r.series === OPEN_H1_ROWS)
      const [a, b] = [cpuRepeats(h3), cpuRepeats(h1)]
      return {
        proxy: g[0]!.proxy,
        version: g[0]!.version,
        target_rps: g[0]!.target_rps ?? 0,
        h3: repeatsInterval(a),
        h1: repeatsInterval(b),
        h3VsH1: pairedRatio(a, b),
        h3_p99_ms: medianOfGiven(validRows(h3).map((r) => r.p99_ms)),
        h1_p99_ms: medianOfGiven(validRows(h1).map((r) => r.p99_ms)),
        h3_max_vus: medianOfGiven(validRows(h3).map((r) => r.max_vus)),
        h1_max_vus: medianOfGiven(validRows(h1).map((r) => r.max_vus)),
        datagrams_per_req: medianOfGiven(validRows(h3).map((r) => r.udp_datagrams_per_req)),
        ...rowCounts(g),
      }
    })
    .sort((x, y) => x.proxy.localeCompare(y.proxy) || x.target_rps - y.target_rps)
}
