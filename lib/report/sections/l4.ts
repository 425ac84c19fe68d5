import { haproxyNginxRatios, l4Cells, type L4Cell } from '../../analysis/l4.ts'
import { fmtInterval } from '../../core/intervals.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { esc, type Article } from '../markdown.ts'
import type { ArticleInput } from './input.ts'
import { ivColumn, side } from './protocols.ts'

const notes = (c: L4Cell) => {
  const all = [...(c.disturbed ? [`${c.disturbed} disturbed`] : []), ...c.reasons]
  return all.length ? ` (${all.join('; ')})` : ''
}

/** L4 TCP forwarding (series l4): per proxy and variant, CPU per connection and per MiB with intervals, and seed 004's HAProxy/nginx ratio. */
export function l4Section(a: Article, { run }: ArticleInput): ChartRequest[] {
  const rows = run.tcp ?? []
  if (rows.length === 0) return (a.skip('L4 TCP forwarding', 'l4 series'), [])
  a.heading(2, 'L4 TCP forwarding')
  a.para(
    "Connections through the proxy to the backend's TCP echo (tcp.csv). Variants: l4-tcp (plain TCP in and out), l4-passthrough (the client's TLS forwarded untouched to a TLS echo), " +
      'l4-terminate (the proxy terminates TLS, plain TCP to the echo). The mix: **short**, 32 workers each connecting, sending 64 bytes, reading them back and closing, back to back ' +
      '(µs per connection; with TLS from the client that includes a full EC P-256 handshake, paid by the proxy when it terminates and by the backend when it passes through); ' +
      '**stream**, 4 workers each sending 16 MiB on one connection while reading them back (µs per MiB echoed: each MiB crosses the proxy twice). ' +
      'Intervals: the median over repeats with its order-statistics interval. Caddy has no L4 variant: none of its catalog builds carries the layer4 app.',
  )
  a.table<L4Cell>(
    'l4-cells',
    [
      { title: 'proxy', value: (c) => c.proxy },
      { title: 'version', value: (c) => c.version },
      { title: 'variant', value: (c) => c.variant },
      ivColumn('µs/conn', (c) => c.perConn),
      ivColumn('µs/MiB', (c) => c.perMiB, 0),
      { title: 'conn/s', value: (c) => c.connRate },
      { title: 'MiB/s', value: (c) => c.mibPerS },
      { title: 'backend conns/conn', value: (c) => c.backendConnsPerConn },
      { title: 'syscalls/conn', value: (c) => c.syscallsPerConn, csvOnly: true },
      { title: 'valid rows', value: (c) => `${c.valid}/${c.rows}`, show: (c) => esc(`${c.valid}/${c.rows}${notes(c)}`) },
    ],
    l4Cells(rows),
  )
  const ratios = haproxyNginxRatios(rows)
  if (ratios.length) {
    a.para('HAProxy / nginx proxy CPU (seed 004: HAProxy lower, i.e. below 1), paired bootstrap interval over the repeats:')
    a.bullets(ratios.map((r) => `${esc(r.variant)}, per ${r.per}: ${esc(fmtInterval(r.ratio))} (${side(r.ratio, 'HAProxy lower', 'nginx lower')})`))
  }
  return []
}
