import { readFileSync } from 'node:fs'
import { get as httpGet } from 'node:http'
import { get as httpsGet } from 'node:https'
import { connect, createServer, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import type { Exit } from '../runtime/types.ts'

/** A port on a loopback address that was free a moment ago. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, host, () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port })
    s.once('connect', () => (s.destroy(), resolve(true)))
    s.once('error', () => resolve(false))
  })
}

/**
 * Waits until something accepts on the port. Rejects early when the process that
 * should listen exits, so a bad config fails in milliseconds, not at the timeout.
 */
export async function waitForPort(port: number, opts: ReadyOptions): Promise<void> {
  const host = opts.host ?? '127.0.0.1'
  return pollReady(() => canConnect(host, port), opts, { exited: `before listening on ${host}:${port}`, timeout: `did not listen on ${host}:${port}` }, 50)
}

function httpsOk(host: string, port: number, ca: string | null): Promise<boolean> {
  return new Promise((resolve) => {
    // The leaf's SANs are localhost and 127.0.0.1: a container address is verified as localhost.
    // ca null: a plain-HTTP listener (the http variants).
    const get = ca === null ? httpGet : httpsGet
    const req = get(
      { host, port, path: '/', ...(ca === null ? {} : { servername: 'localhost', ca }), agent: false, headers: { connection: 'close' } },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode === 200))
      },
    )
    req.on('error', () => resolve(false))
    req.setTimeout(2000, () => req.destroy())
  })
}

/**
 * Waits until an HTTPS GET / answers 200 (plain HTTP with `scheme: 'http'`). A listening
 * port is not enough: Traefik accepts connections before its file provider has loaded the routes.
 */
export async function waitForHttps(port: number, opts: ReadyOptions & { ca: string; scheme?: 'http' | 'https' }): Promise<void> {
  const host = opts.host ?? '127.0.0.1'
  const scheme = opts.scheme ?? 'https'
  const ca = scheme === 'http' ? null : readFileSync(opts.ca, 'utf8')
  const say = { exited: `before answering on ${host}:${port}`, timeout: `did not answer 200 on ${scheme}://${host}:${port}/` }
  return pollReady(() => httpsOk(host, port, ca), opts, say, 100)
}

/** Options of a readiness wait (waitForHttps, waitForEcho). */
export interface ReadyOptions {
  host?: string
  timeoutMs: number
  exited?: Promise<Exit>
  what: string
}

function echoOk(host: string, port: number, tls: { ca: string } | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const msg = 'proxybench ready\n'
    // SNI localhost: the leaf's name, and what a passthrough router matches on.
    const s: Socket = tls ? tlsConnect({ host, port, servername: 'localhost', ca: tls.ca }) : connect({ host, port })
    let got = ''
    const done = (ok: boolean) => (s.destroy(), resolve(ok))
    s.setTimeout(2000, () => done(false))
    s.once(tls ? 'secureConnect' : 'connect', () => s.write(msg))
    s.on('data', (d: Buffer) => {
      got += d.toString()
      if (got === msg) done(true)
    })
    s.once('error', () => done(false))
    s.once('close', () => done(got === msg))
  })
}

/**
 * Waits until a message sent through the port comes back (an L4 proxy in front of the
 * backend's echo): a listening port is not enough, Traefik accepts before its routers load.
 */
export async function waitForEcho(port: number, opts: ReadyOptions & { tls?: { ca: string } }): Promise<void> {
  const host = opts.host ?? '127.0.0.1'
  const tls = opts.tls ? { ca: readFileSync(opts.tls.ca, 'utf8') } : undefined
  const where = `${tls ? 'TLS on ' : ''}${host}:${port}`
  return pollReady(() => echoOk(host, port, tls), opts, { exited: `before echoing on ${where}`, timeout: `did not echo through ${where}` }, 100)
}

/** Polls `ok` until it holds; rejects as soon as the process that should answer exits, or at the timeout. */
async function pollReady(ok: () => Promise<boolean>, opts: ReadyOptions, say: { exited: string; timeout: string }, everyMs: number): Promise<void> {
  let exit: Exit | undefined
  void opts.exited?.then((e) => (exit = e))
  const deadline = Date.now() + opts.timeoutMs
  while (Date.now() < deadline) {
    if (exit) throw new Error(`${opts.what} exited (code ${exit.code ?? exit.signal}) ${say.exited}`)
    if (await ok()) return
    await new Promise((r) => setTimeout(r, everyMs))
  }
  throw new Error(`${opts.what} ${say.timeout} within ${opts.timeoutMs / 1000} s`)
}
