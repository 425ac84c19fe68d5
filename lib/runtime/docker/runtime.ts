import { spawnSync } from 'node:child_process'
import { createWriteStream, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, type WriteStream } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import type Docker from 'dockerode'
import { dockerClient } from '../../setup/docker-engine.ts'
import { imageFor, readImageRecords, type ImageRecord } from '../../setup/images/records.ts'
import { cacheDir, certsDir, repoRoot } from '../../core/paths.ts'
import { KeyCopies, removeOwnCopies } from '../key-copies.ts'
import type { NetworkMode } from '../network.ts'
import { interrupted, trackRuntime, untrackRuntime } from '../shutdown.ts'
import type { Exit, RoleSpec, RunningRole, Runtime } from '../types.ts'
import { cgroupCpuFile, readCpuInContainer } from './cgroup.ts'
import { groupOfCounterFile, type CountingGroup } from '../counts.ts'
import { copyIn, copyOut } from './copy-in.ts'
import { containerName, harnessLabels, LABEL_HARNESS, LABEL_NAME, LABEL_ROLE, LABEL_RUN } from './labels.ts'
import { planMounts, under } from './mounts.ts'
import { bridgeSysctls, networkNameFor } from './network.ts'
import { errorLine, EXIT_MARK, exitMarkFilter, signalName } from './stream.ts'

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
 * - Cleanup: containers and networks carry `proxybench.run`, `proxybench.role` and the
 *   harness pid + boot id; cleanupStaleContainers() removes those whose harness is gone.
 *   SIGINT/SIGTERM stop what this process started; on exit a last synchronous pass
 *   removes leftovers with the docker CLI when present.
 *
 * Beside this file: mounts.ts (what a container sees), labels.ts (names, labels, state
 * dir), cleanup.ts (stale containers), cgroup.ts (the CPU counter file), network.ts
 * (bridge mode), stream.ts (output and the generator's exit line).
 */

export interface DockerRuntimeOptions {
  network?: NetworkMode
  /** Image records (default: ~/.cache/proxybench/images/images.json). */
  images?: ImageRecord[]
  docker?: Docker
  /** `uid:gid` inside containers (default: 65534:65534 for a root harness, else the harness's own). */
  user?: string
  /** The only directory whose root-only files (private keys) are copied for the container user (default certs/). */
  keysDir?: string
  /** Seconds between SIGTERM and SIGKILL in stop() (default 5, as native). */
  stopTimeoutS?: number
  /** HostConfig fields applied last (experiments: e.g. SecurityOpt with seccomp=unconfined). */
  hostConfig?: Docker.HostConfig
  /**
   * How CPU is read: `cgroup` (default): the container cgroup's counter file
   * (cpuacct.usage on v1, cpu.stat usage_usec on v2): the very counter the stats API
   * reports as cpu_stats.cpu_usage.total_usage, read at once; the stats API where the file
   * is not readable (remote or rootless engine). `stats`: always the engine API, which
   * answers at its next 1 s collection tick, so the readings of one snapshot are up to 1 s
   * apart (measured: +25% proxy µs/req on a 5 s window; see cpuSource). `exec`: the
   * counter file read inside the container by an exec (engines on other hosts: exact when
   * asked; the stats API where the exec fails).
   */
  cpu?: 'stats' | 'cgroup' | 'exec'
  /** Seconds start() waits for an engine that stopped answering (default 120). */
  engineWaitS?: number
  /** No shared file system with this engine: files go through the API (see Several hosts above). */
  copyFiles?: boolean
  /** The engine this machine's images are sent from when this one lacks them (default: none, they must be there). */
  imageSource?: Docker
  /** How messages name this engine (default: docker). */
  engineName?: string
  /** The docker CLI's environment for this engine (DOCKER_HOST…), for the exit pass's sweep. */
  cliEnv?: Record<string, string>
  /**
   * argv put before every role's inside its container (the system-call tax's launcher,
   * lib/runtime/syscall-tax.ts): argv[0] is a static binary, bind-mounted read-only at
   * /opt/proxybench/<its name>, so no image changes. Not with copyFiles (engines on other hosts).
   */
  launcher?: readonly string[]
}

export interface DockerRunningRole extends RunningRole {
  containerId: string
  image: string
  /** The container's address on the run's network (bridge mode only). */
  address?: string
}

/** Errors of an engine that is stopping or gone, not of the container asked for. */
const ENGINE_GONE = /docker\.sock|ECONNREFUSED|ECONNRESET|socket hang up|libnetwork|shutting down|daemon is not running/i

/** A timer that never keeps the process alive (used in races). */
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref())

