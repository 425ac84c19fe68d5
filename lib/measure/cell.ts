import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backendStats, nextBackendHost, startBackend, type Backend, type BackendStats } from '../roles/backend.ts'
import type { Stack, StackVersion } from '../catalog/stack.ts'
import type { CertSet, KeyType } from '../setup/certs.ts'
import { cpuCount, type CpuLayout } from '../roles/cpus.ts'
import type { Measurement } from '../data/schema.ts'
import { loadgenRequests } from '../roles/loadgen.ts'
import { prepareProxy, startProxy } from '../roles/proxy.ts'
import { listenHost, reachHost } from '../runtime/network.ts'
import type { RunningRole, Runtime } from '../runtime/types.ts'
import { invalidReasons } from './validity.ts'
import { parseWrkOutput, wrkArgv, wrkErrorCount } from '../roles/wrk.ts'

/** One cell of a series: what is measured, independent of the repeat. */
export interface Cell {
  series: string
  /** A proxy of the catalog, or `direct` (generator straight to the backend: the floor). */
  proxy: string
  version: string
  variant: string
  keyType: KeyType
  connections: number
  /** For proxies: the stack, catalog entry and template to render. */
  stack?: Stack
  stackVersion?: StackVersion
  template?: string
}

export interface Profile {
  name: string
  repeats: number
  warmupS: number
  durationS: number
  /** Generator keeps running this long after the window so the window never sees ramp-down. */
  tailS: number
}

export interface CellContext {
  runtime: Runtime
  runId: string
  /** results/<run-id>: raw/ and configs/ go below it. */
  runDir: string
  cpus: CpuLayout
  profile: Profile
  certs: CertSet
}

interface Snapshot {
  at: bigint
  proxyNs: number
  backendNs: number
  generatorNs: number
  stats: BackendStats
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (x: number, digits = 3) => Number(x.toFixed(digits))

export const cellName = (c: Cell) => `${c.series}-${c.proxy}-${c.version}-${c.variant.replace(/[^\w.-]/g, '_')}-${c.keyType}-c${c.connections}`

/**
 * The cell protocol: start backend and proxy, verify, then run the closed-model load
 * and read cumulative counters at the start and end of the window inside it, so
 * connection set-up and ramp-down stay outside. Always returns a row; never throws
 * for a failure of the thing measured.
 */
export async function measureCell(cell: Cell, repeat: number, ctx: CellContext): Promise<Measurement> {
  const started = new Date().toISOString()
  const row = (fields: Partial<Measurement>): Measurement => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, key_type: cell.keyType,
    model: 'closed', connections: cell.connections, target_rps: null, duration_s: ctx.profile.durationS, repeat,
    requests: 0, errors: 0, rps: null, p50_ms: null, p90_ms: null, p99_ms: null, p999_ms: null, max_ms: null,
    proxy_cpu_us_per_req: null, backend_cpu_us_per_req: null, generator_cpu_share: null, backend_conns_per_1k_req: null,
    max_vus: null, dropped: null, status: 'valid', reason: '', proxy_cpu_share: null, runtime: ctx.runtime.kind, started_at: started,
    ...fields,
  })
  const name = `${cellName(cell)}-r${repeat}`
  return withVerifiedStack(cell, name, ctx, { failed: (reason) => row({ status: 'failed', reason }), invalid: (reason) => row({ status: 'invalid', reason }) }, async ({ backend, proxy, url, roles }) => {
    const p = ctx.profile
    const genThreads = cpuCount(ctx.cpus.generator)
    const rawFile = join(ctx.runDir, 'raw', `${name}.wrk.txt`)
    rmSync(rawFile, { force: true })
    const generator = await ctx.runtime.start({
      role: 'generator', name: `generator-${name}`,
      argv: wrkArgv({ url, threads: genThreads, connections: cell.connections, seconds: p.warmupS + p.durationS + p.tailS }),
      cpus: ctx.cpus.generator, logFile: rawFile,
    })
    roles.push(generator)
    const snap = async (): Promise<Snapshot> => {
      const [proxyNs, backendNs, generatorNs] = await Promise.all([proxy ? ctx.runtime.cpuNs(proxy) : 0, ctx.runtime.cpuNs(backend.role), ctx.runtime.cpuNs(generator)])
      return { at: process.hrtime.bigint(), proxyNs, backendNs, generatorNs, stats: await backendStats(backend) }
    }
    await sleep(p.warmupS * 1000)
    const a = await snap()
    await sleep(p.durationS * 1000)
    const b = await snap()
    const exitedEarly = [proxy, backend.role].find((r) => r?.exit)
    // wrk stops itself after -d; if it does not, the row says so instead of the run hanging.
    const hung = await Promise.race([generator.exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), (p.tailS + 30) * 1000).unref())])
    if (hung) await ctx.runtime.stop(generator)
    const report = parseWrkOutput(readFileSync(rawFile, 'utf8'))

    const windowS = Number(b.at - a.at) / 1e9
    const requests = b.stats.requests - a.stats.requests
    const perReq = (ns: number) => (requests > 0 ? round(ns / 1e3 / requests) : null)
    const generatorShare = round((b.generatorNs - a.generatorNs) / 1e9 / (windowS * genThreads), 4)
    const errors = report ? wrkErrorCount(report) : 0
    const reasons = invalidReasons({
      generatorRequests: report?.requests ?? 0, generatorErrors: errors, windowRequests: requests, generatorCpuShare: generatorShare,
      exited: exitedEarly ? `${exitedEarly.spec.role} exited during the window (code ${exitedEarly.exit!.code ?? exitedEarly.exit!.signal})` : !report ? `wrk printed no report (exit ${generator.exit?.code})` : null,
    })
    const ms = (us: number | undefined) => (us === undefined ? null : round(us / 1000, 3))
    return row({
      requests,
      errors,
      rps: round(requests / windowS, 1),
      p50_ms: ms(report?.latency_us.p50), p90_ms: ms(report?.latency_us.p90), p99_ms: ms(report?.latency_us.p99), p999_ms: ms(report?.latency_us.p999), max_ms: ms(report?.latency_us.max),
      proxy_cpu_us_per_req: proxy ? perReq(b.proxyNs - a.proxyNs) : null,
      backend_cpu_us_per_req: perReq(b.backendNs - a.backendNs),
      generator_cpu_share: generatorShare,
      // The second stats read opens one connection of its own.
      backend_conns_per_1k_req: requests > 0 ? round(((b.stats.accepted - a.stats.accepted - 1) * 1000) / requests, 2) : null,
      proxy_cpu_share: proxy ? round((b.proxyNs - a.proxyNs) / 1e9 / (windowS * cpuCount(ctx.cpus.proxy)), 4) : null,
      status: reasons.length ? 'invalid' : 'valid',
      reason: reasons.join('; '),
    })
  })
}

