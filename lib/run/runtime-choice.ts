import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import type { CpuLayout } from '../roles/cpus.ts'
import { cleanupStaleContainers } from '../runtime/docker/cleanup.ts'
import { MultiHostRuntime } from '../runtime/docker/multi-host.ts'
import { DockerRuntime } from '../runtime/docker/runtime.ts'
import { describeTopology, type EngineHost } from '../runtime/docker/topology.ts'
import { cleanupStale, NativeRuntime } from '../runtime/native.ts'
import type { Runtime } from '../runtime/types.ts'
import { dockerClient, engineInfo, ensureDockerEngine } from '../setup/docker-engine.ts'
import { ensureImages } from '../setup/images/ensure.ts'
import { notRunnableVersions } from '../setup/builds.ts'
import type { RunComponents } from './components.ts'
import type { ImageRecord } from '../setup/images/records.ts'
import { connectHosts, hostCpusets, type EngineFacts } from './hosts.ts'
import type { RunOptions, RuntimeChoice } from './options.ts'
import type { OpenedRun } from './resume.ts'

/** The runtime a run measures on, what it was built from, and the cpusets it gives the roles. */
export interface ChosenRuntime {
  kind: 'native' | 'docker'
  runtime: Runtime
  images: ImageRecord[]
  /** --hosts: each engine's facts, as it answered. */
  facts?: Map<EngineHost, EngineFacts>
  /** The flags' cpusets, or with --hosts each role's from its host's cores. */
  cpus: CpuLayout
}

type Built = Pick<ChosenRuntime, 'runtime' | 'images' | 'facts'>

/** auto: docker when an engine answers (and its images can be had), else native; said either way. */
async function resolveRuntime(kind: RuntimeChoice, log: Logger, hosts: boolean): Promise<'native' | 'docker'> {
  if (kind === 'native') return 'native'
  // --hosts: the images are built here and sent to the hosts from this machine's engine.
  if (kind === 'docker' || hosts) {
    await ensureDockerEngine(log)
    return 'docker'
  }
  const info = await engineInfo()
  log.info(info ? `runtime: docker (engine ${info.version} answers)` : 'runtime: native (no Docker engine answers)')
  return info ? 'docker' : 'native'
}

/** The runtime of a run: native processes, or containers from images ensured now. */
async function createRuntime(kind: 'native' | 'docker', id: string, o: RunOptions, parts: Pick<RunComponents, 'launcher' | 'components'>): Promise<Built> {
  if (kind === 'native') {
    cleanupStale(o.log)
    return { runtime: new NativeRuntime(id, { launcher: parts.launcher }), images: [] }
  }
  await cleanupStaleContainers(o.log)
  // A version gone from its source has no build to put in an image: its cells say so (lib/setup/builds.ts).
  const exclude = new Set(notRunnableVersions(parts.components).keys())
  const imgs = await ensureImages({ mode: o.images, proxies: o.proxies, log: o.log, exclude })
  const bad = imgs.rows.find((r) => r.status === 'failed')
  if (bad) throw userError(`${bad.component} ${bad.version}`, bad.note ?? 'image failed', 'Run: npx zx notebooks/02-stacks.mjs --images offline')
  if (o.hosts) {
    const runtime = new MultiHostRuntime(id, o.hosts, { images: imgs.records, local: dockerClient() })
    try {
      const facts = await connectHosts(runtime)
      for (const h of runtime.hosts) await cleanupStaleContainers(o.log, h.docker)
      return { runtime, images: imgs.records, facts }
    } catch (e) {
      await runtime.stopAll()
      throw e
    }
  }
  return { runtime: new DockerRuntime(id, { images: imgs.records, network: o.network, launcher: parts.launcher }), images: imgs.records }
}

/**
 * Stage 3 of a run: the runtime, as asked or as auto chooses it; auto falls back to native
 * when the docker images cannot be prepared (never with bridge networking or --hosts, which need docker).
 */
export async function chooseRuntime(o: RunOptions, run: OpenedRun, parts: Pick<RunComponents, 'launcher' | 'components'>): Promise<ChosenRuntime> {
  let kind = await resolveRuntime(o.runtime, o.log, !!o.hosts)
  if (o.network === 'bridge' && kind !== 'docker') {
    throw userError(
      '--network',
      'bridge needs the docker runtime, and no Docker engine answers (auto chose native)',
      'Start the engine (npx zx notebooks/00-setup.mjs) or use --runtime docker',
    )
  }
  // The pid keeps cgroups, containers and state of two runs with the same directory name apart.
  const runtimeId = `${run.runId}-${process.pid}`
  const built = await createRuntime(kind, runtimeId, o, parts).catch((e: Error) => {
    if (o.runtime !== 'auto' || o.network === 'bridge' || o.hosts) throw e
    o.log.warn(`runtime: docker images could not be prepared (${e.message.split('\n')[0]}); auto falls back to native`)
    kind = 'native'
    return createRuntime('native', runtimeId, o, parts)
  })
  let cpus = run.cpus
  if (o.hosts && built.runtime instanceof MultiHostRuntime) {
    const facts = built.facts
    cpus = hostCpusets(o.hosts, (h) => facts?.get(h)?.cpus ?? 0)
    for (const line of describeTopology(o.hosts, cpus)) o.log.info(`hosts: ${line}`)
    // Each host judged on its own cores (docs/hosts.md#disturbance): a reader there, kept for the run.
    for (const problem of await built.runtime.startReaders(cpus)) o.log.warn(`${problem}: its windows are not judged for disturbance`)
  }
  return { kind, ...built, cpus }
}
