import { isIP } from 'node:net'
import Docker from 'dockerode'
import type { ImageRecord } from '../../setup/images/records.ts'
import type { CpuLayout } from '../../roles/cpus.ts'
import { goBinaryPath } from '../../setup/gobuild.ts'
import { bootId, readProcesses, type KernelProcesses, type ProcessSample } from '../proc.ts'
import type { HostsReading, Role, RoleSpec, RunningRole, Runtime } from '../types.ts'
import type { CountingGroup } from '../counts.ts'
import { DockerRuntime } from './runtime.ts'
import { cliEnv, engineOptions, isLoopback, rolesOn, topologyHosts, type EngineHost, type Topology } from './topology.ts'

/*
 * Roles on several Docker hosts (--hosts): one DockerRuntime, and one dockerode client,
 * per engine of the topology; each role starts on its host's engine, and its CPU is read
 * there (the cgroup file for a unix socket engine; for ssh:// and tcp://, where the file is
 * not on this machine, the same file read inside the container by an exec). Host networking on every host: a role
 * on a host reached at a non-loopback address listens on that address and is reached
 * there; on a loopback-addressed host it listens and is reached as on one machine. Each
 * counter is read on its own host and every window is timed here: clocks of the hosts
 * are never compared. Each host whose files are not here (ssh://, tcp://) gets a reader
 * (host-reader.ts, startReaders) that answers its /proc/stat and its roles' CPU counters
 * at once, so that windows are judged on each host's own cores (readHosts).
 */

export interface HostRuntime {
  host: EngineHost
  docker: Docker
  runtime: DockerRuntime
}

export interface MultiHostOptions {
  images?: ImageRecord[]
  /** Engine clients by host (tests); default: dockerode with engineOptions(host). */
  clients?: Map<EngineHost, Docker>
  /** This machine's engine, where the images are built and sent from. */
  local?: Docker
  user?: string
}

export class MultiHostRuntime implements Runtime {
  readonly kind = 'docker' as const
  readonly network = 'host' as const
  readonly generatorElsewhere = true
  readonly hosts: HostRuntime[]

  constructor(
    readonly runId: string,
    readonly topology: Topology,
    opts: MultiHostOptions = {},
  ) {
    this.hosts = topologyHosts(topology).map((host) => {
      const docker = opts.clients?.get(host) ?? new Docker(engineOptions(host, undefined, { persistentSsh: true }))
      const runtime = new DockerRuntime(runId, {
        docker,
        ...(opts.images ? { images: opts.images } : {}),
        ...(opts.user ? { user: opts.user } : {}),
        ...(opts.local ? { imageSource: opts.local } : {}),
        copyFiles: host.copyFiles,
        cpu: host.protocol === 'unix' ? 'cgroup' : 'exec',
        engineName: host.url,
        cliEnv: cliEnv(host),
      })
      return { host, docker, runtime }
    })
  }

  /** Each kernel's boot id, in the hosts' order (hosts with one boot id are one kernel); set by startReaders. */
  private kernels: string[] = []

  /**
   * Starts a reader on each host whose files are not on this machine (ssh://, tcp://), in
   * the backend's image (a shell and mawk; sent there if missing), pinned to the cores of the
   * roles there that make the load, off the proxy's where it has others. A reader that does
   * not start is said in the result, and that host's windows are not judged.
   */
  async startReaders(cpus: CpuLayout): Promise<string[]> {
    const problems = await Promise.all(
      this.hosts.map(async (h) => {
        if (h.host.protocol === 'unix') return null
        const image = h.runtime.resolveImage({ role: 'backend', name: 'host-reader', argv: [goBinaryPath('backend')], cpus: '0', logFile: '' }).image
        const on = rolesOn(this.topology, h.host)
        const load = on.filter((r) => r !== 'proxy')
        try {
          await h.runtime.startReader(image, load.length > 0 && load.length < on.length ? load.map((r) => cpus[r]).join(',') : undefined)
          return null
        } catch (e) {
          return (e as Error).message.split('\n')[0]!
        }
      }),
    )
    this.kernels = [...new Set(this.hosts.map((h) => h.runtime.hostBoot))]
    return problems.filter((p): p is string => p !== null)
  }

  kernelOf(role: Role): number {
    return Math.max(0, this.kernels.indexOf(this.hostOf(role).runtime.hostBoot))
  }