/** The harness's open-files limits, so containers get what native roles get. */
function nofileLimits(): { soft: number; hard: number } | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const [soft, hard] = line!.split(/\s{2,}/).slice(1, 3).map(Number)
    return Number.isFinite(soft) && Number.isFinite(hard) ? { soft: hard!, hard: hard! } : null
  } catch {
    return null
  }
}

interface Entry {
  role: DockerRunningRole
  container: Docker.Container
  lastNs: number
  /** The container's CPU counter file, when read directly (cpu: 'cgroup'). */
  cgroupFile?: { path: string; v2: boolean } | null
  log: WriteStream
  logDone: Promise<void>
}

export class DockerRuntime implements Runtime {
  readonly kind = 'docker' as const
  readonly network: NetworkMode
  private readonly cpuMode: 'stats' | 'cgroup' | 'exec'
  private statsReads = 0
  private readonly docker: Docker
  private readonly records: ImageRecord[]
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
  private readonly used = new Map<string, { image: string; record?: ImageRecord }>()
  private counter = 0
  private initAvailable?: boolean
  private readonly copyFiles: boolean
  private readonly imageSource?: Docker
  readonly engineName: string
  private readonly cliEnv: Record<string, string>
  private readonly launcher: readonly string[]
  /** Images known to be on this engine; those sent here, with their id on it. */
  private readonly present = new Set<string>()
  readonly loaded = new Map<string, { image: string; id: string; bytes: number }>()

  constructor(
    readonly runId: string,
    opts: DockerRuntimeOptions = {},
  ) {
    this.network = opts.network ?? 'host'
    this.docker = opts.docker ?? dockerClient()
    this.records = opts.images ?? readImageRecords()
    const root = process.getuid?.() === 0
    const [uid, gid] = (opts.user ?? (root ? '65534:65534' : `${process.getuid?.() ?? 65534}:${process.getgid?.() ?? 65534}`)).split(':').map(Number)
    this.user = { uid: uid!, gid: gid ?? uid! }
    this.copies = new KeyCopies(this.user, opts.keysDir ?? certsDir)
    this.stopTimeoutS = opts.stopTimeoutS ?? 5
    this.engineWaitS = opts.engineWaitS ?? 120
    this.hostConfig = opts.hostConfig ?? {}
    this.cpuMode = opts.cpu ?? 'cgroup'
    this.copyFiles = opts.copyFiles ?? false
    if (opts.imageSource) this.imageSource = opts.imageSource
    this.engineName = opts.engineName ?? 'docker'
    this.cliEnv = opts.cliEnv ?? {}
    this.launcher = opts.launcher ?? []
    if (this.launcher.length > 0 && this.copyFiles) throw new Error(`${this.engineName}: a launcher (the syscall tax) needs a file system shared with the engine`)
    trackRuntime(this)
  }

  /** For the manifest: how CPU was actually read. */
  get cpuSource(): string {
    const file = 'container cgroup counter file (cpuacct.usage / cpu.stat usage_usec = docker stats cpu_usage.total_usage)'
    const api = 'docker API container stats: cpu_stats.cpu_usage.total_usage'
    if (this.cpuMode === 'stats') return api
    const read = this.cpuMode === 'exec' ? `${file}, read inside the container by an exec` : file
    return this.statsReads > 0 ? `${read}; ${api} for ${this.statsReads} reads where the ${this.cpuMode === 'exec' ? 'exec failed' : 'file was not readable'}` : read
  }

