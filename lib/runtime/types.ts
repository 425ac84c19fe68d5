import type { CountingGroup } from './counts.ts'
import type { KernelProcesses } from './proc.ts'

/** What each process of a cell does; each gets its own cpuset and CPU counter. */
export type Role = 'backend' | 'proxy' | 'generator'

export interface RoleSpec {
  role: Role
  /** Unique within a run, e.g. `proxy-nginx-1.31.3-article`. */
  name: string
  argv: string[]
  env?: Record<string, string>
  /** taskset/cpuset list, e.g. `1` or `0-1`. */
  cpus: string
  /** stdout and stderr of the role go here (proxies log nothing per request). */
  logFile: string
  cwd?: string
  /**
   * Docker runtime only: the image to run (tag or id). Default: the image recorded by
   * notebooks/02-stacks.mjs for argv[0]. The native runtime ignores it.
   */
  image?: string
}

export interface Exit {
  code: number | null
  signal: string | null
}

export interface RunningRole {
  spec: RoleSpec
  pid: number
  /** Settles when the role's main process exits. */
  exited: Promise<Exit>
  /** Set once the process has exited. */
  exit?: Exit
}

/**
 * Starts roles pinned to cpusets and reads their cumulative CPU time. The native
 * implementation uses processes and cgroups; a Docker one plugs in behind the same
 * interface.
 */
export interface Runtime {
  readonly kind: 'native' | 'docker'
  /** How CPU is read, for the manifest: e.g. `cgroup v1 cpuacct`. */
  readonly cpuSource: string
  /**
   * Absent or `host`: roles share the host's network (loopback). `bridge` (Docker): each
   * role in its own namespace, listening on 0.0.0.0, reached at `addressOf(role)`.
   * See lib/runtime/network.ts.
   */
  readonly network?: 'host' | 'bridge'
  /** A started role's address on the run's network (bridge mode only). */
  addressOf?(role: RunningRole): string | undefined
  /**
   * Roles on several hosts (lib/runtime/docker/multi-host.ts): where a server role of this
   * kind listens on its host and where it is reached; undefined: on the loopback address the
   * harness chose, as on one machine.
   */
  hostAddress?(role: Role): { listen: string; reach: string } | undefined
  /** Reads what a running role wrote in its working directory back to this machine (no shared file system); absent: it is here already. */
  collect?(role: RunningRole): Promise<void>
  /** Roles on several hosts: requests that check a stack are sent from the generator's host, not from this machine. */
  readonly generatorElsewhere?: boolean
  /**
   * The cgroup on this machine that holds all of a role's processes, where the kernel's
   * counts of it are read (lib/runtime/counts.ts), or why there is none (a role on another
   * host, no cgroup). Absent: this runtime cannot say.
   */
  countingGroup?(role: RunningRole): CountingGroup | string
  /**
   * Roles on several hosts: the index of the kernel the role's host runs (hosts sharing a
   * boot id are one kernel), into HostsReading.kernels. Absent: one machine.
   */
  kernelOf?(role: Role): number
  /**
   * Roles on several hosts: every kernel's cores and the roles' CPU at one instant, each
   * host's read there (by its reader, lib/runtime/docker/host-reader.ts, or here for an
   * engine on this machine). Rejects, saying which host and why, when a host cannot be read.
   */
  readHosts?(roles: readonly RunningRole[]): Promise<HostsReading>
  /**
   * Roles on several hosts: each kernel's processes at one moment, read there (by its
   * reader, or here for this machine's kernel), by kernelOf's index; a kernel that cannot
   * be read has none. Absent: one machine (/proc here).
   */
  processes?(roles: readonly RunningRole[]): Promise<KernelProcesses[]>
  start(spec: RoleSpec): Promise<RunningRole>
  /** Cumulative CPU nanoseconds of the role's whole process tree. */
  cpuNs(role: RunningRole): Promise<number>
  stop(role: RunningRole): Promise<void>
  /**
   * Sends SIGINT to a running role (a generator that reports when interrupted, such as wrk,
   * ends its run early and prints its report); the role still has to be stopped.
   */
  interrupt(role: RunningRole): Promise<void>
  /** Stops everything this runtime started; safe to call twice. */
  stopAll(): Promise<void>
}

/** What readHosts answers. */
export interface HostsReading {
  /** Each kernel's /proc/stat and root per-CPU run time (cgroup v1 cpuacct.usage_percpu; null: none), by kernelOf's index; `here`: this machine's, read here. */
  kernels: ({ stat: string; percpu: string | null } | 'here')[]
  /** Each role's cumulative CPU ns, in the order asked. */
  ns: number[]
}
