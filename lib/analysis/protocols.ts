import { repeatsOf, type Interval } from '../core/intervals.ts'
import { groupBy } from '../data/grouping.ts'
import type { Handshake, Measurement } from '../data/schema.ts'
import { medianOfGiven, pairedRatio, repeatsInterval, rowCounts, validRows } from './cell-figures.ts'

/* HTTP/2 against HTTP/1.1 (series h2) and resumed against full handshakes (series resumption), per proxy. */

/** Rows grouped by a derived key (lib/data/grouping.ts), groups in the order they first appear. */
const groups = <R>(rows: readonly R[], keyOf: (r: R) => readonly unknown[]): R[][] => [...groupBy(rows, keyOf).values()]

export interface H2Cell {
  proxy: string
  version: string
  /** HTTP/1.1 (wrk, series h2-h1) or h2 at `streams` streams per connection. */
  protocol: 'HTTP/1.1' | 'h2'
  streams: number | null
  cpu: Interval | null
  rps: number | null
  p50_ms: number | null
  p99_ms: number | null
  /** Proxy CPU per request over the same proxy's HTTP/1.1 cell: paired bootstrap over the interleaved rounds. */
  vsH1: Interval | null
  /** System calls per request, median of the valid repeats (docs/method/counts.md); null where not counted. */
  syscalls: number | null
  valid: number
  rows: number
  reasons: string[]
}

/** Per proxy and version: the HTTP/1.1 reference first, then each stream count. */
export function h2Summary(measurements: readonly Measurement[]): H2Cell[] {
  const rows = measurements.filter((r) => r.series === 'h2' || r.series === 'h2-h1')
  return groups(rows, (r) => [r.proxy, r.version]).flatMap((g) => {
    const cpu = (rs: readonly Measurement[]) => repeatsOf(validRows(rs), (r) => r.proxy_cpu_us_per_req)
    const h1 = cpu(g.filter((r) => r.series === 'h2-h1'))
    const cells = groups(g, (r) => [r.series === 'h2-h1' ? 'h1' : `h2 ${r.streams}`]).sort((a, b) =>
      a[0]!.series === 'h2-h1' ? -1 : b[0]!.series === 'h2-h1' ? 1 : (a[0]!.streams ?? 0) - (b[0]!.streams ?? 0),
    )
    return cells.map((c): H2Cell => {
      const isH1 = c[0]!.series === 'h2-h1'
      const own = cpu(c)
      return {
        proxy: c[0]!.proxy,
        version: c[0]!.version,
        protocol: isH1 ? 'HTTP/1.1' : 'h2',
        streams: isH1 ? null : (c[0]!.streams ?? null),
        cpu: repeatsInterval(own),
        rps: medianOfGiven(validRows(c).map((r) => r.rps)),
        p50_ms: medianOfGiven(validRows(c).map((r) => r.p50_ms)),
        p99_ms: medianOfGiven(validRows(c).map((r) => r.p99_ms)),
        vsH1: isH1 ? null : pairedRatio(own, h1),
        syscalls: medianOfGiven(validRows(c).map((r) => r.proxy_syscalls_per_req)),
        ...rowCounts(c),
      }
    })
  })
}

export interface ResumptionCell {
  proxy: string
  version: string
  variant: string
  resumption: string
  cpu: Interval | null
  /** Resumed handshakes over all, median of the valid repeats (the first handshake of each client is full). */
  resumedShare: number | null
  rate: number | null
  /** CPU per handshake over the same proxy and variant's full handshakes (resumption none): paired bootstrap. */
  vsFull: Interval | null
  /** System calls per handshake, median of the valid repeats; null where not counted. */
  syscalls: number | null
  valid: number
  rows: number
  reasons: string[]
}

/** Per proxy, version and variant: full handshakes first, then each resumption mode. */
export function resumptionSummary(handshakes: readonly Handshake[]): ResumptionCell[] {
  const ORDER = ['none', 'tickets', 'tickets-tls12']
  const rows = handshakes.filter((r) => r.series === 'resumption')
  return groups(rows, (r) => [r.proxy, r.version, r.variant]).flatMap((g) => {
    const cpu = (rs: readonly Handshake[]) => repeatsOf(validRows(rs), (r) => r.proxy_cpu_us_per_handshake)
    const full = cpu(g.filter((r) => (r.resumption ?? 'none') === 'none'))
    return groups(g, (r) => [r.resumption ?? 'none'])
      .sort((a, b) => ORDER.indexOf(a[0]!.resumption ?? 'none') - ORDER.indexOf(b[0]!.resumption ?? 'none'))
      .map((c): ResumptionCell => {
        const mode = c[0]!.resumption ?? 'none'
        const own = cpu(c)
        return {
          proxy: c[0]!.proxy,
          version: c[0]!.version,
          variant: c[0]!.variant,
          resumption: mode,
          cpu: repeatsInterval(own),
          resumedShare: medianOfGiven(validRows(c).map((r) => (r.handshakes > 0 ? r.resumed / r.handshakes : null))),
          rate: medianOfGiven(validRows(c).map((r) => r.rate)),
          syscalls: medianOfGiven(validRows(c).map((r) => r.proxy_syscalls_per_req)),
          vsFull: mode === 'none' ? null : pairedRatio(own, full),
          ...rowCounts(c),
        }
      })
  })
}
