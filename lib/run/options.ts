import type { Profile } from '../catalog/profiles.ts'
import type { ProxyName } from '../catalog/stack.ts'
import type { Logger } from '../core/log.ts'
import type { SeriesName } from '../data/series.ts'
import type { CpuLayout } from '../roles/cpus.ts'
import type { NetworkMode } from '../runtime/network.ts'
import type { Topology } from '../runtime/docker/topology.ts'
import type { SeriesPlan } from '../series/plan.ts'
import type { ImageMode } from '../setup/images/names.ts'

export const RUNTIME_KINDS = ['auto', 'docker', 'native'] as const
export type RuntimeChoice = (typeof RUNTIME_KINDS)[number]

/** Everything a run needs, checked and typed before anything is installed, written or measured (lib/cli/run-options.ts). */
export interface RunOptions {
  profile: Profile & { connections: number }
  series: SeriesName[]
  proxies: ProxyName[]
  runtime: RuntimeChoice
  /** Docker images: offline (built here), official (pulled), auto. */
  images: ImageMode
  /** Docker network: host (default) or bridge (each role in its own namespace). */
  network: NetworkMode
  /** --hosts: each role on its own Docker engine (lib/runtime/docker/multi-host.ts); absent: one machine. */
  hosts?: Topology
  cpus: CpuLayout
  /** The series options (focus, versions, configs, capacity, bisect), handed to every series as it is. */
  plan: SeriesPlan
  /** The run directory; default results/<run-id>. */
  out?: string
  resume: boolean
  /** With resume: accept settings that differ from the run's (each recorded in the manifest's invocations). */
  allowChanges?: boolean
  /** Kernel counts per window (default on); false: --no-counts. */
  counts?: boolean
  /** A fixed seed instead of a random one. */
  seed?: number
  /** --tax-ns: every role under a system-call tax of about this many ns (lib/runtime/syscall-tax.ts). */
  syscallTaxNs?: number
  /** Install missing components first (run-all) or only check (a single step). */
  install: boolean
  /** --strict-builds: a pinned build no longer served stops the run instead of being substituted (lib/setup/builds.ts). */
  strictBuilds?: boolean
  log: Logger
}
