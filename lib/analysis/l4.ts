import { repeatsOf, type Interval } from '../core/intervals.ts'
import { groupRows } from '../data/grouping.ts'
import { isDisturbed } from '../data/precision.ts'
import type { TcpRow } from '../data/schema.ts'
import { SERIES_ROWS } from '../data/series.ts'
import { medianOfGiven, pairedRatio, repeatsInterval, validRows } from './cell-figures.ts'

/** The series values of the L4 rows: short connections, then long streams. */
const [SHORT, STREAM] = SERIES_ROWS.l4.tcp

/** One proxy, version and variant of the L4 series: its cost per connection and per MiB, each with its interval. */
export interface L4Cell {
  proxy: string
  version: string
  variant: string
  /** From the short cells (one message per connection); null when not measured or no valid row. */
  perConn: Interval | null
  /** From the stream cells. */
  perMiB: Interval | null
  connRate: number | null
  mibPerS: number | null
  /** Backend echo connections per client connection (1: each went through to the backend). */
  backendConnsPerConn: number | null
  /** System calls per connection (short cells), median of the valid repeats; null where not counted. */
  syscallsPerConn: number | null
  valid: number
  rows: number
  /** Windows something else ran in (invalid, re-measured); their figures are in tcp.csv. */
  disturbed: number
  /** The other reasons rows are not valid, deduplicated. */
  reasons: string[]
}

/** The valid rows' values by repeat (a repeat re-measured after a disturbed window keeps its own number). */
const costRepeats = (rows: readonly TcpRow[], metric: 'proxy_cpu_us_per_conn' | 'proxy_cpu_us_per_mib') => repeatsOf(validRows(rows), (r) => r[metric])

/** Variants in the order the section shows them: plain, then TLS passed through, then TLS terminated. */
const VARIANT_ORDER = ['l4-tcp', 'l4-passthrough', 'l4-terminate']
const byVariant = (v: string) => (VARIANT_ORDER.includes(v) ? VARIANT_ORDER.indexOf(v) : VARIANT_ORDER.length)

/** Per proxy, version and variant (sorted so): µs per connection (short) and per MiB (stream). */
export function l4Cells(rows: readonly TcpRow[]): L4Cell[] {
  const sorted = [...rows].sort((a, b) => a.proxy.localeCompare(b.proxy) || a.version.localeCompare(b.version) || byVariant(a.variant) - byVariant(b.variant))
  return groupRows(sorted, ['proxy', 'version', 'variant']).map(({ rows: g }) => {
    const short = g.filter((r) => r.series === SHORT)
    const stream = g.filter((r) => r.series === STREAM)
    const notValid = g.filter((r) => r.status !== 'valid')
    return {
      proxy: g[0]!.proxy,
      version: g[0]!.version,
      variant: g[0]!.variant,
      perConn: repeatsInterval(costRepeats(short, 'proxy_cpu_us_per_conn')),
      perMiB: repeatsInterval(costRepeats(stream, 'proxy_cpu_us_per_mib')),
      connRate: medianOfGiven(validRows(short).map((r) => r.conn_rate)),
      mibPerS: medianOfGiven(validRows(stream).map((r) => r.mib_per_s)),
      backendConnsPerConn: medianOfGiven(validRows(g).map((r) => r.backend_conns_per_conn)),
      syscallsPerConn: medianOfGiven(validRows(short).map((r) => r.proxy_syscalls_per_req)),
      valid: g.length - notValid.length,
      rows: g.length,
      disturbed: notValid.filter(isDisturbed).length,
      reasons: [...new Set(notValid.filter((r) => !isDisturbed(r)).map((r) => `${r.status}: ${r.reason}`))],
    }
  })
}

/**
 * Seed 004's L4 comparison: HAProxy's proxy CPU over nginx's, per variant, per short
 * connection and per MiB of stream, each with its paired bootstrap interval (repeats are
 * interleaved rounds, so round r of one is paired with round r of the other). Below 1:
 * HAProxy costs less.
 */
export function haproxyNginxRatios(rows: readonly TcpRow[]): { variant: string; per: 'connection' | 'MiB'; ratio: Interval }[] {
  const kinds = [
    { per: 'connection', series: SHORT, metric: 'proxy_cpu_us_per_conn' },
    { per: 'MiB', series: STREAM, metric: 'proxy_cpu_us_per_mib' },
  ] as const
  return kinds.flatMap(({ per, series, metric }) => {
    const own = rows.filter((r) => r.series === series)
    return [...new Set(own.map((r) => r.variant))].flatMap((variant) => {
      const of = (proxy: string) =>
        costRepeats(
          own.filter((r) => r.proxy === proxy && r.variant === variant),
          metric,
        )
      const ratio = pairedRatio(of('haproxy'), of('nginx'))
      return ratio ? [{ variant, per, ratio }] : []
    })
  })
}
