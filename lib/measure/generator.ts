import { readFileSync, rmSync } from 'node:fs'
import { loadgenSpectrum, writeLatencySpectrum, type LoadgenSpectrum } from '../data/latency.ts'
import { rawFile } from '../data/raw-files.ts'
import { cpuCount } from '../roles/cpus.ts'
import { parseLoadgenOutput } from '../roles/loadgen.ts'
import { openCounting, type RoleCounts } from '../runtime/counts.ts'
import type { RunningRole } from '../runtime/types.ts'
import type { CellContext } from './cell.ts'
import { processesAt, withCulprits } from './culprits.ts'
import { disturbanceColumns, windowDisturbance, type CpuTimes, type WindowDisturbance } from './disturbance.ts'
import {
  countedNote,
  countedPart,
  extension,
  MAX_EXTENSION,
  rampDropped,
  readCores,
  readWindowEnd,
  roleCores,
  sliceLayout,
  slicesOf,
  startSlicing,
  windowReadings,
  type CountedSlices,
  type SliceLayout,
  type SliceReading,
} from './slices.ts'

export interface GeneratorOutcome<T> {
  result: T | null
  /** CPU of each watched role over the generator's whole run. */
  cpuNs: Map<RunningRole, number>
  /** Kernel counts of the watched roles over the same span (counted: `count`, default the proxy; lib/runtime/counts.ts). */
  counts: Map<RunningRole, RoleCounts>
  generatorShare: number
  wallS: number
  exit: string | null
  /**
   * Steal and foreign CPU on the measured role's cores, and foreign CPU on the load cores, over
   * the run (null: /proc/stat unreadable); a run counted from its clean slices states theirs.
   */
  disturbance: WindowDisturbance | null
  /** The clean slices the figures count, when a neighbour disturbed the others (lib/measure/slices.ts); null: the whole run counts. */
  counted: CountedSlices | null
  /** The counted slices' share of the backend's work over the run (1: the whole run): scales the generator's whole-run units. */
  workShare: number
  /** The share of the run's time in disturbed slices (null: not read in slices). */
  disturbedSliceShare: number | null
  /** The length the run took when it extended itself past its planned window (docs/method/disturbance.md#extension); null: it did not. */
  extendedS: number | null
  /** Why the run was not judged for disturbance (a host's reader gone, docs/hosts.md#disturbance); null: it was, or could not be for no such reason. */
  unjudged: string | null
}

/**
 * A loadgen load's argv: as it is, or, for a load that extends itself, its argv for a run of
 * the given seconds (every loadgen load ends at its first SIGINT and prints its summary).
 */
export type GeneratorArgv = string[] | ((seconds: number) => string[])

/** What a generator run counts beyond the watched roles' CPU. */
export interface GeneratorOptions {
  /** Roles whose kernel counts are read (default: the proxy among the watched). */
  count?: RunningRole[]
  /**
   * The backend's cumulative count of the load's unit (requests, echoed messages, echo
   * connections or bytes), read every slice: a run a neighbour disturbed in part then counts
   * its clean slices (lib/measure/slices.ts). Without it the run is judged whole.
   */
  work?: () => Promise<number>
}

/**
 * Runs a loadgen subcommand as the generator role, reading the watched roles' CPU just
 * before it starts and just after it exits: for loads that are all "window" (handshakes,
 * open model), with no ramp to cut off.
 * With a work counter it also reads every slice, and a run a neighbour disturbed in part
 * counts its clean slices only. An argv of the run's seconds makes a window of `expectedS`
 * that extends itself as a closed one does (docs/method/disturbance.md#extension): the
 * generator is started for the longest window and interrupted when the window it took is over.
 */
