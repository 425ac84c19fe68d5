import type { CpuLayout } from '../roles/cpus.ts'
import type { Role, RunningRole, Runtime } from '../runtime/types.ts'
import { hostCores, hostsCpuTimes, readCpuTimes, windowDisturbance, type CpuTimes, type WindowDisturbance } from './disturbance.ts'
import { isDisturbedWindow } from './validity.ts'
import { writeFileAtomic } from '../core/atomic.ts'

/**
 * Slice accounting (docs/method/disturbance.md#slices): a closed window read every
 * SLICE_S, so that a neighbour in bursts spoils only the slices it ran in. When a slice is
 * disturbed the row counts the clean ones only (their proxy CPU over their requests), but
 * for the GUARD_SLICES right after a disturbed one, if they cover at least MIN_COUNTED_SHARE
 * of the window; else the window stays disturbed and is redone as before. A window with no
 * disturbed slice is counted whole, as before.
 */

/** Seconds between two readings: 50 ticks of /proc/stat per core, so one tick of steal stays under its threshold. */
export const SLICE_S = 0.5

/**
 * Least share of the window the clean slices must cover. Half a window keeps a row's
 * requests within 2× of a whole one's, so its repeat noise stays within the profile's
 * (docs/lab-notes/2026-12-03-slices.md).
 */
export const MIN_COUNTED_SHARE = 0.5

/**
 * How far a window may extend itself when a neighbour spoiled part of it: to
 * (1 + MAX_EXTENSION) × its length. Extending by a window costs less than the redo it saves
 * (a wait for quiet, the stack's settle and warm-up, the window again), and a neighbour that
 * leaves half the slices clean gives a whole window of clean time within it.
 */
export const MAX_EXTENSION = 1

/**
 * Clean-looking slices dropped after a disturbed one (a backlog draining after a burst): none.
 * A closed load's backlog is at most one request per connection, 2-4% of a slice at the
 * measured rates, and it drains mostly inside the disturbed slice; the clean slices after a
 * burst read like those far from one, within the slice-to-slice noise (lab notes
 * 2026-12-05-guard-band.md; the TLS series: 2026-12-05-extension.md). A run that shows a
 * longer drain raises it.
 */
export const GUARD_SLICES = 0

/** Whether each slice counts: judged clean, and more than `guard` slices after the last disturbed one. */
export function countingSlices(slices: readonly Slice[], guard = GUARD_SLICES): boolean[] {
  let sinceDisturbed = Number.POSITIVE_INFINITY
  return slices.map((s) => {
    sinceDisturbed = s.clean ? sinceDisturbed + 1 : 0
    return s.clean && sinceDisturbed > guard
  })
}

/**
 * The window's readings in order: its start, the readings between, its end; a reading
 * closer than half a slice to the end is left out (a short last slice is mostly tick noise).
 */
export const windowReadings = (start: SliceReading, between: readonly SliceReading[], end: SliceReading): SliceReading[] => [
  start,
  ...between.filter((r) => r.at > start.at && Number(end.at - r.at) / 1e9 >= SLICE_S / 2),
  end,
]

/** The cumulative counters of one instant inside the window. */
export interface SliceReading {
  at: bigint
  stat: Map<number, CpuTimes>
  /** Every bench role's cumulative CPU with its cpuset, in the same order at every reading. */
  roles: readonly { cpus: string; ns: number }[]
  /** Work done so far: the backend's request counter. */
  work: number
}

export interface SliceLayout {
  /** The roles' cpusets; on several hosts in HOST_CORE_STRIDE's numbering (each host's kernel apart). */
  cpus: CpuLayout
  hasProxy: boolean
  severalHosts: boolean
  /** On several hosts: the kernel each role's host runs (Runtime.kernelOf). */
  kernels?: Record<Role, number>
}

/**
 * The layout a window's slices are judged by: the cell's cpusets, whether a proxy is
 * measured, whether the roles run on several hosts, and there each role's cores on its
 * host's kernel.
 */