  /** For the manifest: `host` or `bridge (<network>)`. */
  get networkMode(): string {
    return this.network === 'host' ? 'host' : `bridge (${this.networkName ?? networkNameFor(this.runId)})`
  }

  addressOf(role: RunningRole): string | undefined {
    return (role as DockerRunningRole).address
  }

  /** The image a role would run in, and its argv and env inside it. */
  resolveImage(spec: RoleSpec): { image: string; argv: string[]; env: Record<string, string> } {
    if (spec.image) {
      this.used.set(spec.image, { image: spec.image })
      return { image: spec.image, argv: spec.argv, env: spec.env ?? {} }
    }
    const rec = imageFor(this.records, spec.argv[0]!)
    if (!rec) throw new Error(`no Docker image for ${spec.argv[0]} (role ${spec.name}); run: npx zx notebooks/02-stacks.mjs`)
    this.used.set(rec.id || rec.image, { image: rec.image, record: rec })
    const env = Object.fromEntries(Object.entries(spec.env ?? {}).filter(([k]) => !rec.drop_env.includes(k)))
    // An official image or a suite's root (debian:<suite>) keeps the proxy's binary at its own path.
    const argv = spec.argv[0] === rec.binaries[0] && rec.image_binary !== spec.argv[0] ? [rec.image_binary, ...spec.argv.slice(1)] : spec.argv
    return { image: rec.id || rec.image, argv, env }
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
   * A restarting engine (dockerd stopped mid-run) is waited for, up to engineWaitS, and said
   * so on stderr: the cell in flight has a row naming its dead containers, the next ones run.
   */
  private async engineBack(): Promise<void> {
    const answers = () => this.docker.ping().then(() => true, () => false)
    if (await answers()) return
    process.stderr.write(`proxybench: docker: the engine does not answer; waiting up to ${this.engineWaitS} s for it before the next cell\n`)
    const deadline = Date.now() + this.engineWaitS * 1000
    while (Date.now() < deadline && !interrupted()) {
      // A timer that keeps the process alive: nothing else may while the engine is away.
      await new Promise((r) => setTimeout(r, 1000))
      if (await answers()) {
        process.stderr.write('proxybench: docker: the engine answers again; the run goes on\n')
        return
      }
    }
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
      const until = Date.now() + 15_000
      while (Date.now() < until && (await this.docker.ping().then(() => true, () => false))) await new Promise((r) => setTimeout(r, 500))
      await this.engineBack()
      return this.startOnce(spec)
    }
  }

