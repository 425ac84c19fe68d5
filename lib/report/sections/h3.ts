import { h3HandshakeSummary, h3OpenSummary, h3Summary, type H3Cost, type H3HandshakeRow, type H3OpenCell } from '../../analysis/h3.ts'
import type { Interval } from '../../core/intervals.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { BarRow } from '../charts.ts'
import { esc, type Article } from '../markdown.ts'
import { figure } from './common.ts'
import type { ArticleInput } from './input.ts'
import { iv, ivColumn, ratioColumn, ratioText, rowsColumn } from './protocols.ts'

/** A bar with its interval (error bars only from two repeats on: one repeat has none). */
const bar = (category: string, group: string, x: Interval | null): BarRow[] =>
  x ? [{ category, group, value: x.value, ...(x.n >= 2 ? { lo: x.lo, hi: x.hi } : {}) }] : []
const CHART_CI = 'median of the valid repeats; bars: its interval by order statistics (95% from 6 repeats, its real coverage below)'
const OWN_MEASUREMENT =
  "This harness's own measurement on this machine (no published figure on what QUIC costs a proxy is in baselines/published/ to compare it with)."

/** HTTP/3 from the client (series h3): per proxy, h3 against HTTP/2 and HTTP/1.1, and QUIC handshakes against TCP+TLS ones (docs/series/h3.md). */
export function h3Section(a: Article, { run }: ArticleInput): ChartRequest[] {
  const { costs, direct, notMeasured } = h3Summary(run.measurements)
  const handshakes = h3HandshakeSummary(run.handshakes ?? [])
  const open = h3OpenSummary(run.measurements)
  if (costs.length === 0 && notMeasured.length === 0 && handshakes.length === 0 && open.length === 0) return (a.skip('HTTP/3', 'h3 series'), [])
  const charts: ChartRequest[] = []
  a.heading(2, 'HTTP/3')
  a.para(
    `Each proxy's \`h3\` variant: its h2 config plus QUIC on the same port over ${run.manifest.hosts ? "UDP between the hosts (the generator's to the proxy's)" : 'loopback UDP'}; the backend side stays HTTP/1.1 with the same pool. ` +
      '**h3**: loadgen h3 (quic-go), the same connections with `streams` requests in flight on each, every answer checked for ALPN h3 and HTTP/3.0 (20 before the window too). ' +
      "**HTTP/1.1**: wrk through the very same config (series h3-h1); **h2**: the h2 series' cell of the same proxy version and streams, when the run has one. " +
      'Proxy CPU per request, median with its interval; ratios by bootstrap over the repeats (h3/HTTP/1.1 paired within the phase; h3/h2 pairs repeats by number across two phases). Below 1, h3 costs the proxy less per request. ' +
      'Each proxy runs the newest catalog version whose build speaks HTTP/3.',
  )
  a.table<H3Cost>(
    'h3-costs',
    [
      { title: 'proxy', value: (c) => c.proxy },
      { title: 'version', value: (c) => c.version },
      { title: 'streams/conn', value: (c) => c.streams },
      ivColumn('h3 CPU µs/req', (c) => c.h3),
      ivColumn('h2 CPU µs/req', (c) => c.h2),
      ivColumn('HTTP/1.1 CPU µs/req', (c) => c.h1),
      ratioColumn('h3 / HTTP/1.1', (c) => c.h3VsH1, 'h3'),
      ratioColumn('h3 / h2', (c) => c.h3VsH2, 'h3'),
      { title: 'backend conns/1k', value: (c) => c.conns_per_1k },
      { title: 'UDP datagrams/req', value: (c) => c.datagrams_per_req },
      // The page keeps to A4: p50 goes to the CSV, p99 stays.
      { title: 'p50 ms', value: (c) => c.p50_ms, csvOnly: true },
      { title: 'p99 ms', value: (c) => c.p99_ms },
      rowsColumn(),
    ],
    costs,
  )
  if (direct.length) {
    a.para(
      `Direct (loadgen h3 to the backend's own HTTP/3 listener, no proxy): ${direct.map((d) => `${d.streams} stream${d.streams === 1 ? '' : 's'}/conn p50 ${d.p50_ms ?? '—'} ms, p99 ${d.p99_ms ?? '—'} ms, ${d.rps ?? '—'} rps, ${d.datagrams_per_req ?? '—'} UDP datagrams/req (${d.valid}/${d.rows} valid)`).join('; ')}.`,
    )
  }
  a.para(
    "UDP datagrams/req: what the generator sent and received (both ways, ACKs included) in its window, over the requests it completed there; a property of the protocol stacks, not of the machine's speed.",
  )
  if (notMeasured.length) {
    a.para(
      `Not measured (the build does not speak HTTP/3; npm run catalog shows every version): ${notMeasured
        .map((n) => `${n.proxy} ${n.version}: ${n.reason}`)
        .map(esc)
        .join('; ')}.`,
    )
  }
  const costRows = costs.flatMap((c) => {
    const category = `${c.proxy} ${c.version}${c.streams === 1 ? '' : ` m${c.streams}`}`
    return [...bar(category, 'h3', c.h3), ...bar(category, 'h2', c.h2), ...bar(category, 'HTTP/1.1', c.h1)]
  })
  if (costRows.length) {
    figure(
      a,
      charts,
      {
        path: 'charts/h3-costs.svg',
        title: 'Proxy CPU per request over h3, h2 and HTTP/1.1',
        kind: 'bar',
        rows: costRows,
        options: { horizontal: true, valueTitle: 'proxy CPU µs / request', groupTitle: 'client protocol' },
      },
      'Proxy CPU per request over h3, h2 and HTTP/1.1 by proxy',
      {
        unit: `proxy CPU µs per request, ${CHART_CI}`,
        model: "closed model, the profile's connections, streams per connection as labelled (m1 unless named), backend side HTTP/1.1 with the same pool",
        note: esc(OWN_MEASUREMENT),
      },
    )
  }
  if (open.length) h3OpenTable(a, open)
  if (handshakes.length) h3HandshakeTable(a, charts, handshakes)
  return charts
}

