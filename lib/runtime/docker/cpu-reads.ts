import { readFileSync } from 'node:fs'
import type Docker from 'dockerode'
import { groupOfCounterFile, type CountingGroup } from '../counts.ts'
import type { RunningRole } from '../types.ts'
import { cgroupCpuFile, readCpuInContainer } from './cgroup.ts'

/** How CPU is read (DockerRuntimeOptions.cpu). */
export type CpuMode = 'stats' | 'cgroup' | 'exec'

/** What CPU reads keep per container: its last value (an exited container keeps it) and its counter file. */
export interface CountedContainer {
  role: RunningRole
  container: Docker.Container
  lastNs: number
  /** The container's CPU counter file, when read directly (cpu: 'cgroup'). */
  cgroupFile?: { path: string; v2: boolean } | null
}

/** A counter never goes back: a read below the last one (or an exited container) keeps the last. */
function keepHighest(e: CountedContainer, ns: number): number {
  e.lastNs = Math.max(e.lastNs, ns)
  return e.lastNs
}

/** The container's CPU ns from its cgroup's counter file; null when the file is not there or not readable, or reads no usage. */
function readCounterFile(e: CountedContainer): number | null {
  e.cgroupFile ??= cgroupCpuFile(e.role.pid)
  if (!e.cgroupFile) return null
  try {
    const text = readFileSync(e.cgroupFile.path, 'utf8')
    const ns = e.cgroupFile.v2 ? Number(/^usage_usec (\d+)/m.exec(text)?.[1]) * 1000 : Number(text.trim())
    return Number.isFinite(ns) && ns > 0 ? ns : null
  } catch {
    return null
  }
}

/**
 * A container's cumulative CPU ns: from its cgroup's counter file (cgroup), by an exec
 * inside it (exec), or from the stats API (stats, and the fallback of both).
 */
export class CpuReads {
  private statsReads = 0

  constructor(
    readonly mode: CpuMode,
    private readonly docker: Docker,
    private readonly engineName: string,
  ) {}

  /** For the manifest: how CPU was actually read. */
  get source(): string {
    const file = 'container cgroup counter file (cpuacct.usage / cpu.stat usage_usec = docker stats cpu_usage.total_usage)'
    const api = 'docker API container stats: cpu_stats.cpu_usage.total_usage'
    if (this.mode === 'stats') return api
    const read = this.mode === 'exec' ? `${file}, read inside the container by an exec` : file
    return this.statsReads > 0
      ? `${read}; ${api} for ${this.statsReads} reads where the ${this.mode === 'exec' ? 'exec failed' : 'file was not readable'}`
      : read
  }

  async read(e: CountedContainer): Promise<number> {
    if (this.mode === 'cgroup') {
      const ns = readCounterFile(e)
      if (ns !== null) return keepHighest(e, ns)
    }
    if (this.mode === 'exec' && !e.role.exit) {
      const ns = await readCpuInContainer(this.docker, e.container).catch(() => null)
      if (ns !== null) return keepHighest(e, ns)
    }
    try {
      const s = (await e.container.stats({ stream: false, 'one-shot': true } as { stream: false })) as { cpu_stats?: { cpu_usage?: { total_usage?: number } } }
      const ns = s.cpu_stats?.cpu_usage?.total_usage
      if (typeof ns === 'number' && ns > 0) {
        e.lastNs = Math.max(e.lastNs, ns)
        if (this.mode !== 'stats') this.statsReads++
      }
    } catch {}
    return e.lastNs
  }

  /** The container's cgroup, where its kernel counts are read: here only when the engine's kernel is this machine's. */
  countingGroup(role: RunningRole, e: CountedContainer | undefined): CountingGroup | string {
    if (this.mode === 'exec') return `${role.spec.role} runs on ${this.engineName}, another host's kernel: counts need perf there`
    if (!e) return `${role.spec.role} is not running`
    e.cgroupFile ??= cgroupCpuFile(e.role.pid)
    return e.cgroupFile ? groupOfCounterFile(e.cgroupFile) : `${role.spec.role}'s container cgroup (pid ${e.role.pid}) is not readable on this machine`
  }
}
