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
import { processesAt, withCulprits, type ProcessesAt } from './culprits.ts'
import { disturbanceColumns, windowDisturbance, type CpuTimes } from './disturbance.ts'
import { countColumns, measurementRow, noCounts, outcomes } from './rows.ts'
import { openCounting, readUserSys, userShareBetween } from '../runtime/counts.ts'
import { invalidReasons } from './validity.ts'
import { timeWaitSockets } from '../runtime/proc.ts'
import { stoppedIfHung } from './generator.ts'
import {
  countedNote,
  countedPart,
  extension,
  MAX_EXTENSION,
  readCores,
  readWindowEnd,
  sliceLayout,
  slicesOf,
  startSlicing,
  windowReadings,
  type SliceLayout,
  type SliceReading,
} from './slices.ts'

/** One side's cumulative counters at an instant: its roles' CPU and its backend's counts. */
interface SideCounters {
  proxyNs: number
  backendNs: number
  generatorNs: number
  stats: BackendStats
}

interface Snapshot {
  at: bigint
  /** Wall clock (µs since the epoch): what a generator's per-request log is cut by. */
  epochUs: number
  stat: Map<number, CpuTimes>
  procs: ProcessesAt
  /** Each side's counters, in the window's order of sides. */
  sides: SideCounters[]
  /** Why the window cannot be judged from this snapshot (a host's reader gone); null: it can. */
  unjudged: string | null
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
  const row = closedRow(cell, repeat, ctx, gen)
  const name = repeatStem(cell, repeat)
  return withVerifiedStack(cell, name, ctx, outcomes(row), async (stack) => {
    const own = gen.verify ? await gen.verify(stack) : null
    if (own) return row({ status: 'invalid', reason: `verification failed: ${own}` })
    const window = await runClosedWindow([{ cell, name, ctx, stack, gen, connections: cell.connections }])
    return row(closedFields(window, 0))
  })
}

/** A closed window's row of a cell, before its figures: the blank row with the cell and the generator's own columns. */
export function closedRow(cell: CellPlan, repeat: number, ctx: CellContext, gen: ClosedGenerator) {
  const filled = measurementRow(cell, repeat, ctx, { model: 'closed', targetRps: null, durationS: ctx.profile.durationS })
  return (fields: Partial<Measurement>) => filled({ ...gen.fields, ...fields })
}

/**
 * One stack a closed window loads: a cell's, or one side of a pair measured at one instant
 * (lib/measure/pair-window.ts), each with its own generator, counters and row.
 */
export interface WindowSide {
  cell: CellPlan
  /** Its raw files' stem, under its context's run directory (a then side's under then/). */
  name: string
  ctx: CellContext
  stack: RunningStack
  gen: ClosedGenerator
  /** Its generator's connections: the cell's, or its share of them in a pair. */
  connections: number
}

/**
 * Starts each side's generator at once, waits out the warm-up, and reads the counters at the
 * window's ends and around the counted sub-window; then waits for the generators and reads
 * their reports. The sides share the window: its ends, slices, extension and judgement.
 */