  /**
   * Every kernel's cores and the roles' CPU, each host read at once (its reader, or here): a
   * host with roles asked for, and one host of each kernel no such host shares.
   */
  async readHosts(roles: readonly RunningRole[]): Promise<HostsReading> {
    if (this.kernels.length === 0) throw new Error('the hosts were not read: no host reader started')
    const kernels: HostsReading['kernels'] = this.kernels.map(() => 'here')
    const ns: number[] = roles.map(() => 0)
    const withRoles = this.hosts.filter((h) => roles.some((r) => this.hostOf(r.spec.role) === h))
    const covered = new Set(withRoles.map((h) => h.runtime.hostBoot))
    const read = [...withRoles, ...this.kernels.filter((k) => !covered.has(k)).map((k) => this.hosts.find((h) => h.runtime.hostBoot === k)!)]
    await Promise.all(
      read.map(async (h) => {
        const mine = roles.filter((r) => this.hostOf(r.spec.role) === h)
        const got = await h.runtime.readHost(mine)
        for (const [i, r] of mine.entries()) ns[roles.indexOf(r)] = got.ns[i]!
        const k = this.kernels.indexOf(h.runtime.hostBoot)
        if (k >= 0 && (kernels[k] === 'here' || got.kernel !== 'here')) kernels[k] = got.kernel
      }),
    )
    return { kernels, ns }
  }

  /** Each kernel's processes (Runtime.processes): this machine's read here, another's by a reader there. */
  async processes(roles: readonly RunningRole[]): Promise<KernelProcesses[]> {
    const readers = this.hosts.flatMap((h) => (h.runtime.hostReader ? [h.runtime.hostReader] : []))
    return Promise.all(
      this.kernels.map(async (boot, k) => {
        const here = boot === bootId
        const reader = readers.find((r) => r.boot === boot && !r.broken)
        const procs = here ? readProcesses() : ((await reader?.processes().catch(() => null)) ?? new Map<number, ProcessSample>())
        const own = [
          ...(here ? [process.pid] : []),
          ...readers.filter((r) => r.boot === boot).map((r) => r.pid),
          ...roles.filter((r) => this.kernelOf(r.spec.role) === k).map((r) => r.pid),
        ]
        return { procs, own }
      }),
    )
  }

  /** What each host's reader cost it, one line each (its own container's CPU; null: none ran). */
  readerCosts(): string[] {
    return this.hosts.flatMap((h) => {
      const c = h.runtime.hostReader?.cost
      if (!c) return []
      const share = c.ns / 1e9 / c.seconds
      return [
        `${h.host.url}: host reader: ${(c.ns / 1e6).toFixed(0)} ms of CPU in ${c.seconds.toFixed(0)} s (${(100 * share).toFixed(2)}% of a core), ${c.reads} reads`,
      ]
    })
  }

  /** The host a role runs on. */
  hostOf(role: Role): HostRuntime {
    const host = this.topology.roles[role].host
    return this.hosts.find((h) => h.host === host)!
  }

  private of(role: RunningRole): DockerRuntime {
    return this.hostOf(role.spec.role).runtime
  }

  get cpuSource(): string {
    const sources = [...new Set(this.hosts.map((h) => h.runtime.cpuSource))]
    return sources.length === 1 ? `each host's ${sources[0]}` : this.hosts.map((h) => `${h.host.url}: ${h.runtime.cpuSource}`).join('; ')
  }

  /** For the manifest. */
  get networkMode(): string {
    return `host network of each host (${this.hosts.map((h) => `${h.host.url} at ${h.host.address}`).join(', ')})`
  }

  hostAddress(role: Role): { listen: string; reach: string } | undefined {
    const { address } = this.topology.roles[role].host
    if (isLoopback(address)) return undefined
    // A name may resolve to another address than the one the host's interface carries: all of them then.
    return { listen: isIP(address) ? address : '0.0.0.0', reach: address }
  }

  start(spec: RoleSpec): Promise<RunningRole> {
    return this.hostOf(spec.role).runtime.start(spec)
  }

  cpuNs(role: RunningRole): Promise<number> {
    return this.of(role).cpuNs(role)
  }

  countingGroup(role: RunningRole): CountingGroup | string {
    return this.of(role).countingGroup(role)
  }

  stop(role: RunningRole): Promise<void> {
    return this.of(role).stop(role)
  }

  interrupt(role: RunningRole): Promise<void> {
    return this.of(role).interrupt(role)
  }

  collect(role: RunningRole): Promise<void> {
    return this.of(role).collect(role)
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.hosts.map((h) => h.runtime.stopAll()))
    // A kept-open SSH connection would keep the harness alive after the run.
    for (const h of this.hosts) (h.docker.modem as unknown as { agent?: { destroy(): void } }).agent?.destroy()
  }

  /** Every image a container started from, per host, and those sent there. */
  imagesUsed(): { host: string; component: string; version: string; image: string; id: string; sent: boolean }[] {
    // Written out one field a line: Biome needs two passes to settle it from one long line.
    return this.hosts.flatMap((h) =>
      h.runtime.imagesUsed().map((i) => ({
        host: h.host.url,
        component: i.component,
        version: i.version,
        image: i.image,
        id: h.runtime.loaded.get(i.id)?.id ?? i.id,
        sent: h.runtime.loaded.has(i.id),
      })),
    )
  }
}