  private async startOnce(spec: RoleSpec): Promise<RunningRole> {
    if (this.entries.has(spec.name)) throw new Error(`role ${spec.name} already running`)
    // After a signal stopAll() has run or is running: a role started now would outlive it.
    if (interrupted()) throw new Error(`interrupted by ${interrupted()}: ${spec.name} not started`)
    const resolved = this.resolveImage(spec)
    const { image, env } = resolved
    // Not at its host path: an image's /root may be closed to the container user.
    const launcherAt = this.launcher[0] ? `/opt/proxybench/${basename(this.launcher[0])}` : undefined
    const argv = launcherAt ? [launcherAt, ...this.launcher.slice(1), ...resolved.argv] : resolved.argv
    const plan = planMounts(spec, this.user, undefined, this.copies.keysDir)
    const binds = this.copyFiles ? [] : plan.mounts.map((m) => `${m.source}:${m.target}:${m.readOnly ? 'ro' : 'rw'}`)
    if (launcherAt) binds.push(`${this.launcher[0]}:${launcherAt}:ro`)
    for (const c of this.copyFiles ? [] : plan.copies) {
      if (process.getuid?.() !== 0) throw new Error(`${c.source} is not readable by ${this.user.uid}:${this.user.gid} inside the container`)
      binds.push(`${this.copies.copy(c.source)}:${c.target}:ro`)
    }
    if (spec.cwd && !this.copyFiles && process.getuid?.() === 0 && this.user.uid !== 0) this.chownRunDir(resolve(spec.cwd))
    await this.ensureImage(image)

    // The generator's final CPU must be readable after it exits: keep its container alive.
    const wrap = spec.role === 'generator'
    const entrypoint = wrap ? ['/bin/sh', '-c', `"$@"; c=$?; printf '${EXIT_MARK} %s\\n' "$c"; while :; do sleep 3600; done`, 'proxybench-generator', ...argv] : argv
    const nofile = nofileLimits()
    await this.engineBack()
    const network = this.network === 'bridge' ? await this.ensureNetwork() : 'host'
    const creation = this.docker.createContainer({
      name: containerName(this.runId, spec.name, ++this.counter),
      Image: image,
      Entrypoint: entrypoint.slice(0, 1),
      Cmd: entrypoint.slice(1),
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      WorkingDir: spec.cwd ? resolve(spec.cwd) : '/',
      User: `${this.user.uid}:${this.user.gid}`,
      Labels: this.labels(spec.role, spec.name),
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      OpenStdin: false,
      HostConfig: {
        NetworkMode: network,
        ...(network !== 'host' ? { Sysctls: bridgeSysctls() } : {}),
        CpusetCpus: spec.cpus,
        Binds: binds,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        // The engine puts no archive into a read-only root, and a tmpfs would hide what was put under /tmp.
        ReadonlyRootfs: !this.copyFiles,
        ...(this.copyFiles ? {} : { Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=256m' } }),
        Init: await this.hasInit(),
        Privileged: false,
        ...(nofile ? { Ulimits: [{ Name: 'nofile', Soft: nofile.soft, Hard: nofile.hard }] } : {}),
        LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '1' } },
        ...this.hostConfig,
      },
    })
    this.creating.add(creation)
    const container = await creation.finally(() => this.creating.delete(creation))
    this.starting.add(container.id)
    if (interrupted()) {
      await container.remove({ force: true, v: true }).catch(() => {})
      this.starting.delete(container.id)
      throw new Error(`interrupted by ${interrupted()}: ${spec.name} not started`)
    }

    mkdirSync(dirname(spec.logFile), { recursive: true })
    const log = createWriteStream(spec.logFile, { flags: 'a' })
    let markSeen: ((code: number) => void) | undefined
    const marked = new Promise<number>((r) => (markSeen = r))
    let logDone: Promise<void>
    try {
      await new Promise<void>((r, j) => log.once('open', () => r()).once('error', j))
      if (this.copyFiles) await copyIn(container, plan, this.user)
      const stdout = wrap ? exitMarkFilter(log, (code) => markSeen!(code)) : log
      // Attached before start: not a byte of output is missed.
      const stream = (await container.attach({ stream: true, stdout: true, stderr: true })) as NodeJS.ReadableStream
      logDone = new Promise<void>((r) => {
        stream.once('end', () => r())
        stream.once('close', () => r())
        stream.once('error', () => r())
      })
      this.docker.modem.demuxStream(stream, stdout, log)
      await container.start()
    } catch (e) {
      log.end()
      // Kept in `starting` when the engine cannot remove it now (restarting): stopAll tries again.
      if (await container.remove({ force: true, v: true }).then(() => true, () => false)) this.starting.delete(container.id)
      throw new Error(`container for ${spec.name} did not start: ${errorLine(e)}`)
    }
    // After start, "not-running" answers at once for a container that already exited.
    const waited = container.wait({ condition: 'not-running' }) as Promise<{ StatusCode: number }>
    const info = await container.inspect()
    const role: DockerRunningRole = {
      spec,
      pid: info.State.Pid,
      containerId: container.id,
      image,
      exited: undefined as unknown as Promise<Exit>,
      ...(network !== 'host' ? { address: info.NetworkSettings.Networks[network]?.IPAddress } : {}),
    }
    const entry: Entry = { role, container, lastNs: 0, log, logDone }
    const settle = async (code: number): Promise<Exit> => {
      if (role.exit) return role.exit
      if (wrap) {
        await this.readCpu(entry) // the container idles on: the final value
        if (this.copyFiles && spec.cwd) await copyOut(container, resolve(spec.cwd)).catch(() => 0)
      } else await Promise.race([logDone, sleep(2000)]) // a wrapped generator's stream never ends: no 2 s wait for it
      await new Promise<void>((r) => (wrap ? r() : log.end(r)))
      role.exit = { code, signal: signalName(code) }
      return role.exit
    }
    role.exited = Promise.race([
      waited.then((r) => r.StatusCode, () => 137),
      marked,
    ]).then(settle)
    this.entries.set(spec.name, entry)
    this.starting.delete(container.id)
    return role
  }

