import type Docker from 'dockerode'
import type { ImageRecord } from '../../setup/images/records.ts'
import type { NetworkMode } from '../network.ts'

/** How a DockerRuntime runs its roles (the comment at the top of runtime.ts says why each is so). */
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
