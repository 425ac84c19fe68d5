import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { exec } from '../core/exec.ts'
import type { Measurement } from '../data/schema.ts'
import { h2loadArgv, h2loadLog, h2loadProtocol } from '../roles/h2load.ts'
import type { CellPlan, CellContext } from './cell.ts'
import { measureClosed, type ClosedGenerator } from './closed.ts'

/**
 * Whether the proxy serves this URL over h2 with the backend's body: nghttp (the same
 * nghttp2-client package as h2load) offers h2 in ALPN and prints the protocol the server
 * chose. A second client than the load's own (h2load falls back to HTTP/1.1 and succeeds),
 * so a listener without h2 is caught before the window. nghttp only warns on a certificate
 * it cannot verify: the HTTP/1.1 verification before it (loadgen) checks the certificate.
 */
export async function verifyH2(url: string, ca: string, expectBody = 'hello world', cpus?: string): Promise<string | null> {
  const argv = ['nghttp', '-v', url]
  const [cmd, ...args] = cpus ? ['taskset', '-c', cpus, ...argv] : argv
  const r = await exec(cmd!, args, { env: { SSL_CERT_FILE: ca }, timeoutMs: 20_000 })
  // nghttp exits 0 even when the server chose no h2: the output decides.
  return h2Issue(r.stdout + r.stderr, r.code, expectBody)
}

/** The problem in nghttp -v output, or null: exit 0, ALPN chose h2, status 200 and the body. */
export function h2Issue(out: string, code: number, expectBody: string): string | null {
  const alpn = /The negotiated protocol: (\S+)/.exec(out)?.[1]
  if (!alpn) return `no h2 via ALPN: ${/\[ERROR\][^\n]*/.exec(out)?.[0] ?? (out.includes('TLS') ? 'the server chose no ALPN protocol' : `nghttp exit ${code}`)}`
  if (alpn !== 'h2') return `ALPN chose ${alpn}, expected h2`
  const status = /:status: (\d+)/.exec(out)?.[1]
  if (status !== '200') return `h2 status ${status ?? 'none'}, expected 200`
  if (!out.includes(expectBody)) return `h2 body is not "${expectBody}"`
  return code === 0 ? null : `nghttp exit ${code}`
}

const H2LOAD_LOG = 'h2load.log'

/**
 * h2load as a closed-model generator: -c connections with -m streams each, over TLS with
 * h2 chosen by ALPN. It is started for the longest window and interrupted a tail after the
 * window it took (docs/method/disturbance.md#extension); it then prints no summary, so its
 * counts and latencies come from its per-request log (latencies cut to the window), and the
 * protocol from the line it prints at its first connection.
 */
export const h2loadGenerator = (streams: number, ctx: CellContext): ClosedGenerator => ({
  raw: 'h2load.txt',
  fields: { streams },
  reportsOnInterrupt: true,
  // Its per-request log goes to the cell's scratch folder (relative to it: the same in a container).
  inScratch: true,
  argv: (o) => h2loadArgv({ ...o, streams, logFile: H2LOAD_LOG }),
  verify: (s) => verifyH2(s.url, ctx.certs.ca, 'hello world', ctx.cpus.generator),
  read(output, { scratch, fromUs, toUs }) {
    // A line per request, summarised in the row: read from the scratch folder, which goes with the cell.
    const log = join(scratch, H2LOAD_LOG)
    if (!existsSync(log)) return null
    const r = h2loadLog(readFileSync(log, 'utf8'), fromUs, toUs)
    const protocol = h2loadProtocol(output)
    return {
      requests: r.ok,
      errors: r.errors,
      latencyUs: r.latency,
      issue:
        protocol === 'h2'
          ? r.latency
            ? null
            : 'h2load wrote no request log inside the window'
          : `h2load negotiated ${protocol ?? 'no ALPN protocol'}, not h2`,
    }
  },
})

/** One repeat of an h2 cell: the closed-model protocol with h2load at `cell.streams` streams per connection. */
export const measureH2 = (cell: CellPlan & { streams: number }, repeat: number, ctx: CellContext): Promise<Measurement> =>
  measureClosed(cell, repeat, ctx, h2loadGenerator(cell.streams, ctx))
