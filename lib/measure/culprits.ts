import { readProcesses, type KernelProcesses, type ProcessSample } from '../runtime/proc.ts'
import type { Runtime, RunningRole } from '../runtime/types.ts'
import { cpuIds, HOST_CORE_STRIDE, hostsCpuTimes, readCpuTimes, USER_HZ, type CpuTimes, type WindowDisturbance } from './disturbance.ts'
import { isDisturbedWindow } from './validity.ts'

/**
 * Who else runs on this machine (docs/method/disturbance.md): the processes outside the
 * harness's own process tree, by the CPU they used between two reads of /proc, and the
 * foreign load on each CPU. Only a process's command name (`comm`) is kept, never its
 * arguments, which can hold secrets.
 */

/** A process outside the harness and what it used over an interval. */
export interface ForeignProcess {
  pid: number
  command: string
  /** CPU over the interval as a share of one core (0.63 = 63% of a core). */
  share: number
  cpu: number
}

/** The pids of `roots` and of all their descendants in `procs`: the harness's own tree (its roles' containers included when their pids are roots). */
export function processTree(procs: ReadonlyMap<number, ProcessSample>, roots: readonly number[]): Set<number> {
  const children = new Map<number, number[]>()
  for (const p of procs.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid])
  const out = new Set<number>()
  const todo = roots.filter((r) => r > 0)
  while (todo.length) {
    const pid = todo.pop()!
    if (out.has(pid)) continue
    out.add(pid)
    todo.push(...(children.get(pid) ?? []))
  }
  return out
}

/**
 * The processes outside `own` that used CPU between `a` and `b` (`seconds` apart), most
 * first. A process that started between the reads counts from zero, and so does a pid
 * reused by another process (another start time).
 */
export function foreignProcesses(
  a: ReadonlyMap<number, ProcessSample>,
  b: ReadonlyMap<number, ProcessSample>,
  seconds: number,
  own: ReadonlySet<number>,
): ForeignProcess[] {
  if (!(seconds > 0)) return []
  const out: ForeignProcess[] = []
  for (const p of b.values()) {
    if (own.has(p.pid)) continue
    const before = a.get(p.pid)
    const ticks = p.ticks - (before && before.start === p.start ? before.ticks : 0)
    if (ticks <= 0) continue
    out.push({ pid: p.pid, command: p.command, share: ticks / USER_HZ / seconds, cpu: p.cpu })
  }
  return out.sort((x, y) => y.share - x.share || x.pid - y.pid)
}

/** Per command (several processes of one name are one culprit, e.g. the compiler's jobs), most first. */
export function byCommand(procs: readonly ForeignProcess[]): { command: string; share: number }[] {
  const sum = new Map<string, number>()
  for (const p of procs) sum.set(p.command, (sum.get(p.command) ?? 0) + p.share)
  return [...sum].map(([command, share]) => ({ command, share })).sort((x, y) => y.share - x.share || x.command.localeCompare(y.command))
}

/** Culprits below this share of a core are not named: the harness's own reads, a shell's wake-up. */
export const MIN_CULPRIT_SHARE = 0.02
/** Culprits named per window. */
export const CULPRITS_PER_WINDOW = 3

/** `python3 63%, cc1 21%`: the top commands of a window, as its `foreign_processes` column holds them (empty: none above MIN_CULPRIT_SHARE). */
export function culpritsText(procs: readonly ForeignProcess[], n = CULPRITS_PER_WINDOW): string {
  return byCommand(procs)
    .filter((c) => c.share >= MIN_CULPRIT_SHARE)
    .slice(0, n)
    .map((c) => `${c.command.replace(/[,;%\n\r]/g, '_')} ${Math.round(100 * c.share)}%`)
    .join(', ')
}

/** A moment of the machine: per-CPU times and every process. */
export interface MachineSample {
  at: bigint
  stat: Map<number, CpuTimes>
  procs: ReadonlyMap<number, ProcessSample>
  /** Pids whose trees are the harness's own, where the sample knows them (several hosts). */
  own?: readonly number[]
}

export const sampleNow = (): MachineSample => ({ at: process.hrtime.bigint(), stat: readCpuTimes(), procs: readProcesses() })

/**
 * A moment of every kernel the roles run on (several hosts): the cores in HOST_CORE_STRIDE's
 * numbering, the processes in HOST_PID_STRIDE's, each read there at once. Rejects when a host
 * cannot be read.
 */
export async function sampleHosts(runtime: Required<Pick<Runtime, 'readHosts' | 'processes'>>, roles: readonly RunningRole[]): Promise<MachineSample> {
  const asked = process.hrtime.bigint()
  const [cores, processes] = await Promise.all([runtime.readHosts([]), runtime.processes(roles)])
  const { procs, own } = hostsProcesses(processes)
  return { at: (asked + process.hrtime.bigint()) / 2n, stat: hostsCpuTimes(cores.kernels), procs, own }
}

