import { blankRow } from '../data/columns/derive.ts'
import { ROW_FILES } from '../data/columns/table.ts'
import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { TcpRow } from '../data/schema.ts'
import { backendStats, type Backend, type BackendStats } from '../roles/backend.ts'
import { cpuCount } from '../roles/cpus.ts'
import { loadgenTcp, loadgenTcpArgv, type TcpResult } from '../roles/loadgen.ts'
import { waitForEcho } from '../roles/net.ts'
import { checkFromGenerator, withVerifiedStack, type CellPlan, type CellContext, type L4Stack, type RunningStack } from './cell.ts'
import { cpuPerUnit, judgedColumns, runGenerator, type GeneratorOutcome } from './generator.ts'
import { countColumns, outcomes, rowWindow, type RowFill } from './rows.ts'
import { invalidReasons } from './validity.ts'
import type { RunningRole } from '../runtime/types.ts'

export type TcpMode = 'short' | 'stream'

/**
 * The stated mix (docs/series/l4.md). short: each worker connects, sends one 64-byte
 * message, reads it back and closes, back to back (the cost per connection: accept, backend
 * connect, two closes, and a full TLS handshake where TLS is on). stream: each worker sends
 * `streamBytes` on one connection while reading them back, then closes (the cost per MiB:
 * every MiB crosses the proxy twice, out and back).
 */
export const L4_MIX: Record<TcpMode, { connections: number; msgBytes: number; streamBytes: number }> = {
  short: { connections: 32, msgBytes: 64, streamBytes: 0 },
  stream: { connections: 4, msgBytes: 0, streamBytes: 16 << 20 },
}

/** The `series` column of each mode's rows. */
export const L4_SERIES: Record<TcpMode, string> = { short: 'l4-short', stream: 'l4-stream' }

/** What a catalog variant says about L4 (stack.yaml `l4`); undefined: not an L4 variant. */
export const l4Of = (c: CellPlan) => c.stack?.variants[c.variant]?.l4

const round = (x: number, d = 3) => Number(x.toFixed(d))
const MiB = 1 << 20

function tcpRow(cell: CellPlan, mode: TcpMode, repeat: number, ctx: CellContext): RowFill<TcpRow> {
  const mix = L4_MIX[mode]
  const start = {
    ...blankRow(ROW_FILES.tcp),
    ...rowWindow(cell, repeat, ctx),
    key_type: cell.keyType,
    mode,
    connections: cell.connections,
    msg_bytes: mix.msgBytes,
    stream_bytes: mix.streamBytes,
    duration_s: ctx.profile.durationS,
    conns: 0,
    errors: 0,
    mismatches: 0,
    bytes_echoed: 0,
  }
  return (fields) => ({ ...start, ...fields })
}

const echoAccepted = (s: BackendStats) => s.tcp_accepted ?? 0

/**
 * A window where 1% or more of the connects took a second or more (the first SYN
 * retransmit: a SYN dropped by a full conntrack table or listen queue, as happens on a
 * machine full of TIME_WAIT connections) measured a trickle of connections, not the load:
 * invalid, with the count.
 */
export function slowConnectReason(r: Pick<TcpResult, 'slow_connects' | 'conns' | 'errors'>): string | null {
  const attempts = r.conns + r.errors
  if (!r.slow_connects || attempts === 0 || r.slow_connects / attempts < 0.01) return null
  return `${r.slow_connects} of ${attempts} connects took ≥ 1 s (SYN retransmits: SYNs dropped, e.g. a full conntrack table)`
}

/**
 * Verification of an L4 stack: 20 short connections and 2 streams of 1 MiB through the
 * proxy, every byte back as sent, the TLS version where the client speaks TLS, and the
 * backend's echo counting at least those connections (the bytes went through to it).
 */
export async function verifyL4(url: string, backend: Backend, ctx: CellContext, at?: { scratch: string }): Promise<string | null> {
  try {
    const before = await backendStats(backend)
    const tcp = (flags: Record<string, string | number>) =>
      checkFromGenerator<TcpResult>(ctx, at && { name: `l4-${flags.mode}`, scratch: at.scratch }, loadgenTcpArgv(url, ctx.certs.ca, flags), () =>
        loadgenTcp(url, ctx.certs.ca, flags, ctx.cpus.generator),
      )
    const short = await tcp({ mode: 'short', n: 20, c: 2, 'msg-bytes': 64 })
    const stream = await tcp({ mode: 'stream', n: 2, c: 2, 'stream-bytes': MiB })
    const after = await backendStats(backend)
    for (const r of [short, stream]) {
      if (r.conns_ok !== r.conns || r.conns === 0) return `${r.mode}: ${r.conns_ok}/${r.conns} connections echoed (${r.error_samples[0] ?? 'none connected'})`
      if (r.mismatches > 0) return `${r.mode}: ${r.mismatches} echoes differ from what was sent`
      if (url.startsWith('tls:') && !r.tls_version) return `${r.mode}: no TLS version negotiated`
    }
    const reached = echoAccepted(after) - echoAccepted(before)
    if (reached < short.conns + stream.conns) return `the backend's echo accepted ${reached} connections for ${short.conns + stream.conns} through the proxy`
    return null
  } catch (e) {
    return (e as Error).message.split('\n')[0]!
  }
}

