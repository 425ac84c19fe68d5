import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import type Docker from 'dockerode'
import { dockerClient } from '../../setup/docker-engine.ts'
import { readImageRecords } from '../../setup/images/records.ts'
import { certsDir } from '../../core/paths.ts'
import { KeyCopies, removeOwnCopies } from '../key-copies.ts'
import type { NetworkMode } from '../network.ts'
import { interrupted, trackRuntime, untrackRuntime } from '../shutdown.ts'
import { bootId } from '../proc.ts'
import type { HostsReading, RoleSpec, RunningRole, Runtime } from '../types.ts'
import type { CountingGroup } from '../counts.ts'
import { containerConfig, generatorEntrypoint, nofileLimits } from './container-config.ts'
import { copyOut } from './copy-in.ts'
import { CpuReads } from './cpu-reads.ts'
import { HostReader, readerConfig } from './host-reader.ts'
import { RuntimeImages } from './images.ts'
import { containerName, harnessLabels, LABEL_HARNESS, LABEL_NAME, LABEL_ROLE, LABEL_RUN } from './labels.ts'
import { attachAndStart, engineBack, engineGone, ENGINE_GONE, sleep, type Attached } from './lifecycle.ts'
import { networkNameFor } from './network.ts'
import type { DockerRuntimeOptions } from './options.ts'
import { prepareRole, trackRole, type DockerRunningRole, type Entry, type PreparedRole } from './role-container.ts'

/*
 * The Docker runtime: every role is a container started through the engine API.
 *
 * - Image: spec.image, else the image recorded by notebooks/02-stacks.mjs for argv[0]
 *   (lib/setup/images/). Offline images keep each binary at its host path, so the argv the
 *   harness builds runs unchanged; for an official image argv[0] becomes its own binary.
 * - Files: the roles' working directory (a proxy's run_dir) is bind-mounted read-write at
 *   the same path; every other existing absolute path named in argv, in env or inside a
 *   file named in argv (a rendered config: its certificates) read-only, at the same path.
 *   Nothing else of the host is visible and the Docker socket never is.
 * - Unprivileged: as root, containers run as 65534:65534 (nobody) with every capability
 *   dropped, no-new-privileges and a read-only root file system (tmpfs /tmp). The private
 *   keys (0600, root) are then unreadable, so a copy owned by 65534 is made beside the
 *   original and mounted at the original path: only for files under certs/ (anything
 *   else root-only is an error), in certs/.docker-<pid>/, removed by stopAll, at exit,
 *   or by the next start after a crash (lib/runtime/key-copies.ts).
 *   Rejected alternative: root inside with capabilities dropped: it still owns every
 *   root-owned host file that is mounted, and nginx's master, as root, tries setuid for
 *   its workers, which fails without CAP_SETUID. A non-root harness runs containers as its
 *   own uid:gid (its files are readable as they are).
 * - CPU: cumulative ns of the container's cgroup: the counter the stats API reports as
 *   cpu_stats.cpu_usage.total_usage (cpuacct.usage on cgroup v1), read from its file at
 *   once (default), or through `container.stats({stream: false, one-shot})` (cpu: 'stats',
 *   and the fallback where the file is not readable). The API answers at the engine's
 *   next 1 s collection tick, so the three readings of one snapshot were up to 1 s apart
 *   and the window ran past the generator's end: +25% proxy µs/req for haproxy on a 5 s
 *   window, measured. A container that exited keeps its last value. The generator runs
 *   under a small sh wrapper that, when the generator exits, prints its exit code on
 *   stdout and keeps the container (idle) alive, so its final CPU is read exactly, then
 *   `exited` settles.
 * - Network: host (default; least overhead, loopback addresses as for native) or bridge:
 *   a per-run network `proxybench-<run>`; the role's address is `addressOf(role)` and
 *   what runs inside must listen on it (or 0.0.0.0), not on 127.0.0.1 (lib/runtime/
 *   network.ts). Bridged containers get the host's port range and loopback-like
 *   TIME_WAIT reuse (bridgeSysctls).
 * - Several hosts (--hosts, lib/runtime/docker/multi-host.ts): one runtime per engine. Where
 *   no file system is shared (copyFiles), nothing is bind-mounted: what the mount plan names
 *   is put into the created container through the API at the same paths, owned by the
 *   container user (no key copy on any disk; lib/runtime/docker/copy-in.ts), the root file
 *   system stays writable for that (and /tmp is the container's own), and a role's working
 *   directory is read back (collect; the generator's when it exits). An image the engine
 *   lacks is sent from this machine's engine (imageSource: docker save → load, streamed).
 *   Such an engine's host gets a reader (startReader, host-reader.ts): its cores and every
 *   CPU counter read there on one kept stream, no exec per read.
 * - Cleanup: containers and networks carry `proxybench.run`, `proxybench.role` and the
 *   harness pid + boot id; cleanupStaleContainers() removes those whose harness is gone.
 *   SIGINT/SIGTERM stop what this process started; on exit a last synchronous pass
 *   removes leftovers with the docker CLI when present.
 *
 * Beside this file: options.ts (DockerRuntimeOptions), images.ts (which image; images sent
 * to another engine), cpu-reads.ts (the CPU counter), container-config.ts (the create
 * options), lifecycle.ts (attach and start; the engine going and coming back), mounts.ts
 * (what a container sees), labels.ts (names, labels, state dir), cleanup.ts (stale
 * containers), cgroup.ts (the CPU counter file), host-reader.ts (a host's reader), network.ts (bridge mode), stream.ts
 * (output and the generator's exit line), role-container.ts (a role's container: what it is
 * given, how its exit is followed).
 */

