import { readFileSync } from 'node:fs'
import type Docker from 'dockerode'
import { groupOfCounterFile, type CountingGroup } from '../counts.ts'
import type { RunningRole } from '../types.ts'
import { cgroupCpuFile, readCpuInContainer } from './cgroup.ts'
import type { HostReader, ReaderAnswer } from './host-reader.ts'

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
  /** The host's reader (lib/runtime/docker/host-reader.ts), when one runs: every read goes through it while it answers. */
  reader?: HostReader
  /** Reads its exec or the stats API made after the reader stopped answering. */
  private afterReader = 0

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
    if (this.reader) {
      const after = this.afterReader > 0 ? `; by an exec for ${this.afterReader} reads after ${this.reader.broken}` : ''
      return `${file}, read by the host's reader (one mawk process in a container there)${after}`
    }
    const read = this.mode === 'exec' ? `${file}, read inside the container by an exec` : file
    return this.statsReads > 0
      ? `${read}; ${api} for ${this.statsReads} reads where the ${this.mode === 'exec' ? 'exec failed' : 'file was not readable'}`
      : read
  }

  /**
   * The host's cores and the containers' CPU at one instant, by the reader (one request); a
   * container that exited (or is not there: undefined) keeps its last value. Rejects when
   * the reader does not answer.
   */
  async readHost(entries: readonly (CountedContainer | undefined)[]): Promise<{ answer: ReaderAnswer; ns: number[] }> {
    if (!this.reader) throw new Error('no host reader')
    const asked = entries.filter((e): e is CountedContainer => !!e && !e.role.exit)
    const answer = await this.reader.read(asked.map((e) => e.role.pid))
    asked.forEach((e, i) => {
      const ns = answer.ns[i]
      if (ns !== null && ns !== undefined) keepHighest(e, ns)
    })
    return { answer, ns: entries.map((e) => e?.lastNs ?? 0) }
  }

  async read(e: CountedContainer): Promise<number> {
    if (this.reader && !this.reader.broken && !e.role.exit) {
      const ns = await this.reader.read([e.role.pid]).then(
        (a) => a.ns[0],
        () => null,
      )
      if (ns !== null && ns !== undefined) return keepHighest(e, ns)
    }
    if (this.reader?.broken) this.afterReader++
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
