import { basename } from 'node:path'
import { readFileSync, rmSync } from 'node:fs'
import { writeLatencySpectrum } from '../data/latency.ts'
import { rawFile, repeatStem, type RawKind } from '../data/raw-files.ts'
import type { Measurement } from '../data/schema.ts'
import { backendStats, type BackendStats } from '../roles/backend.ts'
import { cpuCount } from '../roles/cpus.ts'
import { parseWrkOutput, parseWrkSpectrum, wrkArgv, wrkErrorCount } from '../roles/wrk.ts'
import { withVerifiedStack, type CellPlan, type CellContext, type RunningStack } from './cell.ts'
import type { RunningRole } from '../runtime/types.ts'
import { readProcesses, withCulprits, type ProcessSample } from './culprits.ts'
import { disturbanceColumns, readCpuTimes, windowDisturbance, type CpuTimes } from './disturbance.ts'
import { countColumns, measurementRow, noCounts, outcomes } from './rows.ts'
import { openCounting, readUserSys, userShareBetween } from '../runtime/counts.ts'
import { invalidReasons } from './validity.ts'
import { stoppedIfHung } from './generator.ts'
import {
  countedNote,
  countedPart,
  extendsWindow,
  MAX_EXTENSION,
  SLICE_S,
  sliceLayout,
  slicesOf,
  startSlicing,
  windowReadings,
  type SliceLayout,
  type SliceReading,
} from './slices.ts'

interface Snapshot {
  at: bigint
  /** Wall clock (µs since the epoch): what a generator's per-request log is cut by. */
  epochUs: number
  stat: Map<number, CpuTimes>
  procs: Map<number, ProcessSample>
  proxyNs: number
  backendNs: number
  generatorNs: number
  stats: BackendStats
}

const argv0 = (argv: readonly string[]) => basename(argv[0] ?? 'the generator')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const round = (x: number, digits = 3) => Number(x.toFixed(digits))

/**
 * Where in a closed window the counters are attached: its middle quarter (at least 0.5 s),
 * starting a third in. Counts per request hold still within a window, so a part of it
 * counts them; the CPU figures are the whole window's.
 */
export function countingSubWindow(durationS: number): { startS: number; lengthS: number } {
  const lengthS = Math.min(durationS / 2, Math.max(0.5, durationS / 4))
  return { startS: Math.min(durationS / 3, durationS - lengthS), lengthS }
}

/** What a closed-model generator reported, in the terms of a row. */
export interface ClosedReport {
  requests: number
  errors: number
  latencyUs: { p50: number; p90: number; p99: number; p999: number; max: number } | null
  /** Why the report cannot be used (e.g. another protocol than the cell's); null when it can. */
  issue: string | null
  /** Columns only this generator measures (loadgen h3: UDP datagrams per request). */
  fields?: Partial<Measurement>
}

/**
 * A closed-model generator: wrk (HTTP/1.1) or h2load (lib/measure/h2.ts). The cell protocol
 * around it (start, verify, warm-up, window counters) is the same for both.
 */
export interface ClosedGenerator {
  /** Its raw output under raw/. */
  raw: RawKind
  argv(o: { url: string; threads: number; connections: number; seconds: number }): string[]
  /** Runs in the cell's scratch folder (read-write in a container too): for files a generator writes besides its output. */
  inScratch?: boolean
  /** A check of the running stack in the generator's own protocol before the load; a one-line problem or null. */
  verify?(s: RunningStack): Promise<string | null>
  /** Its report, with the window [fromUs, toUs] in wall-clock µs. */
  read(output: string, o: { name: string; scratch: string; fromUs: number; toUs: number }): ClosedReport | null
  /** Columns the generator fills in every row (e.g. streams). */
  fields?: Partial<Measurement>
  /**
   * It ends its run early and prints its report on SIGINT (wrk), so its window can extend
   * itself (docs/method/disturbance.md#extension): it is started for the longest window, and
   * interrupted after the window the run took.
   */
  reportsOnInterrupt?: boolean
}

/** wrk with stacks/wrk/report.lua: HTTP/1.1 keep-alive clients. */
export const wrkGenerator = (ctx: CellContext): ClosedGenerator => ({
  raw: 'wrk.txt',
  reportsOnInterrupt: true,
  argv: (o) => wrkArgv(o),
  read(output, { name }) {
    const report = parseWrkOutput(output)
    const spectrum = parseWrkSpectrum(output)
    if (spectrum) writeLatencySpectrum(ctx.runDir, name, spectrum)
    return report ? { requests: report.requests, errors: wrkErrorCount(report), latencyUs: report.latency_us, issue: null } : null
  },
})

