import { h2Summary, resumptionSummary, type H2Cell, type ResumptionCell } from '../../analysis/protocols.ts'
import { fmtInterval, sideOfOne, type Interval } from '../../core/intervals.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, type Column, esc, pct } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/** An interval as text, or — (the h3 section's tables too). */
export const iv = (x: Interval | null, digits = 1) => (x ? fmtInterval(x, digits) : '—')
/** valid/all rows, with the reasons of the others. */
export const rowsText = (c: { valid: number; rows: number; reasons: string[] }) => `${c.valid}/${c.rows}${c.reasons.length ? ` (${c.reasons.join('; ')})` : ''}`
/** A column of an interval: its value in the CSV, the interval on the page. */
export const ivColumn = <R>(title: string, get: (r: R) => Interval | null, digits?: number): Column<R> => ({
  title,
  value: (r) => get(r)?.value ?? null,
  show: (r) => esc(iv(get(r), digits)),
})
/** A column of a ratio to 1: its value in the CSV, the interval and the side it is on in words (`h2 cheaper`) on the page. */
export const ratioColumn = <R>(title: string, get: (r: R) => Interval | null, who: string): Column<R> => ({
  title,
  value: (r) => get(r)?.value ?? null,
  show: (r) => esc(ratioText(get(r), who)),
})
/** A ratio to 1 as text: its interval and its side (`h3 cheaper`), or —. */
export const ratioText = (x: Interval | null, who: string) => (x ? `${iv(x, 2)} ${side(x, `${who} cheaper`, `${who} dearer`)}` : '—')
/** The valid rows of all, with the reasons of the others. */
export const rowsColumn = <R extends { valid: number; rows: number; reasons: string[] }>(): Column<R> => ({
  title: 'valid rows',
  value: (c) => `${c.valid}/${c.rows}`,
  show: (c) => esc(rowsText(c)),
})
/** A ratio's side in words (sideOfOne judges it). */
export const side = (x: Interval | null, below: string, above: string): string => {
  if (!x) return ''
  const s = sideOfOne(x)
  // Disagreeing repeats are already shown by the interval's text (fmtInterval): not said twice.
  return s === 'below' ? below : s === 'above' ? above : s === 'one repeat' ? 'one repeat: no side decided' : 'no side decided'
}

/** HTTP/2 from the client (series h2): per proxy, HTTP/1.1 and h2 through the same h2 config. */
export function h2Section(a: Article, { run }: ArticleInput): ChartRequest[] {
  const cells = h2Summary(run.measurements)
  if (cells.length === 0) return (a.skip('HTTP/2 from the client', 'h2 series'), [])
  a.heading(2, 'HTTP/2 from the client')
  a.para(
    "Each proxy's `h2` variant: its pool-added config with an h2-capable TLS listener (ALPN h2, http/1.1); the backend side stays HTTP/1.1 with the same pool on every proxy. " +
      "**h2** rows: h2load (nghttp2), the same connections with `streams` requests in flight on each (-m); the proxy answered h2 by ALPN (nghttp checks it before the window, h2load's own output during it). " +
      "**HTTP/1.1** rows: wrk through the very same config, so the ratio changes only the client's protocol. Proxy CPU per request (median with its interval); rps and latency are this machine's. " +
      'h2 / HTTP/1.1: paired bootstrap over the interleaved rounds; below 1, h2 costs the proxy less per request.',
  )
  a.table<H2Cell>(
    'h2-cells',
    [
      { title: 'proxy', value: (c) => c.proxy },
      { title: 'version', value: (c) => c.version },
      { title: 'protocol', value: (c) => c.protocol },
      { title: 'streams/conn', value: (c) => c.streams },
      ivColumn('CPU µs/req', (c) => c.cpu),
      ratioColumn('h2 / HTTP/1.1', (c) => c.vsH1, 'h2'),
      { title: 'rps', value: (c) => c.rps },
      { title: 'p50 ms', value: (c) => c.p50_ms },
      { title: 'p99 ms', value: (c) => c.p99_ms },
      { title: 'syscalls/req', value: (c) => c.syscalls, csvOnly: true },
      rowsColumn(),
    ],
    cells,
  )
  a.para('HTTP/3: see the section of its own (series h3).')
  return []
}

/** TLS session resumption (series resumption): resumed share and CPU per handshake against full ones. */
export function resumptionSection(a: Article, { run }: ArticleInput): ChartRequest[] {
  const cells = resumptionSummary(run.handshakes)
  if (cells.length === 0) return (a.skip('TLS session resumption', 'resumption series'), [])
  a.heading(2, 'TLS session resumption')
  a.para(
    'Handshakes as in the TLS section (EC P-256, 4 clients, a new connection and one GET each), but the client keeps the session tickets the proxy issues and offers the newest on its next connection: ' +
      '**tickets** in TLS 1.3 (a PSK handshake that still runs an X25519 key exchange, no certificate signature), **tickets-tls12** with TLS 1.2 as the highest version (an abbreviated handshake: no key exchange, no signature); **none** is the full handshake. ' +
      "Resumed share: resumed over all handshakes (each client's first is full); it is the proxy's answer to a client that offers a ticket. " +
      "Resumed / full: CPU per handshake over the same config's full handshakes, paired bootstrap; below 1, resuming saves the proxy CPU. " +
      "Session IDs (stateful resumption, what nginx's ssl_session_cache serves) are not offered: Go's TLS client resumes by tickets only (docs/series/h2-resumption.md).",
  )
  a.table<ResumptionCell>(
    'resumption-cells',
    [
      { title: 'proxy', value: (c) => c.proxy },
      { title: 'version', value: (c) => c.version },
      { title: 'variant', value: (c) => c.variant },
      { title: 'client offers', value: (c) => c.resumption },
      { title: 'resumed', value: (c) => c.resumedShare, show: (c) => esc(pct(c.resumedShare, 2)) },
      ivColumn('CPU µs/handshake', (c) => c.cpu),
      ratioColumn('resumed / full', (c) => c.vsFull, 'resuming'),
      { title: 'handshakes/s', value: (c) => c.rate },
      { title: 'syscalls/handshake', value: (c) => c.syscalls, csvOnly: true },
      rowsColumn(),
    ],
    cells,
  )
  return []
}