export function sliceLayout(ctx: { cpus: CpuLayout; runtime: Pick<Runtime, 'generatorElsewhere' | 'kernelOf'> }, hasProxy: boolean): SliceLayout {
  const severalHosts = !!ctx.runtime.generatorElsewhere
  if (!ctx.runtime.kernelOf) return { cpus: ctx.cpus, hasProxy, severalHosts }
  const k = (r: Role) => ctx.runtime.kernelOf!(r)
  const kernels = { proxy: k('proxy'), backend: k('backend'), generator: k('generator') }
  const cpus = {
    proxy: hostCores(kernels.proxy, ctx.cpus.proxy),
    backend: hostCores(kernels.backend, ctx.cpus.backend),
    generator: hostCores(kernels.generator, ctx.cpus.generator),
  }
  return { cpus, hasProxy, severalHosts, kernels }
}

/** A role's cpuset in the layout's numbering: as it is on one machine; on several hosts, on its host's kernel. */
export const roleCores = (layout: SliceLayout, role: RunningRole): string =>
  layout.kernels ? hostCores(layout.kernels[role.spec.role], role.spec.cpus) : role.spec.cpus

/** The cores' times and the roles' CPU at one instant. */
export interface CoresReading {
  at: bigint
  stat: Map<number, CpuTimes>
  /** Each role's cumulative CPU ns, in the order asked. */
  ns: number[]
}

/**
 * The cores' times and the roles' CPU at one instant: each role's counter, then this
 * machine's /proc/stat; on several hosts every host's, read there at once (Runtime.readHosts:
 * each host's reader), the instant the middle of the reads. Rejects when a host cannot be read.
 */
export async function readCores(runtime: Pick<Runtime, 'cpuNs' | 'readHosts'>, roles: readonly RunningRole[]): Promise<CoresReading> {
  if (!runtime.readHosts) {
    const ns = await Promise.all(roles.map((r) => runtime.cpuNs(r)))
    return { at: process.hrtime.bigint(), stat: readCpuTimes(), ns }
  }
  const asked = process.hrtime.bigint()
  const r = await runtime.readHosts(roles)
  return { at: (asked + process.hrtime.bigint()) / 2n, stat: hostsCpuTimes(r.kernels), ns: r.ns }
}

/**
 * readCores at a window's end, which must be read whatever happens: when a host cannot be
 * read (its reader gone) the roles' CPU is read one by one as without readers, no core is
 * (so the window is not judged), and `unjudged` says why for the row's reason.
 */
export async function readWindowEnd(
  runtime: Pick<Runtime, 'cpuNs' | 'readHosts'>,
  roles: readonly RunningRole[],
): Promise<CoresReading & { unjudged: string | null }> {
  try {
    return { ...(await readCores(runtime, roles)), unjudged: null }
  } catch (e) {
    const ns = await Promise.all(roles.map((r) => runtime.cpuNs(r)))
    return { at: process.hrtime.bigint(), stat: new Map(), ns, unjudged: `not judged for disturbance: ${(e as Error).message.split('\n')[0]}` }
  }
}

/** One slice between two readings. */
export interface Slice {
  seconds: number
  work: number
  /** Each role's CPU in the slice, in the readings' order. */
  rolesNs: number[]
  disturbance: WindowDisturbance | null
  clean: boolean
}

/** The clean slices of a window, summed. */
export interface CountedSlices {
  slices: Slice[]
  /** Whether each slice is counted (countingSlices): clean and outside the guard band. */
  counts: boolean[]
  /** Seconds, work and role CPU of the counted slices only. */
  seconds: number
  work: number
  rolesNs: number[]
  /** Counted seconds over the window's. */
  share: number
  /** The clean slices' disturbance, time-weighted (what the row's disturbance columns state). */
  disturbance: WindowDisturbance
}

const round4 = (v: number) => Number(v.toFixed(4))

/** Cuts the readings (the window's two ends and the points between) into slices and judges each. */
export function slicesOf(readings: readonly SliceReading[], o: SliceLayout): Slice[] {
  if (readings.length < 2) return []
  const out: Slice[] = []
  for (let i = 1; i < readings.length; i++) {
    const a = readings[i - 1]!
    const b = readings[i]!
    const seconds = Number(b.at - a.at) / 1e9
    const rolesNs = b.roles.map((r, j) => r.ns - a.roles[j]!.ns)
    const own = b.roles.map((r, j) => ({ cpus: r.cpus, ns: rolesNs[j]! }))
    const d = windowDisturbance(a.stat, b.stat, o, own)
    const clean = d !== null && !isDisturbedWindow(d)
    out.push({ seconds, work: b.work - a.work, rolesNs, disturbance: d, clean })
  }
  return out
}