/**
 * Foreign load on each CPU between two samples, as a share of that CPU's time: its run
 * time (the root cgroup's per-CPU counter where there is one, else user+system ticks) less
 * the CPU of the harness's own processes that last ran there. The per-process CPU is
 * placed on its last CPU: exact for a process that stayed, an estimate for one that moved.
 */
export function foreignLoadByCpu(a: MachineSample, b: MachineSample, own: ReadonlySet<number>): Map<number, number> {
  const ownTicks = new Map<number, number>()
  for (const p of b.procs.values()) {
    if (!own.has(p.pid)) continue
    const before = a.procs.get(p.pid)
    const ticks = p.ticks - (before && before.start === p.start ? before.ticks : 0)
    if (ticks > 0) ownTicks.set(p.cpu, (ownTicks.get(p.cpu) ?? 0) + ticks)
  }
  const out = new Map<number, number>()
  for (const [cpu, y] of b.stat) {
    const x = a.stat.get(cpu)
    if (!x) continue
    const total = y.total - x.total
    if (total <= 0) continue
    const run = x.runNs !== undefined && y.runNs !== undefined ? ((y.runNs - x.runNs) / 1e9) * USER_HZ : y.task - x.task
    out.set(cpu, Math.min(1, Math.max(0, run - (ownTicks.get(cpu) ?? 0)) / total))
  }
  return out
}

/** The mean foreign load over a list of CPUs (0 when none of them was read). */
export function coresLoad(load: ReadonlyMap<number, number>, cores: string): number {
  const xs = cpuIds(cores).flatMap((c) => (load.has(c) ? [load.get(c)!] : []))
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0
}

/** What a stretch of sampling saw: per-CPU foreign load and the foreign processes, most first. */
export interface MachineLook {
  seconds: number
  loadByCpu: Map<number, number>
  processes: ForeignProcess[]
}