export type { DockerRunningRole } from './role-container.ts'

export class DockerRuntime implements Runtime {
  readonly kind = 'docker' as const
  readonly network: NetworkMode
  private readonly docker: Docker
  private readonly images: RuntimeImages
  private readonly cpu: CpuReads
  private readonly user: { uid: number; gid: number }
  private readonly stopTimeoutS: number
  private readonly engineWaitS: number
  private readonly hostConfig: Docker.HostConfig
  private readonly entries = new Map<string, Entry>()
  /** Created but not yet running (a signal can land between create and start): removed too. */
  private readonly starting = new Set<string>()
  /** Create calls in flight: stopAll waits for them, so a container created after it cannot outlive the run. */
  private readonly creating = new Set<Promise<unknown>>()
  private readonly copies: KeyCopies
  private networkName?: string
  private counter = 0
  private initAvailable?: boolean
  private readonly copyFiles: boolean
  readonly engineName: string
  private readonly cliEnv: Record<string, string>
  private readonly launcher: readonly string[]
  private reader?: HostReader

  constructor(
    readonly runId: string,
    opts: DockerRuntimeOptions = {},
  ) {
    this.network = opts.network ?? 'host'
    this.docker = opts.docker ?? dockerClient()
    const root = process.getuid?.() === 0
    const [uid, gid] = (opts.user ?? (root ? '65534:65534' : `${process.getuid?.() ?? 65534}:${process.getgid?.() ?? 65534}`)).split(':').map(Number)
    this.user = { uid: uid!, gid: gid ?? uid! }
    this.copies = new KeyCopies(this.user, opts.keysDir ?? certsDir)
    this.stopTimeoutS = opts.stopTimeoutS ?? 5
    this.engineWaitS = opts.engineWaitS ?? 120
    this.hostConfig = opts.hostConfig ?? {}
    this.copyFiles = opts.copyFiles ?? false
    this.engineName = opts.engineName ?? 'docker'
    this.images = new RuntimeImages(this.docker, opts.images ?? readImageRecords(), this.engineName, opts.imageSource)
    this.cpu = new CpuReads(opts.cpu ?? 'cgroup', this.docker, this.engineName)
    this.cliEnv = opts.cliEnv ?? {}
    this.launcher = opts.launcher ?? []
    if (this.launcher.length > 0 && this.copyFiles)
      throw new Error(`${this.engineName}: a launcher (the syscall tax) needs a file system shared with the engine`)
    trackRuntime(this)
  }

