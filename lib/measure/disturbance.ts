import { readFileSync } from 'node:fs'
import type { CpuLayout } from '../roles/cpus.ts'
import { kernelIrqAccounting, type IrqAccounting } from '../setup/fingerprint.ts'

/**
 * What else ran on the bench's cores during a window: the hypervisor's steal and CPU used
 * by anything outside the bench's roles (another tenant's job, a build, a stray process),
 * on the measured role's cores and on the load's, from the per-CPU lines of /proc/stat
 * read at the window's two ends.
 */

/** Cumulative per-CPU times from /proc/stat, in USER_HZ ticks. */
export interface CpuTimes {
  /** user+nice+system+irq+softirq+steal */
  busy: number
  /** user+nice+system: time of processes (a cgroup counter may also hold irq time: IrqAccounting). */
  task: number
  steal: number
  total: number
  /**
   * Nanoseconds every task ran on this CPU by the scheduler's clock, the one the roles'
   * cgroup counters use (cgroup v1 root `cpuacct.usage_percpu`); absent where unreadable
   * (cgroup v2 has no per-CPU total without schedstats).
   */
  runNs?: number
}

/**
 * /proc/stat counts in USER_HZ, which the kernel fixes at 100 for user space on every
 * architecture Linux ships (sysconf(_SC_CLK_TCK)), whatever CONFIG_HZ is.
 */
export const USER_HZ = 100

/** The `cpuN` lines of /proc/stat (the aggregate `cpu` line is left out). */
export function parseProcStat(text: string): Map<number, CpuTimes> {
  const out = new Map<number, CpuTimes>()
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line.trim())
    if (!m) continue
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is already inside user.
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = m[2]!.trim().split(/\s+/).map(Number)
    const busy = user + nice + system + irq + softirq + steal
    out.set(Number(m[1]), { busy, task: user + nice + system, steal, total: busy + idle + iowait })
  }
  return out
}

/** The root cgroup's per-CPU run time (cgroup v1), in ns by CPU; null where there is none. */
export function parseUsagePerCpu(text: string): number[] | null {
  const v = text.trim().split(/\s+/).map(Number)
  return v.length > 0 && v.every((x) => Number.isFinite(x) && x >= 0) ? v : null
}

/** Where cgroup v1 mounts the root's per-CPU run time (cpuacct alone, or with cpu); null: none (cgroup v2). Looked up once, not at every window's ends. */
let rootPerCpu: string | null | undefined
export function rootPerCpuFile(): string | null {
  if (rootPerCpu === undefined) {
    rootPerCpu =
      ['/sys/fs/cgroup/cpuacct/cpuacct.usage_percpu', '/sys/fs/cgroup/cpu,cpuacct/cpuacct.usage_percpu'].find((f) => {
        try {
          return parseUsagePerCpu(readFileSync(f, 'utf8')) !== null
        } catch {
          return false
        }
      }) ?? null
  }
  return rootPerCpu
}

/** /proc/stat's per-CPU times, with each CPU's run time from the root cgroup's `cpuacct.usage_percpu` where there is one. */
export function cpuTimesOf(stat: string, usagePerCpu: string | null): Map<number, CpuTimes> {
  const times = parseProcStat(stat)
  const percpu = usagePerCpu === null ? null : parseUsagePerCpu(usagePerCpu)
  if (percpu) for (const [c, t] of times) if (percpu[c] !== undefined) t.runNs = percpu[c]
  return times
}

/** This machine's per-CPU times (cpuTimesOf). */
export function readCpuTimes(): Map<number, CpuTimes> {
  const file = rootPerCpuFile()
  return cpuTimesOf(readFileSync('/proc/stat', 'utf8'), file ? readFileSync(file, 'utf8') : null)
}

/**
 * Roles on several hosts: every kernel's cores in one map, kernel k's core c as
 * k × HOST_CORE_STRIDE + c, so that the cores of two hosts never mix and one kernel's
 * (hosts sharing a boot id) are judged as on one machine. Kernel 0's are numbered as they are.
 */
export const HOST_CORE_STRIDE = 4096

/** A cpuset of kernel `kernel` in the numbering of HOST_CORE_STRIDE. */
export const hostCores = (kernel: number, cpus: string): string =>
  kernel === 0
    ? cpus
    : cpuIds(cpus)
        .map((c) => c + kernel * HOST_CORE_STRIDE)
        .join(',')

/** Every kernel's per-CPU times in one map (HOST_CORE_STRIDE); a kernel `here` is this machine's. */
export function hostsCpuTimes(kernels: readonly ({ stat: string; percpu: string | null } | 'here')[]): Map<number, CpuTimes> {
  const out = new Map<number, CpuTimes>()
  kernels.forEach((k, i) => {
    for (const [c, t] of k === 'here' ? readCpuTimes() : cpuTimesOf(k.stat, k.percpu)) out.set(i * HOST_CORE_STRIDE + c, t)
  })
  return out
}

/** CPUs of a list like `0-3,6`. */
export function cpuIds(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number)
    return b === undefined ? [a!] : Array.from({ length: b - a! + 1 }, (_, i) => a! + i)
  })
}

/** The cores of `list` that are not in `minus`, each once, as a list (possibly empty). */
export const coresOutside = (list: string, minus: string) => [...new Set(cpuIds(list))].filter((c) => !cpuIds(minus).includes(c)).join(',')

/** Whether two CPU lists share a core. */
export const overlap = (a: string, b: string) => cpuIds(a).some((c) => cpuIds(b).includes(c))

