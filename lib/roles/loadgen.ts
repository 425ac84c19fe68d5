import { join } from 'node:path'
import { exec, lastLine } from '../core/exec.ts'
import { runToEnd } from '../runtime/run-to-end.ts'
import type { Runtime } from '../runtime/types.ts'
import { goBinaryPath } from '../setup/gobuild.ts'
import type { LoadgenSpectrum } from '../data/latency.ts'

/** JSON summary of `loadgen requests`. */
export interface RequestsResult {
  requests: number
  ok: number
  errors: number
  error_samples: string[]
  status: Record<string, number>
  body_mismatch: number
  conns_opened: number
  proto: string
  tls_version: string
  alpn: string
  duration_s: number
}

export interface RequestsOptions {
  url: string
  n: number
  c: number
  cacert?: string
  expectBody?: string
  /** Body length a response needs (a generated body such as the backend's /json?size=N). */
  expectBytes?: number
  /** Pin the generator like any other role. */
  cpus?: string
}

export const requestsArgv = (o: RequestsOptions) =>
  loadgenArgv('requests', o.url, o.cacert, { n: o.n, c: o.c, 'expect-body': o.expectBody, 'expect-bytes': o.expectBytes })

/** Sends n keep-alive HTTP/1.1 GETs and checks status 200 (and the body or its length when given). */
export async function loadgenRequests(o: RequestsOptions): Promise<RequestsResult> {
  const r = await execPinned(requestsArgv(o), o.cpus)
  if (r.code !== 0 && r.code !== 1) throw new Error(`loadgen requests failed (exit ${r.code}): ${lastLine(r.stderr)}`)
  return JSON.parse(r.stdout) as RequestsResult
}

/** A loadgen run on this machine (a check), pinned to `cpus` when given. */
function execPinned(argv: string[], cpus: string | undefined) {
  const [cmd, ...args] = cpus ? ['taskset', '-c', cpus, ...argv] : argv
  return exec(cmd!, args, { timeoutMs: 120_000 })
}

/**
 * A loadgen check from a generator role of the runtime: on the generator's host when roles
 * run on several hosts, so the path measured is the path checked. Its JSON summary.
 */
export async function loadgenOn<T>(runtime: Runtime, argv: string[], o: { name: string; logDir: string; cpus?: string }): Promise<T> {
  const { exit, output } = await runToEnd(
    runtime,
    { role: 'generator', name: o.name, argv, cpus: o.cpus ?? '0', logFile: join(o.logDir, `${o.name}.log`) },
    120,
  )
  const r = parseLoadgenOutput<T>(output)
  if (!exit) throw new Error(`loadgen ${argv[1]} did not end within 120 s`)
  if ((exit.code !== 0 && exit.code !== 1) || !r) throw new Error(`loadgen ${argv[1]} failed (exit ${exit.code ?? exit.signal}): ${lastLine(output)}`)
  return r
}

/** Percentiles every loadgen subcommand reports, in milliseconds. */
export interface Latency {
  p50_ms: number
  p90_ms: number
  p99_ms: number
  p999_ms: number
  max_ms: number
}

/** JSON summary of `loadgen handshake`. */
export interface HandshakeResult extends Latency {
  handshakes: number
  resumed: number
  requests_ok: number
  errors: number
  error_samples: string[]
  tls_version: string
  cipher: string
  duration_s: number
  rate: number
}

/** JSON summary of `loadgen open` (k6 constant-arrival-rate semantics). */
export interface OpenResult extends Latency {
  target_rate: number
  achieved_rate: number
  iterations: number
  ok: number
  errors: number
  error_samples: string[]
  dropped: number
  max_vus: number
  vus_started: number
  new_connections: number
  duration_s: number
  service_p99_ms: number
  series: { t: number; rate: number; vus: number; p99_ms: number; dropped: number }[]
}

/** argv of a loadgen subcommand against our certificates (SNI and verification as localhost); a flag whose value is undefined is left out. */
export function loadgenArgv(sub: string, url: string, cacert: string | undefined, flags: Record<string, string | number | undefined>): string[] {
  const args = Object.entries(flags).flatMap(([k, v]) => (v === undefined ? [] : [`-${k}`, String(v)]))
  return [goBinaryPath('loadgen'), sub, '-url', url, ...(cacert && /^(https|wss):/.test(url) ? ['-cacert', cacert, '-server-name', 'localhost'] : []), ...args]
}

/** The JSON summary a loadgen subcommand printed as its last stdout line (its log may hold stderr lines too). */
export function parseLoadgenOutput<T>(text: string): T | null {
  for (const line of text.trim().split('\n').reverse()) {
    if (!line.startsWith('{')) continue
    try {
      return JSON.parse(line) as T
    } catch {}
  }
  return null
}

/** JSON summary of `loadgen ws-echo`. */
export interface WsEchoResult extends Latency {
  conns_target: number
  conns_established: number
  failed_upgrades: number
  upgrade_status: Record<string, number>
  errors: number
  error_samples: string[]
  messages: number
  msg_rate: number
  duration_s: number
}