/** The L4 stack of a cell: which echo the proxy forwards to, and how readiness and verification go. */
export function l4Stack(cell: CellPlan, ctx: CellContext): L4Stack {
  const l4 = l4Of(cell)
  if (!l4) throw new Error(`${cell.proxy} variant ${cell.variant} is not an L4 variant (stack.yaml has no l4 entry)`)
  const scheme = l4.client === 'tls' ? 'tls' : 'tcp'
  return {
    backendPort: (b) => (l4.backend === 'tls' ? b.tlsPort! : b.tcpPort!),
    ready: (port, o) => waitForEcho(port, { ...o, ...(l4.client === 'tls' ? { tls: { ca: ctx.certs.ca } } : {}) }),
    url: (host, port) => `${scheme}://${host}:${port}`,
    verify: (s) => verifyL4(s.url, s.backend, ctx, s),
  }
}

/** One repeat of an L4 cell: proxy CPU per connection (short) or per MiB (stream). */
export async function measureTcp(cell: CellPlan, mode: TcpMode, repeat: number, ctx: CellContext): Promise<TcpRow> {
  const row = tcpRow(cell, mode, repeat, ctx)
  const name = repeatStem(cell, repeat)
  return withVerifiedStack(
    cell,
    name,
    ctx,
    outcomes(row),
    async (s) => {
      const { g, accepted } = await runTcpGenerator(cell, mode, name, s, ctx)
      return row(tcpFields(mode, g, accepted, s.proxy!, ctx))
    },
    l4Stack(cell, ctx),
  )
}

/** Runs loadgen tcp in the cell's mode for the profile's duration (longer when it extends itself); with the connections the backend's echo accepted meanwhile. */
async function runTcpGenerator(cell: CellPlan, mode: TcpMode, name: string, s: RunningStack, ctx: CellContext) {
  const mix = L4_MIX[mode]
  const flags: Record<string, number> = mode === 'short' ? { 'msg-bytes': mix.msgBytes } : { 'stream-bytes': mix.streamBytes }
  // Started for the longest window, interrupted once the window it took is over (docs/method/disturbance.md#extension).
  const argv = (runS: number) => loadgenTcpArgv(s.url, ctx.certs.ca, { mode, c: cell.connections, d: `${runS}s`, ...flags })
  const before = await backendStats(s.backend)
  // The echo's connections (short) or bytes (stream) are the work a slice did.
  const work = async () => {
    const b = await backendStats(s.backend)
    return mode === 'short' ? echoAccepted(b) : (b.tcp_bytes ?? 0)
  }
  const g = await runGenerator<TcpResult>(ctx, name, argv, rawFile(ctx.runDir, name, 'tcp.json'), [s.proxy!], s.roles, ctx.profile.durationS, { work })
  const after = await backendStats(s.backend)
  return { g, accepted: echoAccepted(after) - echoAccepted(before) }
}

/** The columns of an L4 row from its generator run and the connections the backend's echo accepted over it. */
function tcpFields(mode: TcpMode, g: GeneratorOutcome<TcpResult>, accepted: number, proxy: RunningRole, ctx: CellContext): Partial<TcpRow> {
  const r = g.result
  const proxyNs = g.cpuNs.get(proxy)!
  const ok = r?.conns_ok ?? 0
  const reasons = tcpInvalidReasons(g)
  const perConn = cpuPerUnit(g, proxy, ok)
  const mib = r ? r.bytes_echoed / MiB : 0
  const perMib = mode === 'stream' ? cpuPerUnit(g, proxy, mib) : null
  return {
    // Counted per connection in short cells, per MiB in stream cells (the cell's metric).
    ...(mode === 'stream' ? countColumns(g.counts.get(proxy), mib, perMib) : countColumns(g.counts.get(proxy), ok, perConn)),
    ...tcpReportColumns(r),
    proxy_cpu_us_per_conn: perConn,
    // Per MiB only where MiB are the load: a short cell's 64 bytes would make it the cost of connections.
    proxy_cpu_us_per_mib: perMib,
    // The backend's own stats read opens no echo connection: every one counted came through the proxy.
    backend_conns_per_conn: r && r.conns > 0 ? round(accepted / r.conns, 4) : null,
    generator_cpu_share: g.generatorShare,
    proxy_cpu_share: round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
    ...judgedColumns(g, reasons),
  }
}

/** Why an L4 run is invalid (empty: valid): the run's own reasons, then echoes that differ and slow connects. */
function tcpInvalidReasons(g: GeneratorOutcome<TcpResult>): string[] {
  const r = g.result
  const reasons = invalidReasons({
    generatorRequests: r?.conns_ok ?? 0,
    generatorErrors: r?.errors ?? 0,
    windowRequests: r?.conns_ok ?? 0,
    generatorCpuShare: g.generatorShare,
    exited: g.exit,
  })
  if (!r) return reasons
  if (r.mismatches > 0) reasons.push(`${r.mismatches} echoes differ from what was sent`)
  const slow = slowConnectReason(r)
  if (slow) reasons.push(slow)
  return reasons
}

/** The generator's own figures: connections, errors, bytes, rates, connect latencies. */
function tcpReportColumns(r: TcpResult | null): Partial<TcpRow> {
  return {
    conns: r?.conns_ok ?? 0,
    errors: r?.errors ?? 0,
    mismatches: r?.mismatches ?? 0,
    bytes_echoed: r?.bytes_echoed ?? 0,
    conn_rate: r ? round(r.conn_rate, 1) : null,
    mib_per_s: r ? round(r.mib_per_s, 1) : null,
    p50_ms: r?.p50_ms ?? null,
    p99_ms: r?.p99_ms ?? null,
    max_ms: r?.max_ms ?? null,
  }
}