/**
 * The window counted from its clean slices, or null when it is counted whole: the window as
 * a whole (`whole`) is not disturbed (a slice over the thresholds is then a blip the window's
 * own judgement absorbs, such as the counters attaching), no slice is disturbed, a slice
 * could not be judged (/proc/stat unreadable, a host's reader gone), or the clean slices
 * outside the guard band (`guard`, GUARD_SLICES) cover less than MIN_COUNTED_SHARE of the
 * window as planned (`windowS`, default: the slices' own length; an extended window is
 * longer), and the window is then judged whole, and disturbed.
 */
export function countCleanSlices(
  slices: readonly Slice[],
  whole: WindowDisturbance | null,
  o: { guard?: number; windowS?: number } = {},
): CountedSlices | null {
  const { guard = GUARD_SLICES } = o
  if (!whole || !isDisturbedWindow(whole)) return null
  if (slices.length === 0 || slices.some((s) => s.disturbance === null) || slices.every((s) => s.clean)) return null
  const counts = countingSlices(slices, guard)
  const clean = slices.filter((_, i) => counts[i])
  const total = slices.reduce((t, s) => t + s.seconds, 0)
  const seconds = clean.reduce((t, s) => t + s.seconds, 0)
  if (total <= 0 || seconds < MIN_COUNTED_SHARE * (o.windowS ?? total)) return null
  // Every slice was judged (checked above), so each clean one has its disturbance.
  const judged = clean.map((s) => ({ seconds: s.seconds, d: s.disturbance! }))
  const weighted = (f: (d: WindowDisturbance) => number) => round4(judged.reduce((t, s) => t + f(s.d) * s.seconds, 0) / seconds)
  return {
    slices: [...slices],
    counts,
    seconds,
    work: clean.reduce((t, s) => t + s.work, 0),
    rolesNs: slices[0]!.rolesNs.map((_, j) => clean.reduce((t, s) => t + s.rolesNs[j]!, 0)),
    share: round4(seconds / total),
    disturbance: {
      stealShare: weighted((d) => d.stealShare),
      foreignShare: weighted((d) => d.foreignShare),
      // Null (no load cores apart from the proxy's) in one slice is null in all: the layout is the window's.
      loadForeignShare: judged.some((s) => s.d.loadForeignShare === null) ? null : weighted((d) => d.loadForeignShare!),
    },
  }
}

/** The note a counted row's reason carries: how much was counted and what the dropped slices held. */
export function countedNote(c: CountedSlices): string {
  const disturbed = c.slices.filter((s) => !s.clean)
  const kept = c.counts.filter(Boolean).length
  const guarded = c.slices.length - disturbed.length - kept
  const worst = Math.max(...disturbed.map((s) => Math.max(s.disturbance!.foreignShare, s.disturbance!.loadForeignShare ?? 0)))
  const steal = Math.max(...disturbed.map((s) => s.disturbance!.stealShare))
  const total = c.slices.reduce((t, s) => t + s.seconds, 0)
  const band = guarded ? `, or ${guarded} in the guard band after one` : ''
  return `counted ${c.seconds.toFixed(1)} of ${total.toFixed(1)} s (${kept} of ${c.slices.length} slices): the others disturbed (foreign CPU up to ${(100 * worst).toFixed(0)}%, steal up to ${(100 * steal).toFixed(1)}%)${band}`
}

/**
 * What raw/<stem>.slices.json keeps of a window disturbed as a whole: every slice, and the
 * share counted (null: not counted from its slices, so disturbed), so the choice can be checked.
 */
