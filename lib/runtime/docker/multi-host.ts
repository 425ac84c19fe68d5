import { isIP } from 'node:net'
import Docker from 'dockerode'
import type { ImageRecord } from '../../setup/images/records.ts'
import type { Role, RoleSpec, RunningRole, Runtime } from '../types.ts'
import type { CountingGroup } from '../counts.ts'
import { DockerRuntime } from './runtime.ts'
import { cliEnv, engineOptions, isLoopback, topologyHosts, type EngineHost, type Topology } from './topology.ts'

/*
 * Roles on several Docker hosts (--hosts): one DockerRuntime, and one dockerode client,
 * per engine of the topology; each role starts on its host's engine, and its CPU is read
 * there (the cgroup file for a unix socket engine; for ssh:// and tcp://, where the file is
 * not on this machine, the same file read inside the container by an exec). Host networking on every host: a role
 * on a host reached at a non-loopback address listens on that address and is reached
 * there; on a loopback-addressed host it listens and is reached as on one machine. Each
 * counter is read on its own host and every window is timed here: clocks of the hosts
 * are never compared.
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