export async function runGenerator<T>(
  ctx: CellContext,
  name: string,
  argv: GeneratorArgv,
  logFile: string,
  watch: RunningRole[],
  roles: RunningRole[],
  expectedS: number,
  o: GeneratorOptions = {},
): Promise<GeneratorOutcome<T>> {
  const { count = watch.filter((r) => r.spec.role === 'proxy'), work } = o
  rmSync(logFile, { force: true })
  // A spectrum left by an interrupted attempt must not pass for this one's.
  rmSync(rawFile(ctx.runDir, name, 'latency.json'), { force: true })
  // Every role already started (backend, proxy) is read too: the disturbance needs the CPU of all roles on the measured cores.
  const started = [...new Set([...watch, ...roles])]
  await ctx.windowGate?.beforeWindow(started)
  const counting = await openCounting(ctx.runtime, count, { perfCpus: ctx.cpus.generator, enabled: ctx.counts !== false })
  const layout = sliceLayout(
    ctx,
    started.some((r) => r.spec.role === 'proxy'),
  )
  const [opened] = await Promise.all([readWindowEnd(ctx.runtime, started), counting.begin()])
  const before = opened.ns
  const start = { at: opened.at, stat: opened.stat, procs: await processesAt(ctx.runtime, roles), work: await readWork(work) }
  const runArgv = typeof argv === 'function' ? argv((1 + MAX_EXTENSION) * expectedS) : argv
  const generator = await ctx.runtime.start({ role: 'generator', name: `generator-${name}`, argv: runArgv, cpus: ctx.cpus.generator, logFile })
  roles.push(generator)
  const all = [...started, generator]
  const slicing =
    work && start.work !== null
      ? startSlicing(async () => {
          const r = await readCores(ctx.runtime, all)
          return sliceReading(layout, all, r.ns, r.at, r.stat, await work())
        })
      : null
  const first = start.work === null ? null : sliceReading(layout, all, [...before, 0], start.at, start.stat, start.work)
  const ended =
    typeof argv === 'function'
      ? await endExtendingRun(ctx, generator, { startAt: start.at, windowS: expectedS, first, slicing, layout })
      : await endRun(ctx, generator, expectedS)
  const between = await slicing?.stop()
  const [closing] = await Promise.all([readWindowEnd(ctx.runtime, all), counting.end()])
  const end = { at: closing.at, stat: closing.stat, procs: await processesAt(ctx.runtime, roles) }
  const after = closing.ns.slice(0, -1)
  const genNs = closing.ns.at(-1)!
  const counts = await counting.read()
  const endWork = slicing ? await readWork(work) : null
  const result = readReport<T>(ctx, name, runArgv, logFile)
  const wholeS = Number(end.at - start.at) / 1e9
  const ns = [...started.map((_, i) => after[i]! - before[i]!), genNs]
  const whole = withCulprits(
    windowDisturbance(
      start.stat,
      end.stat,
      layout,
      all.map((r, i) => ({ cpus: roleCores(layout, r), ns: ns[i]! })),
    ),
    start.procs,
    end.procs,
    wholeS,
  )
  const readings =
    between && first && endWork !== null ? windowReadings(first, between.readings, sliceReading(layout, all, [...after, genNs], end.at, end.stat, endWork)) : []
  const part = countedPart(
    rawFile(ctx.runDir, name, 'slices.json'),
    slicesOf(readings, layout),
    whole,
    { seconds: wholeS, ns, work: endWork === null ? 0 : endWork - start.work! },
    { ramp: true, ...(typeof argv === 'function' ? { windowS: expectedS, extended: ended.extended } : {}) },
  )
  return {
    result,
    cpuNs: new Map(watch.map((r) => [r, part.ns[all.indexOf(r)]!])),
    counts,
    generatorShare: Math.round((part.ns.at(-1)! / 1e9 / (part.seconds * cpuCount(ctx.cpus.generator))) * 1e4) / 1e4,
    wallS: part.seconds,
    // A counted run states the disturbance of what it counted; its culprits are the whole run's.
    disturbance: part.counted && whole ? { ...whole, ...part.counted.disturbance } : whole,
    counted: part.counted,
    workShare: part.workShare,
    disturbedSliceShare: part.disturbed,
    extendedS: ended.extended ? Math.round(wholeS * 10) / 10 : null,
    unjudged: opened.unjudged ?? closing.unjudged,
    exit: ended.hung ?? runExit(watch, generator, result),
  }
}

/** How long a load may take to end after its SIGINT: what it has in flight completes, each within loadgen's timeouts (10 s at most). */
const INTERRUPTED_END_S = 30

/**
 * Ends a run started for its longest window: at its planned end (`windowS` after `startAt`),
 * or later while it extends itself (lib/measure/slices.ts `extension`), it is interrupted and
 * waited for. Whether it extended itself, and why it was stopped if it hung (null: it ended).
 */
async function endExtendingRun(
  ctx: CellContext,
  generator: RunningRole,
  w: { startAt: bigint; windowS: number; first: SliceReading | null; slicing: { readonly readings: readonly SliceReading[] } | null; layout: SliceLayout },
): Promise<{ extended: boolean; hung: string | null }> {
  const leftMs = w.windowS * 1e3 - Number(process.hrtime.bigint() - w.startAt) / 1e6
  let planned: NodeJS.Timeout | undefined
  await Promise.race([generator.exited, new Promise((r) => (planned = setTimeout(r, Math.max(0, leftMs))))])
  clearTimeout(planned)
  const running = () => !generator.exit
  const extended = !!w.first && !!w.slicing && running() && (await extension(w.first, w.slicing.readings, w.layout, w.windowS, running))
  if (running()) await ctx.runtime.interrupt(generator)
  const hung = await stoppedIfHung(ctx, generator, INTERRUPTED_END_S)
  return { extended, hung: hung ? `generator still running ${INTERRUPTED_END_S} s after its SIGINT: stopped` : null }
}

