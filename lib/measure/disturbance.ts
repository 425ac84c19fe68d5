import { readFileSync } from 'node:fs'

/**
 * What else ran on the measured role's cores during a window: the hypervisor's steal and
 * CPU used by anything outside the bench's roles (another tenant's job, a build, a stray
 * process), from the per-CPU lines of /proc/stat read at the window's two ends.
 */

/** Cumulative per-CPU times from /proc/stat, in USER_HZ ticks. */
export interface CpuTimes {
  /** user+nice+system+irq+softirq+steal */
  busy: number
  /** user+nice+system: time of processes, the only part a cgroup counter can account for. */
  task: number
  steal: number
  total: number
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

export const readProcStat = (): Map<number, CpuTimes> => parseProcStat(readFileSync('/proc/stat', 'utf8'))

/** CPUs of a list like `0-3,6`. */
export function cpuIds(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number)
    return b === undefined ? [a!] : Array.from({ length: b - a! + 1 }, (_, i) => a! + i)
  })
}

/** Whether two CPU lists share a core. */
export const overlap = (a: string, b: string) => cpuIds(a).some((c) => cpuIds(b).includes(c))

/** CPU of the roles pinned on any of `cores` (the expected CPU there). */
export const rolesOnNs = (cores: string, roles: readonly { cpus: string; ns: number }[]) => roles.reduce((sum, r) => sum + (overlap(r.cpus, cores) ? r.ns : 0), 0)

/** The measured role's cores: the proxy's, or the backend's for the direct row (its cost is the backend's). */
export const measuredCores = (cpus: { proxy: string; backend: string }, hasProxy: boolean) => (hasProxy ? cpus.proxy : cpus.backend)

export interface Disturbance {
  /** Steal over the window, as a share of the cores' time. */
  stealShare: number
  /** Process time on the cores not accounted to the bench roles pinned there, as a share of the cores' time (≥ 0). */
  foreignShare: number
}

/**
 * Steal and foreign CPU on `cpus` between two /proc/stat reads. `rolesNs` is the CPU, over
 * the same window, of every bench role pinned on these cores: the measured role itself,
 * and where the machine is too small for disjoint cpusets (1 core, or a role sharing these
 * cores) the roles sharing them too, whose CPU is expected there and so not foreign. A role
 * pinned on more cores than these is subtracted whole, which can only understate the
 * foreign share. The window is the two reads' own ticks (not a wall clock), so a read a
 * few ms late does not distort the shares.
 * irq and softirq are left out of the foreign CPU: with IRQ time accounting the kernel
 * charges the proxy's own loopback packet processing there, never to its cgroup (on this
 * machine cpu1's softirq grew by ~25% of the proxy's CPU while it served), so counting it
 * would call every window disturbed. Steal is its own share.
 */
export function disturbance(a: Map<number, CpuTimes>, b: Map<number, CpuTimes>, cpus: string, rolesNs: number): Disturbance | null {
  let task = 0
  let steal = 0
  let total = 0
  for (const c of cpuIds(cpus)) {
    const x = a.get(c)
    const y = b.get(c)
    if (!x || !y) return null
    task += y.task - x.task
    steal += y.steal - x.steal
    total += y.total - x.total
  }
  if (total <= 0) return null
  const round = (v: number) => Number(v.toFixed(4))
  return { stealShare: round(steal / total), foreignShare: round(Math.max(0, task - (rolesNs / 1e9) * USER_HZ) / total) }
}