  /**
   * The run_dir becomes the container user's, with what the host already wrote in it
   * (the rendered config; the proxy's checker, run natively as root, leaves an empty
   * nginx.pid and temp dirs). Never a shared directory.
   */
  private chownRunDir(dir: string): void {
    const forbidden = [repoRoot, homedir(), cacheDir(), '/tmp', '/']
    if (dir.split('/').filter(Boolean).length < 2 || forbidden.some((f) => under(f, dir))) return
    const walk = (p: string, depth: number) => {
      try {
        lchownSync(p, this.user.uid, this.user.gid)
        if (depth < 4 && lstatSync(p).isDirectory()) for (const f of readdirSync(p)) walk(join(p, f), depth + 1)
      } catch {}
    }
    walk(dir, 0)
  }

  private async readCpu(e: Entry): Promise<number> {
    if (this.cpuMode === 'cgroup') {
      e.cgroupFile ??= cgroupCpuFile(e.role.pid)
      if (e.cgroupFile) {
        try {
          const text = readFileSync(e.cgroupFile.path, 'utf8')
          const ns = e.cgroupFile.v2 ? Number(/^usage_usec (\d+)/m.exec(text)?.[1]) * 1000 : Number(text.trim())
          if (Number.isFinite(ns) && ns > 0) return (e.lastNs = Math.max(e.lastNs, ns))
        } catch {}
      }
    }
    if (this.cpuMode === 'exec' && !e.role.exit) {
      const ns = await readCpuInContainer(this.docker, e.container).catch(() => null)
      if (ns !== null) return (e.lastNs = Math.max(e.lastNs, ns))
    }
    try {
      const s = (await e.container.stats({ stream: false, 'one-shot': true } as { stream: false })) as { cpu_stats?: { cpu_usage?: { total_usage?: number } } }
      const ns = s.cpu_stats?.cpu_usage?.total_usage
      if (typeof ns === 'number' && ns > 0) {
        e.lastNs = Math.max(e.lastNs, ns)
        if (this.cpuMode !== 'stats') this.statsReads++
      }
    } catch {}
    return e.lastNs
  }

  /** The container's cgroup, where its kernel counts are read: here only when the engine's kernel is this machine's. */
  countingGroup(role: RunningRole): CountingGroup | string {
    if (this.cpuMode === 'exec') return `${role.spec.role} runs on ${this.engineName}, another host's kernel: counts need perf there`
    const e = this.entries.get(role.spec.name)
    if (!e) return `${role.spec.role} is not running`
    e.cgroupFile ??= cgroupCpuFile(e.role.pid)
    return e.cgroupFile ? groupOfCounterFile(e.cgroupFile) : `${role.spec.role}'s container cgroup (pid ${e.role.pid}) is not readable on this machine`
  }

  async cpuNs(role: RunningRole): Promise<number> {
    const e = this.entries.get(role.spec.name)
    if (!e) return 0
    if (role.exit) return e.lastNs
    return this.readCpu(e)
  }

  /** Reads a running role's working directory back from its container (copyFiles only; with bind mounts it is here already). */
  async collect(role: RunningRole): Promise<void> {
    const e = this.entries.get(role.spec.name)
    if (!e || !this.copyFiles || !role.spec.cwd) return
    await copyOut(e.container, resolve(role.spec.cwd))
  }