/** 20 requests through the stack; a problem is a one-line reason, never an exception. */
async function verify(url: string, ctx: CellContext): Promise<string | null> {
  try {
    const check = await loadgenRequests({ url, n: 20, c: 2, cacert: ctx.certs.ca, expectBody: 'hello world', cpus: ctx.cpus.generator })
    if (check.ok !== check.requests) return `${check.ok}/${check.requests} ok (${check.error_samples[0] ?? JSON.stringify(check.status)})`
    if (check.proto !== 'HTTP/1.1') return `protocol ${check.proto}, expected HTTP/1.1`
    return null
  } catch (e) {
    return (e as Error).message.split('\n')[0]!
  }
}

export interface RunningStack {
  backend: Backend
  /** Absent for the direct row. */
  proxy?: RunningRole
  url: string
  /** Everything started for this cell; roles added here are stopped with the stack. */
  roles: RunningRole[]
  scratch: string
}

/**
 * Starts backend and proxy for a cell, verifies them, runs `body`, and stops everything
 * whatever happens. A start failure or a failed verification becomes a row through
 * `outcome`, never an exception: one bad cell must not end the run.
 */
export async function withVerifiedStack<T>(cell: Cell, name: string, ctx: CellContext, outcome: { failed(reason: string): T; invalid(reason: string): T }, body: (s: RunningStack) => Promise<T>): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), 'proxybench-cell-'))
  const roles: RunningRole[] = []
  try {
    let stack: RunningStack
    try {
      const backend = await startBackend(ctx.runtime, { cpus: ctx.cpus.backend, logDir: scratch, name: `backend-${name}`, host: nextBackendHost() })
      roles.push(backend.role)
      stack = { backend, url: `http://${backend.host}:${backend.port}/`, roles, scratch }
      if (cell.stack && cell.stackVersion && cell.template) {
        const prepared = await prepareProxy({
          stack: cell.stack, version: cell.stackVersion, variant: cell.variant, template: cell.template,
          certs: ctx.certs.files[cell.keyType], backend, listenHost: listenHost(ctx.runtime), threads: cpuCount(ctx.cpus.proxy), runDir: join(scratch, 'proxy'),
        })
        const saved = join(ctx.runDir, 'configs', `${cell.proxy}-${cell.version}-${cell.variant.replace(/[^\w.-]/g, '_')}.${cell.stack.config_ext}`)
        mkdirSync(join(ctx.runDir, 'configs'), { recursive: true })
        if (!existsSync(saved)) copyFileSync(prepared.configFile, saved)
        stack.proxy = await startProxy(ctx.runtime, prepared, ctx.cpus.proxy, ctx.certs.ca)
        roles.push(stack.proxy)
        stack.url = `https://${reachHost(ctx.runtime, stack.proxy)}:${prepared.listenPort}/`
      }
    } catch (e) {
      return outcome.failed(`did not start: ${(e as Error).message.split('\n')[0]}`)
    }
    const verification = await verify(stack.url, ctx)
    if (verification) return outcome.invalid(`verification failed: ${verification}`)
    return await body(stack)
  } finally {
    for (const r of roles.reverse()) await ctx.runtime.stop(r)
    rmSync(scratch, { recursive: true, force: true })
  }
}