export function lookBetween(a: MachineSample, b: MachineSample, roots: readonly number[]): MachineLook {
  const own = processTree(b.procs, [...roots, ...(b.own ?? [])])
  const seconds = Number(b.at - a.at) / 1e9
  return { seconds, loadByCpu: foreignLoadByCpu(a, b, own), processes: foreignProcesses(a.procs, b.procs, seconds, own) }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Samples the machine (on several hosts every kernel: `sample`, sampleHosts) for `seconds`: the preflight's look before the first window. */
export async function lookAtMachine(
  seconds: number,
  o: { roots?: readonly number[]; sample?: () => MachineSample | Promise<MachineSample> } = {},
): Promise<MachineLook> {
  const sample = o.sample ?? sampleNow
  const a = await sample()
  await sleep(seconds * 1000)
  return lookBetween(a, await sample(), o.roots ?? [process.pid])
}

/** `python3 (pid 3175) 63% of a core, cc1 (pid 88) 21% of a core` (pids as their kernel numbers them). */
export const processesText = (procs: readonly ForeignProcess[], n = CULPRITS_PER_WINDOW) =>
  procs
    .filter((p) => p.share >= MIN_CULPRIT_SHARE)
    .slice(0, n)
    .map((p) => `${p.command} (pid ${p.pid % HOST_PID_STRIDE}) ${Math.round(100 * p.share)}% of a core`)
    .join(', ')

/**
 * A core's name for a user: `cpu1`; on several hosts (HOST_CORE_STRIDE's numbering) with the
 * roles whose host runs its kernel, `cpu1 of the proxy's host`.
 */
export function coreNamer(runtime: Pick<Runtime, 'kernelOf'>): (c: number) => string {
  const { kernelOf } = runtime
  if (!kernelOf) return (c) => `cpu${c}`
  return (c) => {
    const on = (['proxy', 'backend', 'generator'] as const).filter((r) => kernelOf(r) === Math.floor(c / HOST_CORE_STRIDE))
    return `cpu${c % HOST_CORE_STRIDE} of the ${on.map((r) => `${r}'s`).join(' and ')} host`
  }
}

/**
 * The preflight's one line when the bench's cores carry foreign load above `threshold`
 * (null: quiet enough, nothing to say): what runs and how much of each core it takes.
 */
export function preflightLine(
  look: MachineLook,
  benchCores: string,
  threshold: number,
  o: { where?: string; coreName?: (c: number) => string } = {},
): string | null {
  const busy = [...new Set(cpuIds(benchCores))].sort((a, b) => a - b).filter((c) => (look.loadByCpu.get(c) ?? 0) > threshold)
  if (busy.length === 0) return null
  const name = o.coreName ?? ((c: number) => `cpu${c}`)
  const cores = busy.map((c) => `${name(c)} ${Math.round(100 * look.loadByCpu.get(c)!)}%`).join(', ')
  const who = processesText(look.processes)
  return `other work on ${o.where ?? 'this machine'}: ${who || 'no single process (many short ones)'}; foreign load ${cores}; results will take longer`
}

export interface QuietWait {
  /** Seconds spent waiting. */
  waitedS: number
  /** Whether the load stayed under the threshold for the settle time (false: the wait hit its bound). */
  quiet: boolean
  /** What ran meanwhile, most first. */
  processes: ForeignProcess[]
}

/**
 * Waits until the foreign load on each group of cores (the measured role's; the load's) has
 * stayed at or under `threshold` for `settleS`, polling /proc every `pollS`, or `maxS` has
 * passed. `roots` are the harness's own processes (its tree is never foreign).
 */
export async function waitForQuiet(o: {
  groups: readonly string[]
  threshold: number
  settleS: number
  maxS: number
  pollS?: number
  roots?: readonly number[]
  /** A moment of the machine (default: this one's /proc; on several hosts, sampleHosts). */
  sample?: () => MachineSample | Promise<MachineSample>
}): Promise<QuietWait> {
  const pollS = o.pollS ?? 0.25
  const roots = o.roots ?? [process.pid]
  const sampleMachine = o.sample ?? sampleNow
  const start = await sampleMachine()
  let prev = start
  let quietS = 0
  let last = start
  const elapsed = () => Number(last.at - start.at) / 1e9
  // Summed poll by poll: a process that ended during the wait is still named.
  const used = new Map<number, ForeignProcess>()
  const meanwhile = () =>
    [...used.values()].map((p) => ({ ...p, share: elapsed() > 0 ? p.share / elapsed() : 0 })).sort((x, y) => y.share - x.share || x.pid - y.pid)
  while (elapsed() < o.maxS) {
    await sleep(Math.min(pollS, Math.max(0.01, o.maxS - elapsed())) * 1000)
    const now = await sampleMachine()
    last = now
    const look = lookBetween(prev, now, roots)
    for (const p of look.processes) used.set(p.pid, { ...p, share: (used.get(p.pid)?.share ?? 0) + p.share * look.seconds })
    const loud = o.groups.some((g) => g !== '' && coresLoad(look.loadByCpu, g) > o.threshold)
    quietS = loud ? 0 : quietS + look.seconds
    prev = now
    if (quietS >= o.settleS) return { waitedS: elapsed(), quiet: true, processes: meanwhile() }
  }
  return { waitedS: elapsed(), quiet: false, processes: meanwhile() }
}

/** Every process of the kernels a window's roles run on at one moment, and the pids whose trees are the harness's own. */
export interface ProcessesAt {
  procs: ReadonlyMap<number, ProcessSample>
  own: readonly number[]
}

/** Pids of kernel k are k × HOST_PID_STRIDE + pid (the kernel's bound on pids, PID_MAX_LIMIT, is 2^22), as cores are by HOST_CORE_STRIDE. */
export const HOST_PID_STRIDE = 2 ** 22

/** Every kernel's processes in one map: pids apart by HOST_PID_STRIDE, each one's last CPU in HOST_CORE_STRIDE's numbering. */
export function hostsProcesses(kernels: readonly KernelProcesses[]): ProcessesAt {
  const procs = new Map<number, ProcessSample>()
  const own: number[] = []
  kernels.forEach((k, i) => {
    const pid = (p: number) => i * HOST_PID_STRIDE + p
    for (const p of k.procs.values()) procs.set(pid(p.pid), { ...p, pid: pid(p.pid), ppid: pid(p.ppid), cpu: i * HOST_CORE_STRIDE + p.cpu })
    own.push(...k.own.map(pid))
  })
  return { procs, own }
}

/**
 * Every process of the kernels a window's roles run on, and the harness's own among them:
 * on several hosts each kernel's, read there (Runtime.processes); else this machine's.
 */
export async function processesAt(runtime: Pick<Runtime, 'processes'>, roles: readonly RunningRole[]): Promise<ProcessesAt> {
  if (runtime.processes) return hostsProcesses(await runtime.processes(roles))
  return { procs: readProcesses(), own: [process.pid, ...roles.map((r) => r.pid)] }
}

/**
 * A window's disturbance with its culprits named (the top foreign commands between the
 * window's ends) when it is disturbed; unchanged when it is not, or unknown.
 */
export function withCulprits(d: WindowDisturbance | null, a: ProcessesAt, b: ProcessesAt, seconds: number): WindowDisturbance | null {
  if (!d || !isDisturbedWindow(d)) return d
  return { ...d, culprits: culpritsText(foreignProcesses(a.procs, b.procs, seconds, processTree(b.procs, b.own))) }
}
