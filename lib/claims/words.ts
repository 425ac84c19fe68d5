/** Numbers, units and figures in the words of a claim's measured text. */
import { fmtWith } from '../core/intervals.ts'
import type { Fig } from './figure.ts'

/** 3 significant digits below 1000, whole numbers with thousands separators above. */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x)
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US')
  if (x === 0) return '0'
  const r = Number(x.toPrecision(3))
  // 999.6 rounds up to 1000: write it as the thousands are written.
  return Math.abs(r) >= 1000 ? Math.round(x).toLocaleString('en-US') : String(r)
}

export const UNITS: Record<string, string> = {
  rps: 'rps',
  target_rps: 'rps',
  proxy_cpu_us_per_req: 'µs/req',
  backend_cpu_us_per_req: 'µs/req',
  proxy_cpu_us_per_handshake: 'µs/handshake',
  proxy_cpu_us_per_msg: 'µs/msg',
  backend_conns_per_1k_req: 'conns/1k req',
  // A share's unit names what it counts over what (errors_pct and failed_pct differ in both): claims.yaml's metric header.
  errors_pct: '% errors of requests sent',
  failed_pct: '% failed (errors + dropped) of attempts',
  dropped_pct: '% dropped of attempts',
  errors: 'errors',
  conns_established: 'conns',
  conns_target: 'conns',
  proxy_cpu_share: 'of the proxy cores',
  generator_cpu_share: 'generator CPU share',
  rate: 'handshakes/s',
  msg_rate: 'msg/s',
  resumed: 'resumed',
  resumed_pct: '%',
  handshakes: 'handshakes',
  proxy_cpu_us_per_conn: 'µs/conn',
  proxy_cpu_us_per_mib: 'µs/MiB',
  conn_rate: 'conn/s',
  mib_per_s: 'MiB/s',
  requests: 'requests',
  messages: 'messages',
  max_vus: 'VUs',
  dropped: 'dropped',
}
export const unitOf = (metric: string | undefined) => (metric === undefined ? '' : (UNITS[metric] ?? (metric.endsWith('_ms') ? 'ms' : metric)))
/** A metric's unit as it follows a number: a percentage's straight after it ("12%", "12% errors of requests sent"), another after a space. */
export const unitTail = (metric: string | undefined) => {
  const u = unitOf(metric)
  return u.startsWith('%') || !u ? u : ` ${u}`
}
export const withUnit = (x: number, metric: string | undefined) => `${fmt(x)}${unitTail(metric)}`
export const pct = (x: number) => `${fmt(x * 100)}%`

/** A figure with its interval: `1.39 [1.21, 1.62]`, `2 [1 repeat]`; a constant as itself. `each` formats every number. */
export function fmtFig(f: Fig, each: (x: number) => string = fmt): string {
  const n = (x: number) => (Number.isFinite(x) ? each(x) : '?')
  if (f.method === 'constant') return n(f.value)
  return fmtWith({ ...f, method: f.method }, n)
}

/** `50 [49.5, 50.5] rps`, `33% [30%, 36%]`. */
export function figWithUnit(f: Fig, metric: string | undefined): string {
  const tail = unitTail(metric)
  return tail.startsWith('%') ? `${fmtFig(f, (x) => `${fmt(x)}%`)}${tail.slice(1)}` : `${fmtFig(f)}${tail}`
}