export async function runClosedWindow(sides: readonly WindowSide[]) {
  const { ctx, gen } = sides[0]!
  const p = ctx.profile
  const genThreads = cpuCount(ctx.cpus.generator)
  const longestS = gen.reportsOnInterrupt ? (1 + MAX_EXTENSION) * p.durationS : p.durationS
  await ctx.windowGate?.beforeWindow(sides.flatMap((s) => s.stack.roles))
  const generators = await startGenerators(sides, genThreads, p.warmupS + longestS + p.tailS)
  const layout = sliceLayout(ctx, !!sides[0]!.stack.proxy)
  const { snap, sliceReading, sideWork } = windowReaders(ctx, sides, generators, layout)
  const counted = sides.map((s) => s.stack.proxy ?? s.stack.backend.role)
  // The user/system split of the whole window (the tick-sampled split needs all its ticks).
  const groups = counted.map((role) => (ctx.counts === false ? undefined : ctx.runtime.countingGroup?.(role)))
  const userSys = () => groups.map((g) => (g && typeof g !== 'string' ? readUserSys(g) : null))
  await sleep(p.warmupS * 1000)
  const [a, usA] = await Promise.all([snap(), userSys()])
  // On several hosts each host's reader answers (docs/hosts.md#disturbance).
  const slicing = startSlicing(sliceReading)
  const sub = await countSubWindow(ctx, sides, counted, a.at)
  await sleep(Math.max(0, p.durationS - sinceS(a.at)) * 1000)
  const extended = !!gen.reportsOnInterrupt && (await extension(snapReading(layout, a), slicing.readings, layout, p.durationS))
  const between = await slicing.stop()
  const [b, usB] = await Promise.all([snap(), userSys()])
  // Where each proxy's backend connections live; a proxy on another host has no /proc here.
  const timeWait = sides.map((s) => (s.stack.proxy && !layout.severalHosts ? timeWaitSockets(s.stack.proxy.pid) : null))
  const exited = sides.map((_, i) => exitNote(sides, i))
  await Promise.all(sides.map((s, i) => endGenerator(ctx, s.gen, generators[i]!)))
  const countsRead = await sub.countsRead
  const sideOf = (s: WindowSide, i: number) => {
    const sampled = countsRead.get(counted[i]!)
    const counts = sampled?.ok ? { ...sampled, userShare: userShareBetween(usA[i]!, usB[i]!) ?? sampled.userShare } : sampled
    const raw = rawFile(s.ctx.runDir, s.name, s.gen.raw)
    const report = s.gen.read(readFileSync(raw, 'utf8'), { name: s.name, scratch: s.stack.scratch, fromUs: a.epochUs, toUs: b.epochUs })
    const work = (r: SliceReading) => sideWork.get(r.at)?.[i] ?? r.work
    const inBetween = between.readings.map((r) => ({ ...r, work: work(r) }))
    const readings = windowReadings(snapReading(layout, a, i), inBetween, snapReading(layout, b, i))
    return { side: s, counts, subRequests: sub.requests[i]!, exited: exited[i]!, generator: generators[i]!, report, readings, timeWait: timeWait[i] ?? null }
  }
  return { a, b, layout, genThreads, sliceReads: between.reads, extended, unjudged: a.unjudged ?? b.unjudged, sides: sides.map(sideOf) }
}

const sinceS = (at: bigint) => Number(process.hrtime.bigint() - at) / 1e9

/** Each side's generator, started together on the generator's cpuset, its raw output under its side's run directory. */
function startGenerators(sides: readonly WindowSide[], threads: number, seconds: number): Promise<RunningRole[]> {
  return Promise.all(
    sides.map(async (s) => {
      const raw = rawFile(s.ctx.runDir, s.name, s.gen.raw)
      rmSync(raw, { force: true })
      // A spectrum left by an interrupted attempt must not pass for this one's.
      rmSync(rawFile(s.ctx.runDir, s.name, 'latency.json'), { force: true })
      const generator = await s.ctx.runtime.start({
        role: 'generator',
        // Named after the side's backend, whose name is unique among the roles running together.
        name: `generator-${s.stack.backend.role.spec.name.replace(/^backend-/, '')}`,
        argv: s.gen.argv({ url: s.stack.url, threads, connections: s.connections, seconds }),
        cpus: s.ctx.cpus.generator,
        logFile: raw,
        ...(s.gen.inScratch ? { cwd: s.stack.scratch } : {}),
      })
      s.stack.roles.push(generator)
      return generator
    }),
  )
}

/**
 * The proxies' kernel counts (the direct row: the backend's, read and not written, so its
 * window costs what it did in earlier runs) over a sub-window in the middle of the window:
 * counters attached cost every system call of the counted role, so they are attached for a
 * part only (docs/method/counts.md#overhead). Each side's requests in it, from its backend.
 */
async function countSubWindow(ctx: CellContext, sides: readonly WindowSide[], counted: readonly RunningRole[], startedAt: bigint) {
  const sub = countingSubWindow(ctx.profile.durationS)
  await sleep(sub.startS * 1000)
  const stats = () => Promise.all(sides.map((s) => backendStats(s.stack.backend)))
  const counting = await openCounting(ctx.runtime, counted, { perfCpus: ctx.cpus.generator, enabled: ctx.counts !== false })
  const [s1] = await Promise.all([stats(), counting.begin()])
  await sleep(Math.max(0, Math.min(sub.lengthS, ctx.profile.durationS - sinceS(startedAt) - 0.05)) * 1000)
  const [s2] = await Promise.all([stats(), counting.end()])
  return { countsRead: counting.read(), requests: s2.map((s, i) => s.requests - s1[i]!.requests) }
}

/** Why side `i`'s window lost a role: its own proxy or backend exited, or its pair's other side's did (their core was no longer shared). */
function exitNote(sides: readonly WindowSide[], i: number): string | null {
  const exitedOf = (s: WindowSide) => [s.stack.proxy, s.stack.backend.role].find((r) => r?.exit)
  const note = (r: RunningRole, whose: string) => `${whose}${r.spec.role} exited during the window (code ${r.exit!.code ?? r.exit!.signal})`
  const own = exitedOf(sides[i]!)
  if (own) return note(own, '')
  const other = sides.map(exitedOf).find(Boolean)
  return other ? note(other, "the pair's other ") : null
}