/** The open model over h3 and over HTTP/1.1 through the same config, at one rate per proxy. */
function h3OpenTable(a: Article, cells: readonly H3OpenCell[]): void {
  a.heading(3, 'HTTP/3 in the open model')
  a.para(
    'Each proxy at half its own h3 closed-model rate (1 stream per connection), requests at a constant arrival rate: **h3** with loadgen h3 -rate (a virtual user is a QUIC connection with one request in flight, a new one a new handshake), **HTTP/1.1** with loadgen open through the very same config. ' +
      "Both capped at the profile's connections; a request due while every user is busy is dropped (over 1% makes the row invalid). h3 / HTTP/1.1: paired bootstrap over the rounds; below 1, h3 costs the proxy less at this load. standard and full only.",
  )
  a.table<H3OpenCell>(
    'h3-open',
    [
      { title: 'proxy', value: (c) => c.proxy },
      { title: 'version', value: (c) => c.version },
      { title: 'rate req/s', value: (c) => c.target_rps },
      ivColumn('h3 CPU µs/req', (c) => c.h3),
      ivColumn('HTTP/1.1 CPU µs/req', (c) => c.h1),
      ratioColumn('h3 / HTTP/1.1', (c) => c.h3VsH1, 'h3'),
      { title: 'h3 p99 ms', value: (c) => c.h3_p99_ms },
      { title: 'HTTP/1.1 p99 ms', value: (c) => c.h1_p99_ms },
      { title: 'h3 max VUs', value: (c) => c.h3_max_vus, csvOnly: true },
      { title: 'HTTP/1.1 max VUs', value: (c) => c.h1_max_vus, csvOnly: true },
      { title: 'UDP datagrams/req', value: (c) => c.datagrams_per_req },
      rowsColumn(),
    ],
    cells,
  )
}

/** QUIC handshakes against TCP+TLS ones through the same h3 config, per key type: full, resumed, 0-RTT. */
function h3HandshakeTable(a: Article, charts: ChartRequest[], rows: readonly H3HandshakeRow[]): void {
  a.heading(3, 'HTTP/3 handshakes')
  a.para(
    'A new connection per request, one GET each, 4 clients, through the same `h3` config and version as the cost table: **QUIC** (loadgen h3-handshake, quic-go, one UDP socket) and **TCP+TLS** (loadgen handshake, TLS 1.3). ' +
      "**full**: no resumption; **resumed**: the client offers the newest TLS 1.3 ticket (a PSK handshake with a key exchange, no certificate signature; each client's first handshake finds none and is full); " +
      '**0-RTT**: tickets and the GET sent as early data, only where the template accepts it (stack.yaml `early_data`). ' +
      "QUIC / TCP+TLS: CPU per handshake over the same key type's TCP+TLS figure, paired bootstrap over the interleaved rounds; below 1, the QUIC handshake costs the proxy less. quick resumes on EC P-256 only.",
  )
  a.table<H3HandshakeRow>(
    'h3-handshakes',
    [
      { title: 'proxy', value: (r) => r.proxy },
      { title: 'version', value: (r) => r.version },
      { title: 'key type', value: (r) => r.key_type },
      { title: 'over', value: (r) => r.transport },
      ivColumn('full CPU µs/handshake', (r) => r.full),
      {
        title: 'QUIC / TCP+TLS full',
        value: (r) => r.fullVsTcp?.value ?? null,
        show: (r) => esc(r.transport === 'QUIC' ? ratioText(r.fullVsTcp, 'QUIC') : ''),
      },
      ivColumn('resumed CPU µs/handshake', (r) => r.resumed),
      {
        title: 'QUIC / TCP+TLS resumed',
        value: (r) => r.resumedVsTcp?.value ?? null,
        show: (r) => esc(r.transport === 'QUIC' ? ratioText(r.resumedVsTcp, 'QUIC') : ''),
      },
      { title: '0-RTT CPU µs/handshake', value: (r) => r.early?.value ?? null, show: (r) => esc(r.transport === 'QUIC' ? iv(r.early) : '') },
      { title: 'UDP datagrams/handshake', value: (r) => r.datagrams },
      rowsColumn(),
    ],
    rows,
  )
  const full = rows.flatMap((r) => bar(`${r.proxy} ${r.key_type}`, r.transport, r.full))
  if (full.length) {
    figure(
      a,
      charts,
      {
        path: 'charts/h3-handshakes.svg',
        title: 'Proxy CPU per full handshake over QUIC and TCP+TLS by key type',
        kind: 'bar',
        rows: full,
        options: { horizontal: true, valueTitle: 'proxy CPU µs / handshake', groupTitle: 'over' },
      },
      'Proxy CPU per full handshake over QUIC and TCP+TLS by proxy and key type',
      {
        unit: `proxy CPU µs per full handshake and its one GET, ${CHART_CI}`,
        model: "a new connection per request, 4 clients, resumption off, through each proxy's h3 config",
        note: esc(OWN_MEASUREMENT),
      },
    )
  }
}