/**
 * The closed model (wrk) through the cell protocol: start backend and proxy, verify,
 * then run the load and read cumulative counters at the start and end of the window
 * inside it, so connection set-up and ramp-down stay outside. Always returns a row; never throws
 * for a failure of the thing measured.
 */
export function measureClosed(cell: CellPlan, repeat: number, ctx: CellContext, gen: ClosedGenerator = wrkGenerator(ctx)): Promise<Measurement> {
  const filled = measurementRow(cell, repeat, ctx, { model: 'closed', targetRps: null, durationS: ctx.profile.durationS })
  const row = (fields: Partial<Measurement>) => filled({ ...gen.fields, ...fields })
  const name = repeatStem(cell, repeat)
  return withVerifiedStack(cell, name, ctx, outcomes(row), async (stack) => {
    const own = gen.verify ? await gen.verify(stack) : null
    if (own) return row({ status: 'invalid', reason: `verification failed: ${own}` })
    const window = await runClosedWindow(cell, name, ctx, gen, stack)
    return row(closedFields(window, stack, ctx, name))
  })
}

/**
 * Starts the generator, waits out the warm-up, and reads the counters at the window's ends
 * and around the counted sub-window; then waits for the generator and reads its report.
 */
async function runClosedWindow(cell: CellPlan, name: string, ctx: CellContext, gen: ClosedGenerator, stack: RunningStack) {
  const { backend, proxy, url, roles, scratch } = stack
  const p = ctx.profile
  const genThreads = cpuCount(ctx.cpus.generator)
  const raw = rawFile(ctx.runDir, name, gen.raw)
  rmSync(raw, { force: true })
  // A spectrum left by an interrupted attempt must not pass for this one's.
  rmSync(rawFile(ctx.runDir, name, 'latency.json'), { force: true })
  const longestS = gen.reportsOnInterrupt ? (1 + MAX_EXTENSION) * p.durationS : p.durationS
  await ctx.windowGate?.beforeWindow(roles.map((r) => r.pid))
  const generator = await ctx.runtime.start({
    role: 'generator',
    name: `generator-${name}`,
    argv: gen.argv({ url, threads: genThreads, connections: cell.connections, seconds: p.warmupS + longestS + p.tailS }),
    cpus: ctx.cpus.generator,
    logFile: raw,
    ...(gen.inScratch ? { cwd: scratch } : {}),
  })
  roles.push(generator)
  const layout = sliceLayout(ctx, !!proxy)
  const { snap, sliceReading } = windowReaders(ctx, stack, generator, layout)
  const counted = proxy ?? backend.role
  // The user/system split of the whole window (the tick-sampled split needs all its ticks).
  const group = ctx.counts === false ? undefined : ctx.runtime.countingGroup?.(counted)
  const userSys = () => (group && typeof group !== 'string' ? readUserSys(group) : null)
  await sleep(p.warmupS * 1000)
  const [a, usA] = await Promise.all([snap(), userSys()])
  // Not on several hosts: their windows are not judged (docs/hosts.md), and each read there is an exec that loads the proxy's host.
  const slicing = layout.severalHosts ? null : startSlicing(sliceReading)
  // The proxy's kernel counts (the direct row: the backend's, read and not written, so its
  // window costs what it did in earlier runs) over a sub-window in the middle of the window:
  // counters attached cost every system call of the counted role, so they are attached for a
  // part only (docs/method/counts.md#overhead).
  const sub = countingSubWindow(p.durationS)
  await sleep(sub.startS * 1000)
  const counting = await openCounting(ctx.runtime, [counted], { perfCpus: ctx.cpus.generator, enabled: ctx.counts !== false })
  const [s1] = await Promise.all([backendStats(backend), counting.begin()])
  const leftS = () => p.durationS - Number(process.hrtime.bigint() - a.at) / 1e9
  await sleep(Math.max(0, Math.min(sub.lengthS, leftS() - 0.05)) * 1000)
  const [s2] = await Promise.all([backendStats(backend), counting.end()])
  const countsRead = counting.read()
  await sleep(Math.max(0, leftS()) * 1000)
  const extended = !!gen.reportsOnInterrupt && !!slicing && (await extension(snapReading(layout, a), slicing.readings, layout, p.durationS))
  const between = slicing ? await slicing.stop() : { readings: [], reads: 0 }
  const [b, usB] = await Promise.all([snap(), userSys()])
  const exitedEarly = [proxy, backend.role].find((r) => r?.exit)
  await endGenerator(ctx, gen, generator)
  const sampled = (await countsRead).get(counted)
  const counts = sampled?.ok ? { ...sampled, userShare: userShareBetween(usA, usB) ?? sampled.userShare } : sampled
  const report = gen.read(readFileSync(raw, 'utf8'), { name, scratch, fromUs: a.epochUs, toUs: b.epochUs })
  const readings = windowReadings(snapReading(layout, a), between.readings, snapReading(layout, b))
  return {
    a,
    b,
    layout,
    counts,
    subRequests: s2.requests - s1.requests,
    exitedEarly,
    generator,
    genThreads,
    report,
    readings,
    sliceReads: between.reads,
    extended,
  }
}