  /** For the manifest: how CPU was actually read. */
  get cpuSource(): string {
    return this.cpu.source
  }

  /** For the manifest: `host` or `bridge (<network>)`. */
  get networkMode(): string {
    return this.network === 'host' ? 'host' : `bridge (${this.networkName ?? networkNameFor(this.runId)})`
  }

  /** Images sent to this engine from imageSource's, by the reference asked for. */
  get loaded(): ReadonlyMap<string, { image: string; id: string; bytes: number }> {
    return this.images.loaded
  }

  addressOf(role: RunningRole): string | undefined {
    return (role as DockerRunningRole).address
  }

  /** The image a role would run in, and its argv and env inside it. */
  resolveImage(spec: RoleSpec): { image: string; argv: string[]; env: Record<string, string> } {
    return this.images.resolve(spec)
  }

  private async ensureNetwork(): Promise<string> {
    if (this.networkName) return this.networkName
    const name = networkNameFor(this.runId)
    const existing = await this.docker.listNetworks({ filters: { name: [name] } })
    if (!existing.some((n) => n.Name === name)) {
      await this.docker.createNetwork({ Name: name, Driver: 'bridge', Labels: this.labels('network', 'network') })
    }
    this.networkName = name
    return name
  }

  private labels(role: string, name: string): Record<string, string> {
    return { [LABEL_RUN]: this.runId, [LABEL_ROLE]: role, [LABEL_NAME]: name, ...harnessLabels() }
  }

  private async hasInit(): Promise<boolean> {
    if (this.initAvailable === undefined) {
      try {
        this.initAvailable = Boolean(((await this.docker.info()) as { InitBinary?: string }).InitBinary)
      } catch {
        this.initAvailable = false
      }
    }
    return this.initAvailable
  }

  /**
   * A start that fails because the engine is going away (dockerd stopping: its network store
   * closed, then its socket gone) is tried once more when the engine is back: the run goes
   * on instead of failing every cell until it returns.
   */
  async start(spec: RoleSpec): Promise<RunningRole> {
    try {
      return await this.startOnce(spec)
    } catch (e) {
      if (interrupted() || !ENGINE_GONE.test((e as Error).message)) throw e
      // Stopping engines answer pings for a few seconds more: wait for it to go, then to come back.
      await engineGone(this.docker)
      await engineBack(this.docker, this.engineWaitS)
      return this.startOnce(spec)
    }
  }

  private async startOnce(spec: RoleSpec): Promise<RunningRole> {
    if (this.entries.has(spec.name)) throw new Error(`role ${spec.name} already running`)
    // After a signal stopAll() has run or is running: a role started now would outlive it.
    if (interrupted()) throw new Error(`interrupted by ${interrupted()}: ${spec.name} not started`)
    const { image, env, argv, plan, binds } = this.prepare(spec)
    await this.images.ensure(image)

    // The generator's final CPU must be readable after it exits: keep its container alive.
    const wrap = spec.role === 'generator'
    const entrypoint = wrap ? generatorEntrypoint(argv) : argv
    const nofile = nofileLimits()
    await engineBack(this.docker, this.engineWaitS)
    const network = this.network === 'bridge' ? await this.ensureNetwork() : 'host'
    const container = await this.create(
      spec,
      containerConfig(spec, {
        name: containerName(this.runId, spec.name, ++this.counter),
        image,
        entrypoint,
        env,
        user: this.user,
        labels: this.labels(spec.role, spec.name),
        network,
        binds,
        copyFiles: this.copyFiles,
        init: await this.hasInit(),
        nofile,
        hostConfig: this.hostConfig,
      }),
    )
    const attached = await attachAndStart(this.docker, container, spec, {
      plan,
      wrap,
      copyFiles: this.copyFiles,
      user: this.user,
      removed: () => this.starting.delete(container.id),
    })
    return this.track(container, spec, image, network, wrap, attached)
  }