  /**
   * An image this engine lacks is sent from imageSource's: `docker save` streamed into
   * `docker load`, progress on stderr. Without an imageSource the create fails as before.
   */
  private async ensureImage(ref: string): Promise<void> {
    if (!this.imageSource || this.present.has(ref)) return
    const has = await this.docker.getImage(ref).inspect().then(() => true, (e: { statusCode?: number }) => {
      if (e.statusCode === 404) return false
      throw e
    })
    if (!has) await this.sendImage(ref)
    this.present.add(ref)
  }

  private async sendImage(ref: string): Promise<void> {
    const src = this.imageSource!
    // Saved by its tag when it has one: the image arrives tagged, with the same id.
    const info = await src.getImage(ref).inspect()
    const name = info.RepoTags?.find((t) => t !== '<none>:<none>') ?? ref
    const say = (s: string) => process.stderr.write(`proxybench: ${this.engineName}: ${s}\n`)
    say(`lacks ${name} (${(info.Size / 2 ** 20).toFixed(0)} MiB): sending it from this machine's engine (docker save → load)`)
    const saved = (await src.getImage(name).get()) as NodeJS.ReadableStream
    let bytes = 0
    let shown = Date.now()
    saved.on('data', (c: Buffer) => {
      bytes += c.length
      if (Date.now() - shown > 5000) {
        shown = Date.now()
        say(`${name}: ${(bytes / 2 ** 20).toFixed(0)} MiB sent`)
      }
    })
    const answer = (await this.docker.loadImage(saved)) as NodeJS.ReadableStream
    let text = ''
    for await (const c of answer) text += String(c)
    const failed = /"error(?:Detail)?":\s*\{?"?(?:message"?:\s*)?"([^"]+)/.exec(text)
    if (failed) throw new Error(`${this.engineName}: loading ${name} failed: ${failed[1]}`)
    const id = (await this.docker.getImage(name).inspect()).Id
    this.loaded.set(ref, { image: name, id, bytes })
    say(`${name}: loaded (${(bytes / 2 ** 20).toFixed(0)} MiB, id ${id.slice(0, 19)})`)
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
    await Promise.race([Promise.allSettled([...this.creating]), sleep(15_000)])
    await Promise.all([...this.entries.values()].map((e) => this.stop(e.role)))
    await Promise.all([...this.starting].map((id) => this.docker.getContainer(id).remove({ force: true, v: true }).catch(() => {})))
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
      await Promise.all(left.map((c) => this.docker.getContainer(c.Id).remove({ force: true, v: true }).catch(() => {})))
    } catch {} // the engine is away: the next start removes them (cleanupStaleContainers)
  }

  /** Last resort at process exit: `docker rm -f` through the CLI, when there is one. */
  killAllSync(): void {
    const env = { ...process.env, ...this.cliEnv }
    const listed = spawnSync('docker', ['ps', '-a', '-q', ...this.ownFilter.flatMap((f) => ['--filter', `label=${f}`])], { encoding: 'utf8', timeout: 10_000, env })
    const labelled = (listed.stdout ?? '').split('\n').filter(Boolean)
    const ids = [...new Set([...this.entries.values()].map((e) => e.role.containerId).concat([...this.starting], labelled))]
    if (ids.length > 0) spawnSync('docker', ['rm', '-f', ...ids], { stdio: 'ignore', timeout: 15_000, env })
    if (this.networkName) spawnSync('docker', ['network', 'rm', this.networkName], { stdio: 'ignore', timeout: 5_000, env })
    removeOwnCopies() // the process is ending: every runtime's copies go
  }

  /** Every image this runtime started a container from, for the manifest. */
  imagesUsed(): { component: string; version: string; image: string; id: string; digest: string | null; mode: string }[] {
    return [...this.used.entries()].map(([id, u]) => ({
      component: u.record?.component ?? '-', version: u.record?.version ?? '-', image: u.image, id, digest: u.record?.digest ?? null, mode: u.record?.mode ?? 'given',
    }))
  }

  /** Containers this runtime has running or stopped-not-removed. */
  get started(): DockerRunningRole[] {
    return [...this.entries.values()].map((e) => e.role)
  }
}