export const slicesRecord = (slices: readonly Slice[], counted: CountedSlices | null) => ({
  counted_share: counted?.share ?? null,
  slices: slices.map((s, i) => ({
    seconds: round4(s.seconds),
    work: s.work,
    roles_ns: s.rolesNs,
    steal_share: s.disturbance?.stealShare ?? null,
    foreign_cpu_share: s.disturbance?.foreignShare ?? null,
    load_foreign_cpu_share: s.disturbance?.loadForeignShare ?? null,
    clean: s.clean,
    counted: counted?.counts[i] ?? false,
  })),
})

/** The share of the window's time in disturbed slices; null when there are none or one could not be judged. */
export function disturbedShare(slices: readonly Slice[]): number | null {
  const total = slices.reduce((t, s) => t + s.seconds, 0)
  if (total <= 0 || slices.some((s) => s.disturbance === null)) return null
  return round4(slices.reduce((t, s) => t + (s.clean ? 0 : s.seconds), 0) / total)
}

/**
 * The part of a run its figures count: the whole run (its seconds, each role's CPU, its work),
 * or its clean slices when a neighbour disturbed the others (countCleanSlices), with the
 * counted share of the work and the share of its time in disturbed slices (disturbedShare). A run disturbed as a whole keeps every slice in `keep`
 * (raw/<stem>.slices.json) so the choice can be checked.
 *
 * `ramp`: the run has no warm-up cut off (open model, handshakes, WebSocket, L4: the generator's
 * whole run is the window), so its first slice holds the ramp (the first users' connections
 * and TLS handshakes) that the whole run's figure spreads over all its work. With its first
 * slice clean it counts as a quiet run of `windowS` would have (asQuietRun); with its first
 * slice disturbed the ramp is dropped and its clean steady slices count, as a closed window's
 * do (docs/method/disturbance.md#ramp). `extended`: the run went on past `windowS` (extendsWindow).
 */
export function countedPart(
  keep: string,
  slices: readonly Slice[],
  whole: WindowDisturbance | null,
  run: { seconds: number; ns: number[]; work: number },
  o: { ramp?: boolean; windowS?: number; extended?: boolean } = {},
) {
  const found = countCleanSlices(slices, whole, { windowS: o.windowS })
  const steady = found && o.ramp ? steadyCost(found) : null
  const counted = o.ramp && !steady && !rampDropped(found) ? null : found
  if (whole && isDisturbedWindow(whole) && slices.length) writeFileAtomic(keep, JSON.stringify(slicesRecord(slices, counted)) + '\n')
  const disturbed = disturbedShare(slices)
  if (!counted) return { counted, disturbed, seconds: run.seconds, ns: run.ns, work: run.work, workShare: 1 }
  if (steady) return { counted, disturbed, ...asQuietRun(counted, steady, run, o.extended ? o.windowS : undefined) }
  return { counted, disturbed, seconds: counted.seconds, ns: counted.rolesNs, work: counted.work, workShare: run.work > 0 ? counted.work / run.work : 1 }
}

/** A ramp run's first slice is disturbed, and its clean slices after it did work: they count, the ramp dropped. */
export const rampDropped = (c: CountedSlices | null): boolean => !!c && !c.counts[0] && c.work > 0

/**
 * A ramp run counted as a quiet run would have: its ramp slice as it ran, and the work after it
 * at the steady cost (each disturbed slice stands in at it). A run extended past its planned
 * `windowS` did more work than planned: it counts the planned window's, the ramp's and the
 * steady slices' rate over the rest of the window, so its ramp is spread as a quiet run's is;
 * `workShare` scales the generator's whole-run units to it.
 */
function asQuietRun(c: CountedSlices, steady: readonly number[], run: { seconds: number; work: number }, windowS?: number) {
  const ramp = c.slices[0]!
  const sum = (pick: (s: Slice) => number, of: readonly Slice[]) => of.reduce((t, s) => t + pick(s), 0)
  if (windowS === undefined) {
    const left = sum(
      (s) => s.work,
      c.slices.filter((_, i) => !c.counts[i]),
    )
    return { seconds: run.seconds, ns: c.rolesNs.map((ns, j) => ns + left * steady[j]!), work: run.work, workShare: 1 }
  }
  const after = c.slices.filter((_, i) => i > 0 && c.counts[i])
  const rate = sum((s) => s.work, after) / sum((s) => s.seconds, after)
  const work = ramp.work + rate * Math.max(0, windowS - ramp.seconds)
  return { seconds: windowS, ns: ramp.rolesNs.map((ns, j) => ns + (work - ramp.work) * steady[j]!), work, workShare: run.work > 0 ? work / run.work : 1 }
}

