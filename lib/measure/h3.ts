import { loadgenSpectrum, writeLatencySpectrum } from '../data/latency.ts'
import type { Measurement } from '../data/schema.ts'
import { datagramsPer, h3Argv, h3ProtocolIssue, parseLoadgenOutput, type H3Result } from '../roles/loadgen.ts'
import { exec, lastLine } from '../core/exec.ts'
import { checkFromGenerator, requestTarget, type CellPlan, type CellContext, type RunningStack } from './cell.ts'
import { measureClosed, type ClosedGenerator } from './closed.ts'

/** Requests of the h3 check before the window, as the HTTP/1.1 verification sends. */
const VERIFY_H3_REQUESTS = 20

/**
 * Where the cell's HTTP/3 listens: the proxy's port over UDP (its h3 template listens on
 * TCP and UDP), or for the direct row the backend's own HTTP/3 listener.
 */
export function h3Url(s: RunningStack, cell: CellPlan): string {
  if (s.proxy) return s.url
  if (!s.backend.h3Port) throw new Error('the direct h3 row needs the backend started with its HTTP/3 listener')
  return `https://${s.backend.host}:${s.backend.h3Port}${requestTarget(cell)}`
}

/**
 * The URL a loadgen run of the cell loads, and for an h3 cell the problem its h3 check of the
 * stack found first (null: not h3, or the check passed).
 */
export async function loadTarget(cell: CellPlan, s: RunningStack, ctx: CellContext): Promise<{ url: string; issue: string | null }> {
  if (cell.protocol !== 'h3') return { url: s.url, issue: null }
  const url = h3Url(s, cell)
  return { url, issue: await verifyH3(url, cell, ctx, { name: `h3-${s.backend.port}`, scratch: s.scratch }) }
}

/** The one-line problem of an h3 check summary (every answer ok over h3), or null. */
export function h3CheckIssue(r: H3Result | null, exitCode: number | null): string | null {
  if (!r) return `loadgen h3 printed no summary (exit ${exitCode})`
  if (r.conns_opened === 0) return `no QUIC connection with ALPN h3 (${r.error_samples[0] ?? `exit ${exitCode}`})`
  const protocol = h3ProtocolIssue(r)
  if (protocol) return protocol
  if (r.errors > 0) return `${r.ok}/${r.ok + r.errors} ok over h3 (${r.error_samples[0] ?? JSON.stringify(r.status)})`
  return null
}

/**
 * Across hosts (--hosts) a QUIC check that opened no connection, after the TCP check from
 * the same generator host passed, most often means UDP is filtered on the way: the fix named.
 */
export function acrossHostsIssue(issue: string | null, url: string): string | null {
  if (!issue?.startsWith('no QUIC connection')) return issue
  const { hostname, port } = new URL(url)
  return `${issue}: TCP from the generator's host reached ${hostname}, UDP to port ${port} got no answer; let UDP from the generator's host through to ${hostname} (its firewall or security group; ports are picked per cell, as for TCP), or run h3 on one machine`
}

/**
 * 20 HTTP/3 requests through the stack before the window: a listener without HTTP/3 (no
 * UDP socket, or QUIC without h3 in ALPN) fails here, so its row is invalid, not measured as h1.
 */
export async function verifyH3(url: string, cell: CellPlan, ctx: CellContext, at: { name: string; scratch: string }): Promise<string | null> {
  const body = cell.bodyBytes ? { expectBytes: cell.bodyBytes } : { expectBody: 'hello world' }
  const argv = h3Argv({ url, connections: 2, streams: 1, seconds: 30, requests: VERIFY_H3_REQUESTS, cacert: ctx.certs.ca, ...body })
  try {
    const here = async () => {
      const [cmd, ...args] = ['taskset', '-c', ctx.cpus.generator, ...argv]
      const r = await exec(cmd!, args, { timeoutMs: 60_000 })
      const parsed = parseLoadgenOutput<H3Result>(r.stdout)
      if (!parsed) throw new Error(`loadgen h3 printed no summary (exit ${r.code}): ${lastLine(r.stderr)}`)
      return parsed
    }
    const issue = h3CheckIssue(await checkFromGenerator<H3Result>(ctx, at, argv, here), 0)
    return ctx.runtime.generatorElsewhere ? acrossHostsIssue(issue, url) : issue
  } catch (e) {
    return (e as Error).message.split('\n')[0]!
  }
}

/**
 * loadgen h3 as a closed-model generator: the cell's connections, `streams` requests in
 * flight on each, every answer checked for HTTP/3 and the body; latencies and datagrams
 * recorded from the warm-up's end (-warmup) until the SIGINT that ends the run a tail after
 * the window, extended or not (docs/method/disturbance.md#extension), with the HDR spectrum.
 */
export function h3Generator(cell: CellPlan, streams: number, ctx: CellContext): ClosedGenerator {
  let target = ''
  const body = cell.bodyBytes ? { expectBytes: cell.bodyBytes } : { expectBody: 'hello world' }
  return {
    raw: 'h3.json',
    fields: { streams },
    reportsOnInterrupt: true,
    async verify(s) {
      target = h3Url(s, cell)
      return verifyH3(target, cell, ctx, { name: `h3-${s.backend.port}`, scratch: s.scratch })
    },
    argv: (o) =>
      h3Argv({
        url: target,
        connections: o.connections,
        streams,
        seconds: o.seconds,
        warmupS: ctx.profile.warmupS,
        // A request may wait the whole run: at 100 streams × 200 connections the generator's own
        // queue holds 20,000 and its 5 s default failed them as errors (docs/series/h3.md#timeout).
        timeoutS: o.seconds,
        cacert: ctx.certs.ca,
        ...body,
      }),
    read(output, { name }) {
      const r = parseLoadgenOutput<H3Result>(output)
      if (!r) return null
      if (r.latency_spectrum.total_count > 0) writeLatencySpectrum(ctx.runDir, name, loadgenSpectrum('h3', r.latency_spectrum))
      const us = (ms: number) => ms * 1000
      return {
        requests: r.ok,
        errors: r.errors,
        latencyUs: r.window_ok > 0 ? { p50: us(r.p50_ms), p90: us(r.p90_ms), p99: us(r.p99_ms), p999: us(r.p999_ms), max: us(r.max_ms) } : null,
        issue: h3ProtocolIssue(r) ?? (r.window_ok > 0 ? null : 'loadgen h3 recorded no request inside the window'),
        // Both ways, in the generator's own window over the requests it completed in it (docs/series/h3.md#udp-datagrams).
        fields: { udp_datagrams_per_req: datagramsPer(r.window_udp_datagrams, r.window_ok) },
      }
    },
  }
}

/** One repeat of an h3 cell: the closed-model protocol with loadgen h3 at `cell.streams` streams per connection. */
export const measureH3 = (cell: CellPlan, repeat: number, ctx: CellContext): Promise<Measurement> =>
  measureClosed(cell, repeat, ctx, h3Generator(cell, cell.streams ?? 1, ctx))