/** CPU of the roles pinned on any of `cores` (the expected CPU there). */
export const rolesOnNs = (cores: string, roles: readonly { cpus: string; ns: number }[]) =>
  roles.reduce((sum, r) => sum + (overlap(r.cpus, cores) ? r.ns : 0), 0)

/** The measured role's cores: the proxy's, or the backend's for the direct row (its cost is the backend's). */
export const measuredCores = (cpus: { proxy: string; backend: string }, hasProxy: boolean) => (hasProxy ? cpus.proxy : cpus.backend)

export interface Disturbance {
  /** Steal over the window, as a share of the cores' time. */
  stealShare: number
  /** Process time on the cores not accounted to the bench roles pinned there, as a share of the cores' time (≥ 0). */
  foreignShare: number
}

/** A window's disturbance on the measured role's cores and, apart, on the cores of the roles that make its load. */
export interface WindowDisturbance extends Disturbance {
  /**
   * Foreign CPU on the generator's and backend's cores outside the measured ones (null:
   * none, or /proc/stat unreadable). A neighbour there slows the load, not the proxy, and
   * moves the proxy's CPU per request too (it depends on the load level).
   */
  loadForeignShare: number | null
  /** A disturbed window's top foreign commands with their share of a core (lib/measure/culprits.ts culpritsText); absent: not disturbed, or not sampled. */
  culprits?: string
}

/** Role counters above the cores' user+system ticks by more than this share of the window: they include irq time. */
const TICK_SLACK = 0.03

/**
 * Steal and foreign CPU on `cpus` between two /proc/stat reads. `rolesNs` is the CPU, over
 * the same window, of every bench role pinned on these cores: the measured role itself,
 * and where the machine is too small for disjoint cpusets (1 core, or a role sharing these
 * cores) the roles sharing them too, whose CPU is expected there and so not foreign. A role
 * pinned on more cores than these is subtracted whole, which can only understate the
 * foreign share. The window is the two reads' own ticks (not a wall clock), so a read a
 * few ms late does not distort the shares.
 * The foreign CPU is the run time on these cores that the roles' counters do not account
 * for. Best from the root cgroup's per-CPU run time (`runNs`): the scheduler's clock, the
 * counters' own, so irq time is in both or in neither. Else from /proc/stat's ticks:
 * user+system, and irq+softirq too where the kernel charges them to the interrupted task
 * (`irq`, see IrqAccounting; unknown: charged when the counters exceed user+system beyond
 * tick sampling). Counting softirq on a `separate` kernel would call every window
 * disturbed (the proxy's packets, ~25% of its CPU); leaving it out on a `charged` one
 * hides a neighbour as large as that. Ticks are samples: at partial, periodic load (the
 * open model) they strayed ±10-19% of a core from the counters here, the run time 0-8%.
 * Steal is its own share.
 */
export function disturbance(a: Map<number, CpuTimes>, b: Map<number, CpuTimes>, cpus: string, rolesNs: number, irq: IrqAccounting | null): Disturbance | null {
  let task = 0
  let busy = 0
  let steal = 0
  let total = 0
  let runNs: number | null = 0
  for (const c of cpuIds(cpus)) {
    const x = a.get(c)
    const y = b.get(c)
    if (!x || !y) return null
    task += y.task - x.task
    busy += y.busy - x.busy
    steal += y.steal - x.steal
    total += y.total - x.total
    runNs = runNs !== null && x.runNs !== undefined && y.runNs !== undefined ? runNs + (y.runNs - x.runNs) : null
  }
  if (total <= 0) return null
  const roles = (rolesNs / 1e9) * USER_HZ
  const charged = irq === 'charged' || (irq === null && task - roles < -TICK_SLACK * total)
  const accountable = runNs !== null ? (runNs / 1e9) * USER_HZ : charged ? busy - steal : task
  const round = (v: number) => Number(v.toFixed(4))
  return { stealShare: round(steal / total), foreignShare: round(Math.max(0, accountable - roles) / total) }
}

/**
 * The window's disturbance on the measured role's cores (the proxy's; the backend's for the
 * direct row) and on the load cores: the generator's and backend's that are not measured.
 * `roles` is every bench role's CPU over the window, with its cpuset. On several hosts the
 * cpusets are in HOST_CORE_STRIDE's numbering and the times every host's (hostsCpuTimes):
 * each host's cores judged on its own counters; the irq accounting of another kernel is
 * not known here, so it is told from the counters (IrqAccounting null).
 */
export function windowDisturbance(
  a: Map<number, CpuTimes>,
  b: Map<number, CpuTimes>,
  o: { cpus: CpuLayout; hasProxy: boolean; severalHosts: boolean },
  roles: readonly { cpus: string; ns: number }[],
): WindowDisturbance | null {
  const { cpus } = o
  const measured = measuredCores(cpus, o.hasProxy)
  const irq = o.severalHosts ? null : kernelIrqAccounting()
  const d = disturbance(a, b, measured, rolesOnNs(measured, roles), irq)
  if (!d) return null
  const load = coresOutside(`${cpus.generator},${cpus.backend}`, measured)
  const l = load ? disturbance(a, b, load, rolesOnNs(load, roles), irq) : null
  return { ...d, loadForeignShare: l?.foreignShare ?? null }
}

/** A row's disturbance columns (docs/method/disturbance.md). */
export const disturbanceColumns = (d: WindowDisturbance | null) => ({
  steal_share: d?.stealShare ?? null,
  foreign_cpu_share: d?.foreignShare ?? null,
  load_foreign_cpu_share: d?.loadForeignShare ?? null,
  foreign_processes: d?.culprits ?? '',
})