  /** A role's image, argv (behind the launcher), env, mount plan and binds; its run_dir made the container user's. */
  private prepare(spec: RoleSpec): PreparedRole {
    return prepareRole(spec, { images: this.images, launcher: this.launcher, user: this.user, copies: this.copies, copyFiles: this.copyFiles })
  }

  /** Creates the container; one created after a signal is removed at once. */
  private async create(spec: RoleSpec, config: Docker.ContainerCreateOptions): Promise<Docker.Container> {
    const creation = this.docker.createContainer(config)
    this.creating.add(creation)
    const container = await creation.finally(() => this.creating.delete(creation))
    this.starting.add(container.id)
    if (interrupted()) {
      await container.remove({ force: true, v: true }).catch(() => {})
      this.starting.delete(container.id)
      throw new Error(`interrupted by ${interrupted()}: ${spec.name} not started`)
    }
    return container
  }

  /** The running role: its pid and address, and `exited`, which settles once its final CPU is read. */
  private async track(container: Docker.Container, spec: RoleSpec, image: string, network: string, wrap: boolean, attached: Attached): Promise<RunningRole> {
    const entry = await trackRole(container, spec, { image, network, wrap, attached, cpu: this.cpu, copyFiles: this.copyFiles })
    this.entries.set(spec.name, entry)
    this.starting.delete(container.id)
    return entry.role
  }

  /**
   * Starts this host's reader (lib/runtime/docker/host-reader.ts) in `image` (sent here if
   * missing), pinned to `cpus` (absent: any core): from then on every CPU read goes through it.
   */
  async startReader(image: string, cpus?: string): Promise<void> {
    if (this.reader) return
    await this.images.ensure(image)
    const name = containerName(this.runId, 'host-reader', ++this.counter)
    const config = readerConfig({ name, image, labels: this.labels('reader', 'host-reader'), user: this.user, ...(cpus ? { cpus } : {}) })
    this.reader = await HostReader.start(this.docker, config, this.engineName)
    this.cpu.reader = this.reader
  }

  /** This host's reader, when one was started. */
  get hostReader(): HostReader | undefined {
    return this.reader
  }

  /** This host's boot id: its reader's, or this machine's for an engine read here. */
  get hostBoot(): string {
    return this.reader?.boot ?? bootId
  }

  /**
   * This host's cores and the roles' CPU at one instant (HostsReading, one kernel): by its
   * reader, or here for an engine on this machine (its cgroup files are read here). Rejects,
   * naming the host, when neither is possible.
   */
  async readHost(roles: readonly RunningRole[]): Promise<{ kernel: HostsReading['kernels'][number]; ns: number[] }> {
    if (this.reader) {
      const { answer, ns } = await this.cpu.readHost(roles.map((r) => this.entries.get(r.spec.name)))
      return { kernel: { stat: answer.stat, percpu: answer.percpu }, ns }
    }
    if (this.cpu.mode !== 'cgroup') throw new Error(`no host reader on ${this.engineName}`)
    return { kernel: 'here', ns: await Promise.all(roles.map((r) => this.cpuNs(r))) }
  }

  /** The container's cgroup, where its kernel counts are read: here only when the engine's kernel is this machine's. */
  countingGroup(role: RunningRole): CountingGroup | string {
    return this.cpu.countingGroup(role, this.entries.get(role.spec.name))
  }

  async cpuNs(role: RunningRole): Promise<number> {
    const e = this.entries.get(role.spec.name)
    if (!e) return 0
    if (role.exit) return e.lastNs
    return this.cpu.read(e)
  }

