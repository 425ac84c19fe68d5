import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { startBackend, backendStats, connsBetween } from './backend.ts'
import { expectsReuse, loadStack, templateFile, type ProxyName } from './catalog.ts'
import type { CertFiles } from './certs.ts'
import { defaultCpuLayout, cpuCount } from './cpus.ts'
import { loadgenRequests } from './loadgen.ts'
import type { Logger } from './log.ts'
import { prepareProxy, startProxy } from './proxy.ts'
import { acquireRunLock } from './run-lock.ts'
import { cleanupStale, NativeRuntime } from './runtime/native.ts'

export interface PoolRow {
  proxy: ProxyName
  version: string
  variant: string
  /** Backend TCP connections per 100 proxied requests (the measured pool detector). */
  conns_per_100: number | null
  /** What the documentation predicts (stack.yaml `reuse`). */
  expected: 'reuse' | 'no reuse'
  ok_responses: number
  requests: number
  proto: string
  /** ok: answered and matched the prediction; unexpected: answered, prediction wrong; failed: did not answer. */
  status: 'ok' | 'unexpected' | 'failed'
  note?: string
}

export const REQUESTS_PER_CELL = 100
/** Thresholds of "reuses" and "does not reuse", per 100 requests. */
export const POOLED_MAX = 10
export const UNPOOLED_MIN = 90

export function judge(conns: number, expected: PoolRow['expected']): boolean {
  return expected === 'reuse' ? conns <= POOLED_MAX : conns >= UNPOOLED_MIN
}

export interface PoolTableOptions {
  proxies: readonly ProxyName[]
  /** Only these variants (default: all of each stack). */
  variants?: readonly string[]
  certs: CertFiles
  ca: string
  workDir: string
  log: Logger
}

/**
 * For every proxy, catalog version and variant: start it natively in front of the
 * backend, send 100 keep-alive HTTPS requests over 2 client connections, and count the
 * connections the backend accepted.
 */
export async function poolTable(o: PoolTableOptions): Promise<PoolRow[]> {
  const releaseLock = acquireRunLock(o.workDir)
  cleanupStale(o.log)
  const runtime = new NativeRuntime(`pool-${process.pid}-${Date.now()}`)
  const cpus = defaultCpuLayout()
  const rows: PoolRow[] = []
  try {
    mkdirSync(o.workDir, { recursive: true })
    const backend = await startBackend(runtime, { cpus: cpus.backend, logDir: o.workDir })
    const cells = o.proxies.flatMap((proxy) => {
      const stack = loadStack(proxy)
      const variants = Object.keys(stack.variants).filter((v) => !o.variants || o.variants.includes(v))
      return stack.versions.flatMap((version) => variants.map((variant) => ({ stack, version, variant })))
    })
    for (const [i, { stack, version, variant }] of cells.entries()) {
      o.log.progress(`pool detector ${i + 1}/${cells.length}: ${stack.proxy} ${version.version} ${variant}`)
      const base = { proxy: stack.proxy, version: version.version, variant, expected: expectsReuse(stack, variant, version.version) ? 'reuse' : 'no reuse', requests: REQUESTS_PER_CELL } as const
      const runDir = join(o.workDir, `${stack.proxy}-${version.version}-${variant}`)
      try {
        const prepared = await prepareProxy({ stack, version, variant, template: templateFile(stack, variant), certs: o.certs, backend, threads: cpuCount(cpus.proxy), runDir })
        const proxy = await startProxy(runtime, prepared, cpus.proxy, o.ca)
        try {
          const before = await backendStats(backend)
          const r = await loadgenRequests({ url: `https://127.0.0.1:${prepared.listenPort}/`, n: REQUESTS_PER_CELL, c: 2, cacert: o.ca, expectBody: 'hello world', cpus: cpus.generator })
          const after = await backendStats(backend)
          const conns = (connsBetween(before, after) * 100) / r.requests
          const answered = r.ok === r.requests
          rows.push({
            ...base,
            conns_per_100: conns,
            ok_responses: r.ok,
            proto: r.proto,
            status: !answered ? 'failed' : judge(conns, base.expected) ? 'ok' : 'unexpected',
            ...(answered ? {} : { note: `${r.ok}/${r.requests} ok; ${r.error_samples[0] ?? JSON.stringify(r.status)}` }),
          })
        } finally {
          await runtime.stop(proxy)
        }
        rmSync(runDir, { recursive: true, force: true })
      } catch (e) {
        rows.push({ ...base, conns_per_100: null, ok_responses: 0, proto: '', status: 'failed', note: (e as Error).message.split('\n')[0] })
      }
    }
  } finally {
    await runtime.stopAll()
    releaseLock()
  }
  return rows
}