/** The window's counters: a snapshot at each end, a slice reading between (lib/measure/slices.ts), each side's backend requests by reading. */
function windowReaders(ctx: CellContext, sides: readonly WindowSide[], generators: readonly RunningRole[], layout: SliceLayout) {
  // Every side's proxy (none in the direct row), backend and generator, read at one instant (on several hosts by each host's reader).
  const read = sides.flatMap(({ stack }, i) => [stack.proxy, stack.backend.role, generators[i]!])
  const bySide = (ns: readonly number[]): RoleNs[] => {
    let j = 0
    const all = read.map((r) => (r ? ns[j++]! : 0))
    return sides.map((_, i) => ({ proxyNs: all[3 * i]!, backendNs: all[3 * i + 1]!, generatorNs: all[3 * i + 2]! }))
  }
  const roles = read.filter((r): r is RunningRole => !!r)
  const own = [...new Set([...sides.flatMap((s) => s.stack.roles), ...roles])]
  const stats = () => Promise.all(sides.map((s) => backendStats(s.stack.backend)))
  const sideWork = new Map<bigint, number[]>()
  return {
    sideWork,
    snap: async (): Promise<Snapshot> => {
      const { at, stat, ns, unjudged } = await readWindowEnd(ctx.runtime, roles)
      const epochUs = Date.now() * 1000
      const [procs, sideStats] = await Promise.all([processesAt(ctx.runtime, own), stats()])
      return { at, epochUs, stat, procs, sides: bySide(ns).map((n, i) => ({ ...n, stats: sideStats[i]! })), unjudged }
    },
    /** Every side's roles' CPU (in rolesOf's order), the cores' times, the backends' requests (their sum; each side's in sideWork). */
    sliceReading: async (): Promise<SliceReading> => {
      const { at, stat, ns } = await readCores(ctx.runtime, roles)
      const work = (await stats()).map((s) => s.requests)
      sideWork.set(at, work)
      return { at, stat, roles: rolesOf(layout, bySide(ns)), work: work.reduce((t, w) => t + w, 0) }
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

type RoleNs = Pick<SideCounters, 'proxyNs' | 'backendNs' | 'generatorNs'>

/** Every side's bench roles' cumulative CPU with their cpusets, in the order slice readings keep: proxy, backend, generator of each side in turn. */
const rolesOf = (layout: SliceLayout, sides: readonly RoleNs[]) =>
  sides.flatMap((ns) => [
    { cpus: layout.cpus.proxy, ns: ns.proxyNs },
    { cpus: layout.cpus.backend, ns: ns.backendNs },
    { cpus: layout.cpus.generator, ns: ns.generatorNs },
  ])
const ROLES_PER_SIDE = 3

/** A snapshot as a slice reading: every side's roles, and the work of side `side` (absent: of all). */
const snapReading = (layout: SliceLayout, s: Snapshot, side?: number): SliceReading => ({
  at: s.at,
  stat: s.stat,
  roles: rolesOf(layout, s.sides),
  work: side === undefined ? s.sides.reduce((t, x) => t + x.stats.requests, 0) : s.sides[side]!.stats.requests,
})

/** Each side's roles' CPU between two snapshots. */
const sidesBetween = (a: Snapshot, b: Snapshot): RoleNs[] =>
  b.sides.map((x, i) => {
    const y = a.sides[i]!
    return { proxyNs: x.proxyNs - y.proxyNs, backendNs: x.backendNs - y.backendNs, generatorNs: x.generatorNs - y.generatorNs }
  })

type ClosedWindow = Awaited<ReturnType<typeof runClosedWindow>>
type WindowOfSide = ClosedWindow['sides'][number]

/** The window's length as it ran, from its two end readings. */
const wholeS = (w: ClosedWindow) => Number(w.b.at - w.a.at) / 1e9

/** Why a side's row is invalid: the generator's and the window's counts disagree, a role exited, no report, the generators saturated. */
function closedReasons(s: WindowOfSide, requests: number, generatorShare: number): string[] {
  const { exited, report, generator } = s
  return invalidReasons({
    generatorRequests: report?.requests ?? 0,
    generatorErrors: report?.errors ?? 0,
    windowRequests: requests,
    generatorCpuShare: generatorShare,
    closedConnections: s.side.connections,
    exited: exited ?? (!report ? `${argv0(generator.spec.argv)} printed no report (exit ${generator.exit?.code})` : report.issue),
  })
}

/** The window's disturbance: other CPU use on the cell's cores than every side's roles' own, and who used it. */
function closedDisturbance(w: ClosedWindow) {
  const { a, b, layout } = w
  const d = windowDisturbance(a.stat, b.stat, layout, rolesOf(layout, sidesBetween(a, b)))
  return withCulprits(d, a.procs, b.procs, wholeS(w))
}

/**
 * The part of the window side `i`'s row counts: the whole window, or its clean slices when a
 * neighbour disturbed the others (lib/measure/slices.ts); a disturbed window's slices are kept
 * in the side's raw/. Every side counts the same slices: they are judged on all sides' roles.
 */
function countedWindow(w: ClosedWindow, i: number, whole: ReturnType<typeof closedDisturbance>) {
  const { a, b } = w
  const s = w.sides[i]!
  const ns = sidesBetween(a, b).flatMap((x) => [x.proxyNs, x.backendNs, x.generatorNs])
  const part = countedPart(
    rawFile(s.side.ctx.runDir, s.side.name, 'slices.json'),
    slicesOf(s.readings, w.layout),
    whole,
    { seconds: wholeS(w), ns, work: b.sides[i]!.stats.requests - a.sides[i]!.stats.requests },
    { windowS: s.side.ctx.profile.durationS },
  )
  const at = ROLES_PER_SIDE * i
  return {
    windowS: part.seconds,
    requests: part.work,
    proxyNs: part.ns[at]!,
    backendNs: part.ns[at + 1]!,
    generatorNs: part.ns[at + 2]!,
    // The generators share their cpuset: saturation is judged on all of them.
    allGeneratorsNs: part.ns.reduce((t, x, j) => t + (j % ROLES_PER_SIDE === 2 ? x : 0), 0),
    counted: part.counted,
    disturbed: part.disturbed,
  }
}

/** Side `i`'s row's measured columns from the window (a window of one cell: `i` 0). */
export function closedFields(w: ClosedWindow, i: number): Partial<Measurement> {
  const { a, b } = w
  const s = w.sides[i]!
  const { report } = s
  const { ctx, stack } = s.side
  const { proxy } = stack
  const whole = closedDisturbance(w)
  const part = countedWindow(w, i, whole)
  const { windowS, requests, counted } = part
  const wholeRequests = b.sides[i]!.stats.requests - a.sides[i]!.stats.requests
  const perReq = (ns: number) => (requests > 0 ? round(ns / 1e3 / requests) : null)
  const generatorShare = (ns: number) => round(ns / 1e9 / (windowS * w.genThreads), 4)
  const reasons = closedReasons(s, requests, generatorShare(part.allGeneratorsNs))
  const ms = (us: number | undefined) => (us === undefined ? null : round(us / 1000, 3))
  const proxyPerReq = proxy ? perReq(part.proxyNs) : null
  // A counted row states the disturbance of what it counted; its culprits are the whole window's.
  const disturbance = counted && whole ? { ...whole, ...counted.disturbance } : whole
  return {
    ...report?.fields,
    // An extended window states its length (docs/method/disturbance.md#extension).
    ...(w.extended ? { duration_s: round(wholeS(w), 1) } : {}),
    ...(proxy ? countColumns(s.counts, s.subRequests, proxyPerReq) : noCounts('direct row: no proxy')),
    requests,
    errors: report?.errors ?? 0,
    rps: round(requests / windowS, 1),
    p50_ms: ms(report?.latencyUs?.p50),
    p90_ms: ms(report?.latencyUs?.p90),
    p99_ms: ms(report?.latencyUs?.p99),
    p999_ms: ms(report?.latencyUs?.p999),
    max_ms: ms(report?.latencyUs?.max),
    proxy_cpu_us_per_req: proxyPerReq,
    backend_cpu_us_per_req: perReq(part.backendNs),
    generator_cpu_share: generatorShare(part.generatorNs),
    // Every stats read after the first (the slices', the sub-window's two, the window's end) opens one connection.
    backend_conns_per_1k_req:
      wholeRequests > 0 ? round(((b.sides[i]!.stats.accepted - a.sides[i]!.stats.accepted - 3 - w.sliceReads) * 1000) / wholeRequests, 2) : null,
    proxy_cpu_share: proxy ? round(part.proxyNs / 1e9 / (windowS * cpuCount(ctx.cpus.proxy)), 4) : null,
    status: reasons.length ? 'invalid' : 'valid',
    reason: [...reasons, ...(counted ? [countedNote(counted)] : []), ...(w.unjudged ? [w.unjudged] : [])].join('; '),
    ...disturbanceColumns(disturbance),
    counted_share: counted?.share ?? 1,
    disturbed_slice_share: part.disturbed,
    time_wait_at_end: s.timeWait,
  }
}
