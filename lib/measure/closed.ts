import { readFileSync, rmSync } from 'node:fs'
import { writeLatencySpectrum } from '../data/latency.ts'
import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { Measurement } from '../data/schema.ts'
import { backendStats, type BackendStats } from '../roles/backend.ts'
import { cpuCount } from '../roles/cpus.ts'
import { parseWrkOutput, parseWrkSpectrum, wrkArgv, wrkErrorCount } from '../roles/wrk.ts'
import { withVerifiedStack, type Cell, type CellContext } from './cell.ts'
import { disturbance, measuredCores, readProcStat, rolesOnNs, type CpuTimes } from './disturbance.ts'
import { measurementRow, outcomes } from './rows.ts'
import { invalidReasons } from './validity.ts'

interface Snapshot {
  at: bigint
  stat: Map<number, CpuTimes>
  proxyNs: number
  backendNs: number
  generatorNs: number
  stats: BackendStats
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (x: number, digits = 3) => Number(x.toFixed(digits))

/**
 * The closed model (wrk) through the cell protocol: start backend and proxy, verify,
 * then run the load and read cumulative counters at the start and end of the window
 * inside it, so connection set-up and ramp-down stay outside. Always returns a row; never throws
 * for a failure of the thing measured.
 */
export async function measureClosed(cell: Cell, repeat: number, ctx: CellContext): Promise<Measurement> {
  const row = measurementRow(cell, repeat, ctx, { model: 'closed', targetRps: null, durationS: ctx.profile.durationS })
  const name = repeatStem(cell, repeat)
  return withVerifiedStack(cell, name, ctx, outcomes(row), async ({ backend, proxy, url, roles }) => {
    const p = ctx.profile
    const genThreads = cpuCount(ctx.cpus.generator)
    const raw = rawFile(ctx.runDir, name, 'wrk.txt')
    rmSync(raw, { force: true })
    // A spectrum left by an interrupted attempt must not pass for this one's.
    rmSync(rawFile(ctx.runDir, name, 'latency.json'), { force: true })
    const generator = await ctx.runtime.start({
      role: 'generator', name: `generator-${name}`,
      argv: wrkArgv({ url, threads: genThreads, connections: cell.connections, seconds: p.warmupS + p.durationS + p.tailS }),
      cpus: ctx.cpus.generator, logFile: raw,
    })
    roles.push(generator)
    const snap = async (): Promise<Snapshot> => {
      const [proxyNs, backendNs, generatorNs] = await Promise.all([proxy ? ctx.runtime.cpuNs(proxy) : 0, ctx.runtime.cpuNs(backend.role), ctx.runtime.cpuNs(generator)])
      return { at: process.hrtime.bigint(), stat: readProcStat(), proxyNs, backendNs, generatorNs, stats: await backendStats(backend) }
    }
    await sleep(p.warmupS * 1000)
    const a = await snap()
    await sleep(p.durationS * 1000)
    const b = await snap()
    const exitedEarly = [proxy, backend.role].find((r) => r?.exit)
    // wrk stops itself after -d; if it does not, the row says so instead of the run hanging.
    const hung = await Promise.race([generator.exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), (p.tailS + 30) * 1000).unref())])
    if (hung) await ctx.runtime.stop(generator)
    const output = readFileSync(raw, 'utf8')
    const report = parseWrkOutput(output)
    const spectrum = parseWrkSpectrum(output)
    if (spectrum) writeLatencySpectrum(ctx.runDir, name, spectrum)

    const windowS = Number(b.at - a.at) / 1e9
    const requests = b.stats.requests - a.stats.requests
    const perReq = (ns: number) => (requests > 0 ? round(ns / 1e3 / requests) : null)
    const generatorShare = round((b.generatorNs - a.generatorNs) / 1e9 / (windowS * genThreads), 4)
    const errors = report ? wrkErrorCount(report) : 0
    const reasons = invalidReasons({
      generatorRequests: report?.requests ?? 0, generatorErrors: errors, windowRequests: requests, generatorCpuShare: generatorShare,
      exited: exitedEarly ? `${exitedEarly.spec.role} exited during the window (code ${exitedEarly.exit!.code ?? exitedEarly.exit!.signal})` : !report ? `wrk printed no report (exit ${generator.exit?.code})` : null,
    })
    const cores = measuredCores(ctx.cpus, !!proxy)
    const expected = rolesOnNs(cores, [
      { cpus: ctx.cpus.proxy, ns: b.proxyNs - a.proxyNs }, { cpus: ctx.cpus.backend, ns: b.backendNs - a.backendNs }, { cpus: ctx.cpus.generator, ns: b.generatorNs - a.generatorNs }])
    const d = disturbance(a.stat, b.stat, cores, expected)
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
      steal_share: d?.stealShare ?? null,
      foreign_cpu_share: d?.foreignShare ?? null,
    })
  })
}

