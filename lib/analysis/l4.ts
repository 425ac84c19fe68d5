import { medianInterval, ratioInterval, repeatsOf, type Interval } from '../core/intervals.ts'
import type { TcpRow } from '../data/schema.ts'
import { SERIES_ROWS } from '../data/series.ts'

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
  valid: number
  rows: number
  reasons: string[]
}

const med = (xs: number[]) => (xs.length ? medianInterval(new Map(xs.map((x, i) => [i + 1, x]))).value : null)
const valid = (rows: readonly TcpRow[]) => rows.filter((r) => r.status === 'valid')

/** The valid rows' values by repeat (a repeat re-measured after a disturbed window keeps its own number). */
const costRepeats = (rows: readonly TcpRow[], metric: 'proxy_cpu_us_per_conn' | 'proxy_cpu_us_per_mib') => repeatsOf(valid(rows), (r) => r[metric])

const interval = (r: Map<number, number>) => (r.size ? medianInterval(r) : null)

/** Per proxy, version and variant: µs per connection (short) and per MiB (stream), in the order the rows came. */
export function l4Cells(rows: readonly TcpRow[]): L4Cell[] {
  const groups = new Map<string, TcpRow[]>()
  for (const r of rows) {
    const id = `${r.proxy}|${r.version}|${r.variant}`
    groups.set(id, [...(groups.get(id) ?? []), r])
  }
  return [...groups.values()].map((g) => {
    const short = g.filter((r) => r.series === SHORT)
    const stream = g.filter((r) => r.series === STREAM)
    const notValid = g.filter((r) => r.status !== 'valid')
    return {
      proxy: g[0]!.proxy, version: g[0]!.version, variant: g[0]!.variant,
      perConn: interval(costRepeats(short, 'proxy_cpu_us_per_conn')),
      perMiB: interval(costRepeats(stream, 'proxy_cpu_us_per_mib')),
      connRate: med(valid(short).flatMap((r) => (r.conn_rate === null ? [] : [r.conn_rate]))),
      mibPerS: med(valid(stream).flatMap((r) => (r.mib_per_s === null ? [] : [r.mib_per_s]))),
      backendConnsPerConn: med(valid(g).flatMap((r) => (r.backend_conns_per_conn === null ? [] : [r.backend_conns_per_conn]))),
      valid: g.length - notValid.length,
      rows: g.length,
      reasons: [...new Set(notValid.map((r) => `${r.status}: ${r.reason}`))],
    }
  })
}

/**
 * Seed 004's L4 comparison: HAProxy's proxy CPU per short connection over nginx's, per
 * variant, with its paired bootstrap interval (repeats are interleaved rounds, so round r
 * of one is paired with round r of the other). Below 1: HAProxy costs less per connection.
 */
export function haproxyNginxRatios(rows: readonly TcpRow[]): { variant: string; ratio: Interval }[] {
  const short = rows.filter((r) => r.series === SHORT)
  const variants = [...new Set(short.map((r) => r.variant))]
  return variants.flatMap((variant) => {
    const of = (proxy: string) => costRepeats(short.filter((r) => r.proxy === proxy && r.variant === variant), 'proxy_cpu_us_per_conn')
    const h = of('haproxy')
    const n = of('nginx')
    return h.size && n.size ? [{ variant, ratio: ratioInterval(h, n) }] : []
  })
}