/** Waits for a run that ends itself; one still running well after it should have ended is stopped, and why is said. */
async function endRun(ctx: CellContext, generator: RunningRole, expectedS: number): Promise<{ extended: false; hung: string | null }> {
  const limitS = expectedS * 1.5 + 30
  const hung = await stoppedIfHung(ctx, generator, limitS)
  return { extended: false, hung: hung ? `generator still running after ${Math.round(limitS)} s (expected ${expectedS} s): stopped` : null }
}

/** Why a run that ended on its own has no usable result: a watched role exited, or the generator printed no summary; null: none. */
function runExit(watch: readonly RunningRole[], generator: RunningRole, result: unknown): string | null {
  const died = watch.find((r) => r.exit)
  if (died) return `${died.spec.role} exited during the run (code ${died.exit!.code ?? died.exit!.signal})`
  return result ? null : `loadgen printed no summary (exit ${generator.exit?.code})`
}

/** Waits for the generator to end; one still running after `limitS` (well after it should have ended) is stopped, so it cannot hang the run. Whether it was. */
export async function stoppedIfHung(ctx: CellContext, generator: RunningRole, limitS: number): Promise<boolean> {
  const hung = await Promise.race([generator.exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), limitS * 1000).unref())])
  if (hung) await ctx.runtime.stop(generator)
  return hung
}

/** The work counter now, or null without one or when it cannot be read (the run is then judged whole). */
const readWork = async (work: (() => Promise<number>) | undefined): Promise<number | null> => (work ? await work().catch(() => null) : null)

/** One slice reading: every role's CPU with its cpuset in the layout's numbering (the generator's last), the cores' times, the work so far. */
const sliceReading = (
  layout: SliceLayout,
  roles: readonly RunningRole[],
  ns: readonly number[],
  at: bigint,
  stat: Map<number, CpuTimes>,
  work: number,
): SliceReading => ({
  at,
  stat,
  roles: roles.map((r, i) => ({ cpus: roleCores(layout, r), ns: ns[i]! })),
  work,
})

/** The loadgen summary; its whole latency distribution (open, handshake, ws-echo) is kept beside the log. */
function readReport<T>(ctx: CellContext, name: string, argv: readonly string[], logFile: string): T | null {
  const result = parseLoadgenOutput<T>(readFileSync(logFile, 'utf8'))
  const spectrum = (result as { latency_spectrum?: LoadgenSpectrum } | null)?.latency_spectrum
  if (spectrum) writeLatencySpectrum(ctx.runDir, name, loadgenSpectrum(argv[1] === 'h3' && argv.includes('-rate') ? 'h3 -rate' : argv[1]!, spectrum))
  return result
}

/**
 * The proxy's (or another watched role's) CPU µs per unit of the load: its counted CPU over the
 * generator's units, scaled to the counted slices' share of the backend's work; null with none.
 */
export function cpuPerUnit(g: GeneratorOutcome<unknown>, role: RunningRole, units: number): number | null {
  const n = units * g.workShare
  return n > 0 ? Number((g.cpuNs.get(role)! / 1e3 / n).toFixed(3)) : null
}

/**
 * The row's verdict columns: valid or invalid with its reasons, the disturbance of what it
 * counted, the share counted and, for a run counted from its clean slices, the note saying so
 * (and that its ramp was dropped); an extended run states the length it took.
 */
export const judgedColumns = (g: GeneratorOutcome<unknown>, reasons: readonly string[]) => ({
  status: reasons.length ? ('invalid' as const) : ('valid' as const),
  reason: [
    ...reasons,
    ...(g.counted ? [countedNote(g.counted)] : []),
    ...(rampDropped(g.counted) ? [RAMP_DROPPED] : []),
    ...(g.unjudged ? [g.unjudged] : []),
  ].join('; '),
  ...disturbanceColumns(g.disturbance),
  counted_share: g.counted?.share ?? 1,
  disturbed_slice_share: g.disturbedSliceShare,
  ...(g.extendedS === null ? {} : { duration_s: g.extendedS }),
})

/** The note of a run whose first slice (its ramp) was disturbed: its figure is the steady slices' cost (docs/method/disturbance.md#ramp). */
export const RAMP_DROPPED = 'ramp slice disturbed: the steady cost counted'
