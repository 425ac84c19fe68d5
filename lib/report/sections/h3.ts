import { h3Summary, type H3Cost } from '../../analysis/h3.ts'
import { fmtInterval, type Interval } from '../../core/intervals.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { esc, type Article } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

const iv = (x: Interval | null, digits = 1) => (x ? fmtInterval(x, digits) : '—')
/** A side is named only when the whole interval is on it (DESIGN "Verdicts carry their uncertainty"). */
const side = (x: Interval | null, below: string, above: string) => (!x ? '' : x.method === 'single repeat' ? 'one repeat: no side decided' : x.hi < 1 ? below : x.lo > 1 ? above : 'no side decided')
const ratio = (x: Interval | null, who: string) => (x ? `${iv(x, 2)} ${side(x, `${who} cheaper`, `${who} dearer`)}` : '—')

/** HTTP/3 from the client (series h3): per proxy, h3 against HTTP/2 and HTTP/1.1 (docs/series/h3.md). */
export function h3Section(a: Article, { run }: ArticleInput): ChartRequest[] {
  const { costs, direct, notMeasured } = h3Summary(run.measurements)
  if (costs.length === 0 && notMeasured.length === 0) return a.skip('HTTP/3', 'h3 series'), []
  a.heading(2, 'HTTP/3')
  a.para(
    'Each proxy\'s `h3` variant: its h2 config plus QUIC on the same port over loopback UDP; the backend side stays HTTP/1.1 with the same pool. ' +
      '**h3**: loadgen h3 (quic-go), the same connections with `streams` requests in flight on each, every answer checked for ALPN h3 and HTTP/3.0 (20 before the window too). ' +
      '**HTTP/1.1**: wrk through the very same config (series h3-h1); **h2**: the h2 series\' cell of the same proxy version and streams, when the run has one. ' +
      'Proxy CPU per request, median with its interval; ratios by bootstrap over the repeats (h3/HTTP/1.1 paired within the phase; h3/h2 pairs repeats by number across two phases). Below 1, h3 costs the proxy less per request. ' +
      'Each proxy runs the newest catalog version whose build speaks HTTP/3.',
  )
  a.table<H3Cost>('h3-costs', [
    { title: 'proxy', value: (c) => c.proxy },
    { title: 'version', value: (c) => c.version },
    { title: 'streams/conn', value: (c) => c.streams },
    { title: 'h3 CPU µs/req', value: (c) => c.h3?.value ?? null, show: (c) => esc(iv(c.h3)) },
    { title: 'h2 CPU µs/req', value: (c) => c.h2?.value ?? null, show: (c) => esc(iv(c.h2)) },
    { title: 'HTTP/1.1 CPU µs/req', value: (c) => c.h1?.value ?? null, show: (c) => esc(iv(c.h1)) },
    { title: 'h3 / HTTP/1.1', value: (c) => c.h3VsH1?.value ?? null, show: (c) => esc(ratio(c.h3VsH1, 'h3')) },
    { title: 'h3 / h2', value: (c) => c.h3VsH2?.value ?? null, show: (c) => esc(ratio(c.h3VsH2, 'h3')) },
    { title: 'backend conns/1k', value: (c) => c.conns_per_1k },
    { title: 'p50 ms', value: (c) => c.p50_ms },
    { title: 'p99 ms', value: (c) => c.p99_ms },
    { title: 'valid rows', value: (c) => `${c.valid}/${c.rows}`, show: (c) => esc(`${c.valid}/${c.rows}${c.reasons.length ? ` (${c.reasons.join('; ')})` : ''}`) },
  ], costs)
  if (direct.length) {
    a.para(`Direct (loadgen h3 to the backend's own HTTP/3 listener, no proxy): ${direct.map((d) => `${d.streams} stream${d.streams === 1 ? '' : 's'}/conn p50 ${d.p50_ms ?? '—'} ms, p99 ${d.p99_ms ?? '—'} ms, ${d.rps ?? '—'} rps (${d.valid}/${d.rows} valid)`).join('; ')}.`)
  }
  if (notMeasured.length) {
    a.para(`Not measured (the build does not speak HTTP/3; npm run catalog shows every version): ${notMeasured.map((n) => `${n.proxy} ${n.version}: ${n.reason}`).map(esc).join('; ')}.`)
  }
  return []
}
