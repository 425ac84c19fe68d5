import { get } from 'node:http'
import { join } from 'node:path'
import { goBinaryPath } from '../setup/gobuild.ts'
import { freePort, waitForPort } from './net.ts'
import { listenHost, LOOPBACK, reachHost } from '../runtime/network.ts'
import type { Runtime, RunningRole } from '../runtime/types.ts'

/** Counters of stacks/backend's /__stats. */
export interface BackendStats {
  accepted: number
  active: number
  requests: number
  ws_active: number
  ws_messages: number
  /** Connections and bytes of the L4 echo listeners (absent from a backend built before them). */
  tcp_accepted?: number
  tcp_bytes?: number
  /** QUIC connections of the HTTP/3 listener (also counted in accepted). */
  h3_accepted?: number
}

export interface Backend {
  role: RunningRole
  host: string
  port: number
  /** The L4 echo listeners (started with `echo`): plain TCP, and TLS with the cell's certificate. */
  tcpPort?: number
  tlsPort?: number
  /** The HTTP/3 listener (started with `h3`): UDP, the cell's certificate (docs/series/h3.md). */
  h3Port?: number
}

let nextHost = 0

/**
 * A different loopback address for each backend start (127.0.0.2 … 127.0.0.254): the
 * TIME_WAIT sockets an unpooled cell leaves behind (tens of thousands) then never share
 * a 4-tuple space with the next cell's backend connections.
 */
export function nextBackendHost(): string {
  nextHost = (nextHost % 253) + 1
  return `127.0.0.${nextHost + 1}`
}

/**
 * Starts the backend on a free port of `host` (a loopback address), or, on a bridged
 * runtime, on 0.0.0.0 in its container; `host` of the result is where it is reached.
 */
export async function startBackend(
  runtime: Runtime,
  opts: { cpus: string; logDir: string; name?: string; host?: string; echo?: { cert: string; key: string }; h3?: { cert: string; key: string } },
): Promise<Backend> {
  const loopback = opts.host ?? LOOPBACK
  const ports = [await freePort(loopback)]
  // The echo's two ports distinct from it and each other: a port freed a moment ago can be handed out again at once.
  while (opts.echo && ports.length < 3) {
    const p = await freePort(loopback)
    if (!ports.includes(p)) ports.push(p)
  }
  const [port, tcpPort, tlsPort] = ports as [number, number?, number?]
  const at = (p: number) => `${listenHost(runtime, loopback, 'backend')}:${p}`
  const echo = tcpPort && tlsPort ? { tcpPort, tlsPort } : undefined
  // HTTP/3 on UDP: the TCP port number picked free is the one it takes (a UDP port of that number is free all but always).
  const h3Port = opts.h3 ? await freePort(loopback) : undefined
  const h3Args = opts.h3 && h3Port ? ['-h3-listen', at(h3Port), '-tls-cert', opts.h3.cert, '-tls-key', opts.h3.key] : []
  const echoArgs =
    echo && opts.echo ? ['-tcp-listen', at(echo.tcpPort), '-tls-listen', at(echo.tlsPort), '-tls-cert', opts.echo.cert, '-tls-key', opts.echo.key] : []
  const role = await runtime.start({
    role: 'backend',
    name: opts.name ?? 'backend',
    argv: [goBinaryPath('backend'), '-listen', at(port), ...echoArgs, ...h3Args],
    cpus: opts.cpus,
    logFile: join(opts.logDir, 'backend.log'),
  })
  const host = reachHost(runtime, role, loopback)
  await waitForPort(port, { host, timeoutMs: 10_000, exited: role.exited, what: 'backend' })
  for (const p of echo ? [echo.tcpPort, echo.tlsPort] : []) await waitForPort(p, { host, timeoutMs: 10_000, exited: role.exited, what: 'backend echo' })
  return { role, host, port, ...echo, ...(h3Port ? { h3Port } : {}) }
}

/**
 * Reads /__stats over a connection of its own (no keep-alive), so each read adds
 * exactly one accepted connection, which `connsBetween` subtracts. A connection not
 * established within a second is given up and opened again from another port (it adds no
 * accepted connection): under a proxy that opens a backend connection per request, a SYN can
 * meet a port pair still in TIME_WAIT and be retried for as long as that lasts (a minute).
 */
export async function backendStats(b: { host: string; port: number }): Promise<BackendStats> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statsOnce(b)
    } catch (e) {
      if (!(e instanceof NotConnected) || attempt >= STATS_CONNECT_TRIES) throw e
    }
  }
}

const STATS_CONNECT_MS = 1000
const STATS_CONNECT_TRIES = 5
class NotConnected extends Error {}

function statsOnce(b: { host: string; port: number }): Promise<BackendStats> {
  return new Promise((resolve, reject) => {
    const req = get({ host: b.host, port: b.port, path: '/__stats', agent: false, headers: { connection: 'close' } }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d))
      res.on('end', () => {
        try {
          resolve(JSON.parse(body) as BackendStats)
        } catch {
          reject(new Error(`backend /__stats answered ${res.statusCode} with ${body.slice(0, 80)}`))
        }
      })
    })
    req.on('socket', (socket) => {
      const connecting = setTimeout(() => req.destroy(new NotConnected(`backend /__stats: not connected within ${STATS_CONNECT_MS} ms`)), STATS_CONNECT_MS)
      socket.once('connect', () => clearTimeout(connecting))
      socket.once('close', () => clearTimeout(connecting))
    })
    req.on('error', reject)
    req.setTimeout(5000, () => req.destroy(new Error('backend /__stats timed out')))
  })
}

/** Backend connections accepted between two stats reads, not counting the second read's own. */
export function connsBetween(before: BackendStats, after: BackendStats): number {
  return after.accepted - before.accepted - 1
}