/** JSON summary of `loadgen ws-hold`. */
export interface WsHoldResult {
  conns_target: number
  conns_established: number
  refused: number
  refusal_reasons: Record<string, number>
  closed_early: number
  close_reasons: Record<string, number>
  survived: number
  pings_sent: number
  pings: number
  ping_p50_ms: number
  ping_p99_ms: number
  ping_max_ms: number
  duration_s: number
  nofile: number
  series: { t: number; open: number }[]
}

/** JSON summary of `loadgen tcp`. */
export interface TcpResult extends Latency {
  mode: 'short' | 'stream'
  conns: number
  conns_ok: number
  errors: number
  mismatches: number
  /** Connects that took a second or more (a SYN retransmitted after a drop). */
  slow_connects: number
  error_samples: string[]
  bytes_sent: number
  bytes_echoed: number
  tls_version: string
  duration_s: number
  conn_rate: number
  mib_per_s: number
}

/** argv of `loadgen tcp` (tls:// is verified against our CA as localhost, the name a passthrough router matches). */
export function loadgenTcpArgv(url: string, cacert: string, flags: Record<string, string | number>): string[] {
  return loadgenArgv('tcp', url, undefined, { ...(url.startsWith('tls:') ? { cacert, 'server-name': 'localhost' } : {}), ...flags })
}

/** A short `loadgen tcp` run on the generator's cpus (verification): its summary, or an error with its last line. */
export async function loadgenTcp(url: string, cacert: string, flags: Record<string, string | number>, cpus?: string): Promise<TcpResult> {
  const r = await execPinned(loadgenTcpArgv(url, cacert, flags), cpus)
  const res = parseLoadgenOutput<TcpResult>(r.stdout)
  if (!res) throw new Error(`loadgen tcp failed (exit ${r.code}): ${lastLine(r.stderr)}`)
  return res
}

/** JSON summary of `loadgen h3` (docs/series/h3.md): the closed model over QUIC, the fields of `requests` and more. */
export interface H3Result extends RequestsResult, Latency {
  streams: number
  /** UDP datagrams of all its connections over the whole run, each way, and both ways inside the window. */
  udp_datagrams_sent: number
  udp_datagrams_received: number
  window_udp_datagrams: number
  /** Requests sent again on a new connection after the server closed theirs unprocessed (GOAWAY). */
  retried: number
  quic_version: string
  rate: number
  /** ok requests inside [-warmup, -warmup + -window]: what the percentiles describe. */
  window_ok: number
  latency_spectrum: LoadgenSpectrum
}

export interface H3Options {
  url: string
  connections: number
  streams: number
  /** Whole run, warm-up and window: -d. */
  seconds: number
  /** Latencies recorded from warmupS until the run ends (-d, or the SIGINT that ends the cell's window). */
  warmupS?: number
  /** -n: a fixed number of requests instead (verification). */
  requests?: number
  /** -timeout: limit for one request and for a QUIC handshake (absent: loadgen's 5 s). */
  timeoutS?: number
  cacert?: string
  expectBody?: string
  expectBytes?: number
}

/** argv of `loadgen h3`: -c connections, -m streams each, answers checked for h3 and the body. */
export const h3Argv = (o: H3Options) =>
  loadgenArgv('h3', o.url, o.cacert, {
    c: o.connections,
    m: o.streams,
    d: `${o.seconds}s`,
    n: o.requests || undefined,
    warmup: o.warmupS === undefined ? undefined : `${o.warmupS}s`,
    timeout: o.timeoutS === undefined ? undefined : `${o.timeoutS}s`,
    'expect-body': o.expectBody,
    'expect-bytes': o.expectBytes,
  })

/** JSON summary of `loadgen h3-handshake`: the fields of `loadgen handshake` and the QUIC ones. */
export interface H3HandshakeResult extends HandshakeResult {
  /** Connections whose request the server accepted as 0-RTT early data. */
  early_data: number
  alpn: string
  quic_version: string
  /** UDP datagrams of all attempts on its one socket, each way. */
  udp_datagrams_sent: number
  udp_datagrams_received: number
}

/** JSON summary of `loadgen h3 -rate` (the open model over QUIC): the fields of `loadgen open` and the QUIC ones. */
export interface H3OpenResult extends OpenResult {
  proto: string
  tls_version: string
  alpn: string
  quic_version: string
  retried: number
  udp_datagrams_sent: number
  udp_datagrams_received: number
}

/** UDP datagrams both ways per unit (request, handshake), or null with no unit to count per. */
export const datagramsPer = (datagrams: number | undefined, units: number): number | null =>
  datagrams !== undefined && units > 0 ? Number((datagrams / units).toFixed(2)) : null

/** The problem with an h3 summary as the protocol goes (ALPN h3, HTTP/3.0 answers), or null. */
export function h3ProtocolIssue(r: Pick<H3Result, 'alpn' | 'proto' | 'ok'>): string | null {
  if (r.alpn !== 'h3') return `ALPN ${r.alpn || 'none'}, expected h3`
  if (r.ok > 0 && r.proto !== 'HTTP/3.0') return `protocol ${r.proto}, expected HTTP/3.0`
  return null
}