/** Each role's CPU per unit of work in the counted slices after the first, or null when the first is not counted or none after it did work. */
export function steadyCost(c: CountedSlices): number[] | null {
  if (!c.counts[0]) return null
  const after = c.slices.filter((_, i) => i > 0 && c.counts[i])
  const work = after.reduce((t, s) => t + s.work, 0)
  if (work <= 0) return null
  return c.slices[0]!.rolesNs.map((_, j) => after.reduce((t, s) => t + s.rolesNs[j]!, 0) / work)
}

/**
 * Whether a window, at the planned end of its `windowS` seconds or later, goes on
 * (docs/method/disturbance.md#extension): it is disturbed as a whole so far, its counted
 * slices cover less than `windowS`, it is within its bound (MAX_EXTENSION), and it can still
 * reach MIN_COUNTED_SHARE of `windowS` if every slice left is clean. A window that is not
 * disturbed as a whole ends on time, so a quiet machine pays nothing.
 */
export function extendsWindow(readings: readonly SliceReading[], o: SliceLayout & { windowS: number }): boolean {
  if (readings.length < 2) return false
  const elapsedS = Number(readings.at(-1)!.at - readings[0]!.at) / 1e9
  const leftS = (1 + MAX_EXTENSION) * o.windowS - elapsedS
  if (leftS < SLICE_S / 2) return false
  const whole = slicesOf([readings[0]!, readings.at(-1)!], o)[0]!
  if (whole.disturbance === null || whole.clean) return false
  const slices = slicesOf(readings, o)
  if (slices.some((s) => s.disturbance === null)) return false
  const counts = countingSlices(slices)
  const countedS = slices.reduce((t, s, i) => t + (counts[i] ? s.seconds : 0), 0)
  return countedS < o.windowS && countedS + leftS >= MIN_COUNTED_SHARE * o.windowS
}

/**
 * Waits a slice at a time while the window extends itself (extendsWindow), judged on the
 * readings so far, and while `going` (its generator still runs); the clock bounds it too,
 * should the readings stop (the backend gone). Whether it went on at all.
 */
export async function extension(
  first: SliceReading,
  sofar: readonly SliceReading[],
  layout: SliceLayout,
  windowS: number,
  going: () => boolean = () => true,
): Promise<boolean> {
  const until = first.at + BigInt(Math.round((1 + MAX_EXTENSION) * windowS * 1e9))
  let extended = false
  while (going() && process.hrtime.bigint() < until && extendsWindow([first, ...sofar], { ...layout, windowS })) {
    extended = true
    await new Promise((r) => setTimeout(r, SLICE_S * 1000))
  }
  return extended
}

/**
 * Reads `read()` every SLICE_S until `stop()` is called; the readings are returned in order.
 * A reading that fails (the backend gone) ends the sampling: the window's ends still judge it.
 * `reads` counts the readings started, finished or not (each opened a stats connection).
 */
export function startSlicing(read: () => Promise<SliceReading>): {
  /** The readings so far. */
  readonly readings: readonly SliceReading[]
  stop(): Promise<{ readings: SliceReading[]; reads: number }>
} {
  const readings: SliceReading[] = []
  let reads = 0
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let pending: Promise<void> = Promise.resolve()
  const tick = () => {
    reads++
    pending = read()
      .then((r) => {
        if (!stopped) readings.push(r)
      })
      .catch(() => {
        stopped = true
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, SLICE_S * 1000)
      })
  }
  timer = setTimeout(tick, SLICE_S * 1000)
  return {
    readings,
    async stop() {
      stopped = true
      clearTimeout(timer)
      // A reading still under way is waited for a slice at most: a slow one must not move the window's end.
      await Promise.race([pending, new Promise((r) => setTimeout(r, SLICE_S * 1000))])
      return { readings, reads }
    },
  }
}