/** The window's counters: a snapshot at each end, a slice reading between (lib/measure/slices.ts). */
function windowReaders(ctx: CellContext, stack: RunningStack, generator: RunningRole, layout: SliceLayout) {
  const { backend, proxy } = stack
  const cpu = async () => {
    const [proxyNs, backendNs, generatorNs] = await Promise.all([
      proxy ? ctx.runtime.cpuNs(proxy) : 0,
      ctx.runtime.cpuNs(backend.role),
      ctx.runtime.cpuNs(generator),
    ])
    return { proxyNs, backendNs, generatorNs }
  }
  return {
    snap: async (): Promise<Snapshot> => {
      const ns = await cpu()
      const at = process.hrtime.bigint()
      const epochUs = Date.now() * 1000
      return { at, epochUs, stat: readCpuTimes(), procs: readProcesses(), ...ns, stats: await backendStats(backend) }
    },
    /** The roles' CPU (in rolesOf's order), the cores' times, the backend's requests. */
    sliceReading: async (): Promise<SliceReading> => {
      const ns = await cpu()
      const at = process.hrtime.bigint()
      const stat = readCpuTimes()
      return { at, stat, roles: rolesOf(layout, ns), work: (await backendStats(backend)).requests }
    },
  }
}

/**
 * Ends the generator a tail after the window, its ramp-down outside it: interrupted when it
 * reports on SIGINT (it was started for the longest window), else it stops itself after -d.
 * One that does not end is stopped, and its row says so (no report) instead of the run hanging.
 */
async function endGenerator(ctx: CellContext, gen: ClosedGenerator, generator: RunningRole): Promise<void> {
  if (gen.reportsOnInterrupt) {
    await sleep(ctx.profile.tailS * 1000)
    await ctx.runtime.interrupt(generator)
  }
  await stoppedIfHung(ctx, generator, ctx.profile.tailS + 30)
}

/**
 * Waits a slice at a time while the window extends itself (extendsWindow), judged on the
 * readings so far; the clock bounds it too, should the readings stop (the backend gone).
 * Whether it went on at all.
 */
async function extension(first: SliceReading, sofar: readonly SliceReading[], layout: SliceLayout, windowS: number): Promise<boolean> {
  const until = first.at + BigInt(Math.round((1 + MAX_EXTENSION) * windowS * 1e9))
  let extended = false
  while (process.hrtime.bigint() < until && extendsWindow([first, ...sofar], { ...layout, windowS })) {
    extended = true
    await sleep(SLICE_S * 1000)
  }
  return extended
}

/** The bench roles' cumulative CPU with their cpusets, in the order slice readings keep. */
const rolesOf = (layout: SliceLayout, ns: { proxyNs: number; backendNs: number; generatorNs: number }) => [
  { cpus: layout.cpus.proxy, ns: ns.proxyNs },
  { cpus: layout.cpus.backend, ns: ns.backendNs },
  { cpus: layout.cpus.generator, ns: ns.generatorNs },
]
const snapReading = (layout: SliceLayout, s: Snapshot): SliceReading => ({ at: s.at, stat: s.stat, roles: rolesOf(layout, s), work: s.stats.requests })

type ClosedWindow = Awaited<ReturnType<typeof runClosedWindow>>

/** The window's length as it ran, from its two end readings. */
const wholeS = (w: ClosedWindow) => Number(w.b.at - w.a.at) / 1e9

/** Why the window's row is invalid: the generator's and the window's counts disagree, a role exited, no report. */
function closedReasons(w: ClosedWindow, requests: number, generatorShare: number): string[] {
  const { exitedEarly, report, generator } = w
  return invalidReasons({
    generatorRequests: report?.requests ?? 0,
    generatorErrors: report?.errors ?? 0,
    windowRequests: requests,
    generatorCpuShare: generatorShare,
    exited: exitedEarly
      ? `${exitedEarly.spec.role} exited during the window (code ${exitedEarly.exit!.code ?? exitedEarly.exit!.signal})`
      : !report
        ? `${argv0(generator.spec.argv)} printed no report (exit ${generator.exit?.code})`
        : report.issue,
  })
}