  /** Reads a running role's working directory back from its container (copyFiles only; with bind mounts it is here already). */
  async collect(role: RunningRole): Promise<void> {
    const e = this.entries.get(role.spec.name)
    if (!e || !this.copyFiles || !role.spec.cwd) return
    await copyOut(e.container, resolve(role.spec.cwd))
  }
  async interrupt(role: RunningRole): Promise<void> {
    const e = this.entries.get(role.spec.name)
    if (!e || role.exit) return
    try {
      // docker-init (when the engine has it) passes the signal on to the role's process.
      await e.container.kill({ signal: 'SIGINT' })
    } catch {}
  }

  async stop(role: RunningRole): Promise<void> {
    const e = this.entries.get(role.spec.name)
    if (!e) return
    if (!role.exit) {
      try {
        await e.container.stop({ t: this.stopTimeoutS })
      } catch {}
      await Promise.race([role.exited, sleep((this.stopTimeoutS + 5) * 1000)])
    }
    try {
      await e.container.remove({ force: true, v: true })
    } catch {
      // The engine may be restarting: stopAll() tries again, so the container does not outlive the run.
      this.starting.add(e.container.id)
    }
    await Promise.race([e.logDone, sleep(2000)])
    if (!e.log.writableEnded) await new Promise<void>((r) => e.log.end(r))
    this.entries.delete(role.spec.name)
  }

  async stopAll(): Promise<void> {
    await this.reader?.stop()
    await Promise.race([Promise.allSettled([...this.creating]), sleep(15_000)])
    await Promise.all([...this.entries.values()].map((e) => this.stop(e.role)))
    await Promise.all(
      [...this.starting].map((id) =>
        this.docker
          .getContainer(id)
          .remove({ force: true, v: true })
          .catch(() => {}),
      ),
    )
    this.starting.clear()
    await this.removeLabelled()
    if (this.networkName) {
      try {
        await this.docker.getNetwork(this.networkName).remove()
      } catch {}
      this.networkName = undefined
    }
    this.copies.release()
    // After a signal the process exits next: its exit pass (killAllSync) sweeps once more.
    if (!interrupted()) untrackRuntime(this)
  }

  /** This run's label filter: what no tracked id may miss (a create whose answer was lost to an engine restart). */
  private get ownFilter(): string[] {
    return [`${LABEL_RUN}=${this.runId}`, `${LABEL_HARNESS}=${process.pid}`]
  }

  /** Removes every container that carries this run's and this harness's labels. */
  private async removeLabelled(): Promise<void> {
    try {
      const left = await this.docker.listContainers({ all: true, filters: { label: this.ownFilter } })
      await Promise.all(
        left.map((c) =>
          this.docker
            .getContainer(c.Id)
            .remove({ force: true, v: true })
            .catch(() => {}),
        ),
      )
    } catch {} // the engine is away: the next start removes them (cleanupStaleContainers)
  }

  /** Last resort at process exit: `docker rm -f` through the CLI, when there is one. */
  killAllSync(): void {
    const env = { ...process.env, ...this.cliEnv }
    const listed = spawnSync('docker', ['ps', '-a', '-q', ...this.ownFilter.flatMap((f) => ['--filter', `label=${f}`])], {
      encoding: 'utf8',
      timeout: 10_000,
      env,
    })
    const labelled = (listed.stdout ?? '').split('\n').filter(Boolean)
    const ids = [...new Set([...this.entries.values()].map((e) => e.role.containerId).concat([...this.starting], labelled))]
    if (ids.length > 0) spawnSync('docker', ['rm', '-f', ...ids], { stdio: 'ignore', timeout: 15_000, env })
    if (this.networkName) spawnSync('docker', ['network', 'rm', this.networkName], { stdio: 'ignore', timeout: 5_000, env })
    removeOwnCopies() // the process is ending: every runtime's copies go
  }

  /** Every image this runtime started a container from, for the manifest. */
  imagesUsed(): { component: string; version: string; image: string; id: string; digest: string | null; mode: string }[] {
    return this.images.usedImages()
  }

  /** Containers this runtime has running or stopped-not-removed. */
  get started(): DockerRunningRole[] {
    return [...this.entries.values()].map((e) => e.role)
  }
}