/** The window's disturbance: other CPU use on the cell's cores than the roles' own, and who used it. */
function closedDisturbance(w: ClosedWindow, stack: RunningStack, windowS: number) {
  const { a, b, layout } = w
  const own = rolesOf(layout, { proxyNs: b.proxyNs - a.proxyNs, backendNs: b.backendNs - a.backendNs, generatorNs: b.generatorNs - a.generatorNs })
  const d = windowDisturbance(a.stat, b.stat, layout, own)
  return withCulprits(
    d,
    a.procs,
    b.procs,
    windowS,
    stack.roles.map((r) => r.pid),
  )
}

/**
 * The part of the window the row counts: the whole window, or its clean slices when a
 * neighbour disturbed the others (lib/measure/slices.ts); a disturbed window's slices are kept in raw/.
 */
function countedWindow(w: ClosedWindow, ctx: CellContext, name: string, whole: ReturnType<typeof closedDisturbance>) {
  const { a, b } = w
  const slices = slicesOf(w.readings, w.layout)
  const part = countedPart(
    rawFile(ctx.runDir, name, 'slices.json'),
    slices,
    whole,
    {
      seconds: wholeS(w),
      ns: [b.proxyNs - a.proxyNs, b.backendNs - a.backendNs, b.generatorNs - a.generatorNs],
      work: b.stats.requests - a.stats.requests,
    },
    { windowS: ctx.profile.durationS },
  )
  const [proxyNs, backendNs, generatorNs] = part.ns
  return {
    windowS: part.seconds,
    requests: part.work,
    proxyNs: proxyNs!,
    backendNs: backendNs!,
    generatorNs: generatorNs!,
    counted: part.counted,
    disturbed: part.disturbed,
  }
}

/** The row's measured columns from one window. */
function closedFields(w: ClosedWindow, stack: RunningStack, ctx: CellContext, name: string): Partial<Measurement> {
  const { a, b, report } = w
  const { proxy } = stack
  const whole = closedDisturbance(w, stack, wholeS(w))
  const part = countedWindow(w, ctx, name, whole)
  const { windowS, requests, counted } = part
  const wholeRequests = b.stats.requests - a.stats.requests
  const perReq = (ns: number) => (requests > 0 ? round(ns / 1e3 / requests) : null)
  const generatorShare = round(part.generatorNs / 1e9 / (windowS * w.genThreads), 4)
  const reasons = closedReasons(w, requests, generatorShare)
  const ms = (us: number | undefined) => (us === undefined ? null : round(us / 1000, 3))
  const proxyPerReq = proxy ? perReq(part.proxyNs) : null
  const backendPerReq = perReq(part.backendNs)
  // A counted row states the disturbance of what it counted; its culprits are the whole window's.
  const disturbance = counted && whole ? { ...whole, ...counted.disturbance } : whole
  return {
    ...report?.fields,
    // An extended window states its length (docs/method/disturbance.md#extension).
    ...(w.extended ? { duration_s: round(wholeS(w), 1) } : {}),
    ...(proxy ? countColumns(w.counts, w.subRequests, proxyPerReq) : noCounts('direct row: no proxy')),
    requests,
    errors: report?.errors ?? 0,
    rps: round(requests / windowS, 1),
    p50_ms: ms(report?.latencyUs?.p50),
    p90_ms: ms(report?.latencyUs?.p90),
    p99_ms: ms(report?.latencyUs?.p99),
    p999_ms: ms(report?.latencyUs?.p999),
    max_ms: ms(report?.latencyUs?.max),
    proxy_cpu_us_per_req: proxyPerReq,
    backend_cpu_us_per_req: backendPerReq,
    generator_cpu_share: generatorShare,
    // Every stats read after the first (the slices', the sub-window's two, the window's end) opens one connection.
    backend_conns_per_1k_req: wholeRequests > 0 ? round(((b.stats.accepted - a.stats.accepted - 3 - w.sliceReads) * 1000) / wholeRequests, 2) : null,
    proxy_cpu_share: proxy ? round(part.proxyNs / 1e9 / (windowS * cpuCount(ctx.cpus.proxy)), 4) : null,
    status: reasons.length ? 'invalid' : 'valid',
    reason: [...reasons, ...(counted ? [countedNote(counted)] : [])].join('; '),
    ...disturbanceColumns(disturbance),
    counted_share: counted?.share ?? 1,
    disturbed_slice_share: part.disturbed,
  }
}
