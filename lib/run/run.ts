import { existsSync, readFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { loadStack, parseProxyList, type ProxyName } from '../catalog/stack.ts'
import { ensureCerts } from '../setup/certs.ts'
import { usable } from '../setup/component.ts'
import { cpuCount, defaultCpuLayout, parseCpuOverride } from '../roles/cpus.ts'
import { readManifest, writeManifest } from '../data/manifest.ts'
import { readMeasurements } from '../data/measurements.ts'
import { appendRow, readTable, type Table } from '../data/tables.ts'
import { SCHEMA_VERSION, type Manifest, type Measurement } from '../data/schema.ts'
import { setup } from '../setup/doctor.ts'
import { userError } from '../core/errors.ts'
import { placeholders } from '../catalog/template.ts'
import type { Finding } from '../findings/pooling.ts'
import { goSourceHash } from '../setup/gobuild.ts'
import { sha256Text } from '../core/hash.ts'
import { harnessCommit, hostInfo, toolVersions } from '../setup/host.ts'
import type { Logger } from '../core/log.ts'
import { certsDir, repoRoot, stacksDir } from '../core/paths.ts'
import { getProfile } from '../catalog/profiles.ts'
import { acquireRunLock } from './lock.ts'
import { engineInfo, ensureDockerEngine } from '../setup/docker-engine.ts'
import { ensureImages, IMAGE_MODES, type ImageMode, type ImageRecord } from '../setup/images.ts'
import { cleanupStaleContainers, DockerRuntime } from '../runtime/docker.ts'
import { NETWORK_MODES, type NetworkMode } from '../runtime/network.ts'
import { cleanupStale, NativeRuntime } from '../runtime/native.ts'
import type { Runtime } from '../runtime/types.ts'
import { poolingSeries, type CustomConfig } from '../series/pooling.ts'
import { tlsSeries } from '../series/tls.ts'
import { versionsSeries } from '../series/versions.ts'
import { wsSeries } from '../series/ws.ts'
import type { Series, SeriesContext, Task } from '../series/types.ts'

/** Every series run-all runs (default: all of them, in this order). */
export const SERIES = ['pooling', 'tls', 'ws', 'versions'] as const

export interface RunOptions {
  profile: string
  series: string[]
  proxies: ProxyName[]
  runtime: string
  out?: string
  resume: boolean
  cpus?: string
  configs: string[]
  /** Install missing components first (run-all) or only check (a single step). */
  install: boolean
  log: Logger
  /** Docker images: offline (built here), official (pulled), auto. */
  images?: string
  /** Docker network: host (default) or bridge (each role in its own namespace). */
  network?: string
  /** For tests: a fixed seed instead of a random one. */
  seed?: number
}

export interface RunResult {
  runDir: string
  manifest: Manifest
  rows: Measurement[]
  findings: Finding[]
}

export function parseSeries(value: string): string[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean)
  for (const n of names) {
    if (!(SERIES as readonly string[]).includes(n)) throw userError('--series', `unknown series "${n}"`, `Use a comma-separated list of: ${SERIES.join(', ')}`)
  }
  return names
}

/** `--config nginx=./my.conf` → a custom cell on that proxy's newest version. */
export function parseCustomConfigs(values: string[]): CustomConfig[] {
  return values.map((v) => {
    const [proxy, ...rest] = v.split('=')
    const file = rest.join('=')
    if (!proxy || !file) throw userError('--config', `cannot read "${v}"`, 'Write --config <proxy>=<path>, e.g. --config nginx=./my-nginx.conf')
    const [name] = parseProxyList(proxy, '--config')
    if (!existsSync(file)) throw userError('--config', `${file} does not exist`, 'Give the path of your config file')
    return { proxy: name!, file: resolve(file) }
  })
}

/**
 * `--network`: host (default) or bridge. Bridge needs containers: with `--runtime native`
 * it is an error before anything starts (auto is checked once it has chosen).
 */
export function parseNetwork(value: string | undefined, runtime: string): NetworkMode {
  const mode = value ?? 'host'
  if (!(NETWORK_MODES as readonly string[]).includes(mode)) throw userError('--network', `unknown mode "${mode}"`, `Use one of: ${NETWORK_MODES.join(', ')}`)
  if (mode === 'bridge' && runtime === 'native') throw userError('--network', 'bridge needs the docker runtime (native roles share the host network)', 'Use --runtime docker, or drop --network')
  return mode as NetworkMode
}

/** In bridge mode a user's config must listen on {{listen_host}}: loopback inside a container is unreachable. */
function checkCustomForBridge(custom: CustomConfig[]): void {
  for (const c of custom) {
    if (!placeholders(readFileSync(c.file, 'utf8')).includes('listen_host')) {
      throw userError(c.file, 'does not use {{listen_host}}; with --network bridge the proxy must listen on its container address, not on loopback', 'Listen on {{listen_host}}:{{listen_port}} (see README "Config templates"), or use --network host')
    }
  }
}

/** auto: docker when an engine answers (and its images can be had), else native; said either way. */
async function resolveRuntime(kind: string, log: Logger): Promise<'native' | 'docker'> {
  if (kind === 'native') return 'native'
  if (kind === 'docker') {
    await ensureDockerEngine(log)
    return 'docker'
  }
  if (kind !== 'auto') throw userError('--runtime', `unknown runtime "${kind}"`, 'Use auto, docker or native')
  const info = await engineInfo()
  log.info(info ? `runtime: docker (engine ${info.version} answers)` : 'runtime: native (no Docker engine answers)')
  return info ? 'docker' : 'native'
}

/** The runtime of a run: native processes, or containers from images ensured now. */
async function createRuntime(kind: 'native' | 'docker', id: string, o: RunOptions, network: NetworkMode = 'host'): Promise<{ runtime: Runtime; images: ImageRecord[] }> {
  if (kind === 'native') {
    cleanupStale(o.log)
    return { runtime: new NativeRuntime(id), images: [] }
  }
  await cleanupStaleContainers(o.log)
  const imgs = await ensureImages({ mode: (o.images ?? 'offline') as ImageMode, proxies: o.proxies, log: o.log })
  const bad = imgs.rows.find((r) => r.status === 'failed')
  if (bad) throw userError(`${bad.component} ${bad.version}`, bad.note ?? 'image failed', 'Run: npx zx notebooks/02-stacks.mjs --images offline')
  return { runtime: new DockerRuntime(id, { images: imgs.records, network }), images: imgs.records }
}

const newRunId = () => {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `${t}-${sha256Text(String(Math.random())).slice(0, 4)}`
}

/**
 * The whole pipeline of a run: open the run directory (new or resumed) → components →
 * certificates → runtime → cells, one row appended per repeat → manifest → findings.
 * Everything that can be wrong with the input is checked before anything is written.
 */
export async function runBench(o: RunOptions): Promise<RunResult> {
  const { log } = o
  const profile = getProfile(o.profile)
  const cpus = o.cpus ? parseCpuOverride(o.cpus, defaultCpuLayout()) : defaultCpuLayout()
  const custom = parseCustomConfigs(o.configs)
  const network = parseNetwork(o.network, o.runtime)
  if (network === 'bridge') checkCustomForBridge(custom)
  const runDir = resolve(o.out ?? join(repoRoot, 'results', newRunId()))
  const runId = basename(runDir)
  const previous = readManifest(runDir)
  if (!o.resume && (previous || readMeasurements(runDir).length > 0)) {
    throw userError(runDir, 'already holds a run', 'Add --resume to finish it, or choose another --out')
  }
  if (o.resume && previous && previous.profile !== profile.name) {
    throw userError('--resume', `${runDir} was run with --profile ${previous.profile}`, `Resume with --profile ${previous.profile}`)
  }
  if (o.resume && previous?.runtime === 'docker' && previous.network_mode.startsWith('bridge') !== (network === 'bridge')) {
    throw userError('--resume', `${runDir} was run with --network ${network === 'bridge' ? 'host' : 'bridge'}`, `Resume with --network ${network === 'bridge' ? 'host' : 'bridge'}`)
  }
  for (const p of o.proxies) loadStack(p) // a broken stack.yaml fails here, before any output

  // Components: installed by run-all, only checked by a single step.
  const components = await setup({ proxies: o.proxies, install: o.install, log, engine: false })
  const broken = components.filter((c) => !usable(c) && ['backend', 'loadgen', 'wrk', 'openssl', ...o.proxies].includes(c.component))
  if (broken.length > 0) throw userError(broken[0]!.component, broken[0]!.note ?? 'missing', 'Run: npx zx notebooks/00-setup.mjs')
  const certs = await ensureCerts(certsDir, { force: false, log })

  if (o.images && !(IMAGE_MODES as readonly string[]).includes(o.images)) throw userError('--images', `unknown mode "${o.images}"`, `Use one of: ${IMAGE_MODES.join(', ')}`)
  const releaseLock = acquireRunLock(runDir)
  let runtimeKind = await resolveRuntime(o.runtime, log)
  if (network === 'bridge' && runtimeKind !== 'docker') {
    releaseLock()
    throw userError('--network', 'bridge needs the docker runtime, and no Docker engine answers (auto chose native)', 'Start the engine (npx zx notebooks/00-setup.mjs) or use --runtime docker')
  }
  // The pid keeps cgroups, containers and state of two runs with the same directory name apart.
  const runtimeId = `${runId}-${process.pid}`
  const { runtime, images } = await createRuntime(runtimeKind, runtimeId, o, network).catch((e: Error) => {
    if (o.runtime !== 'auto' || network === 'bridge') throw e
    log.warn(`runtime: docker images could not be prepared (${e.message.split('\n')[0]}); auto falls back to native`)
    runtimeKind = 'native'
    return createRuntime('native', runtimeId, o)
  })
  const seed = previous?.order_seed ?? o.seed ?? Math.floor(Math.random() * 2 ** 31)
  const manifest: Manifest = previous ?? {
    schema_version: SCHEMA_VERSION, run_id: runId, profile: profile.name, series: o.series, proxies: o.proxies, runtime: runtimeKind, cpu_source: runtime.cpuSource,
    network_mode: runtime instanceof DockerRuntime && runtime.network === 'bridge' ? runtime.networkMode : runtimeKind === 'docker' ? 'docker host network (loopback)' : 'host (loopback)', started: new Date().toISOString(), finished: null, host: hostInfo(), cpusets: cpus,
    cpusets_shared: new Set([cpus.proxy, cpus.backend, cpus.generator]).size < 3, harness_commit: await harnessCommit(), tools: await toolVersions(),
    components: components.filter(usable).map(({ component, version, source, path, sha256 }) => ({ component, version, source, path, sha256 })),
    images: images.map((i) => ({ component: i.component, version: i.version, image: i.image, id: i.id, digest: i.digest ?? null })),
    order_seed: seed,
    profile_settings: { repeats: profile.repeats, warmup_s: profile.warmupS, duration_s: profile.durationS, connections: profile.connections, threads: cpuCount(cpus.generator) },
    custom_configs: custom.map((c) => ({ proxy: c.proxy, file: c.file, sha256: sha256Text(readFileSync(c.file)) })),
    steps: Object.fromEntries(o.series.map((s) => [s, 'pending'])),
  }
  // Resuming with more series extends the run: the manifest lists every series it holds.
  for (const s of o.series) if (!manifest.series.includes(s)) manifest.series.push(s)
  const save = () => writeManifest(runDir, manifest)
  save()
  // A kill keeps every appended row; the manifest says which step was interrupted.
  let current: string | undefined
  const onExit = () => {
    if (current) manifest.steps[current] = 'interrupted'
    save()
  }
  process.once('exit', onExit)
  log.info(`run ${runId}: profile ${profile.name}, series ${o.series.join(',')}, cpusets proxy=${cpus.proxy} backend=${cpus.backend} generator=${cpus.generator}${manifest.cpusets_shared ? ' (shared on this machine)' : ''}, seed ${seed}`)

  const ctx: SeriesContext = {
    runtime, runId, runDir, cpus, profile, certs, log, proxies: o.proxies, seed, connections: profile.connections,
    backendVersion: goSourceHash(join(stacksDir, 'backend')).slice(0, 16),
  }
  const findings: Finding[] = []
  try {
    for (const name of o.series) {
      const series = SERIES_BUILDERS[name as SeriesName](custom)
      current = name
      manifest.steps[name] = 'running'
      save()
      for (const phase of series.phases) await runPhase(phase.name, phase.tasks(ctx), runDir, log, o.resume)
      manifest.steps[name] = 'done'
      current = undefined
      save()
      findings.push(...series.findings(runDir))
    }
    manifest.finished = new Date().toISOString()
    save()
  } catch (e) {
    if (current) manifest.steps[current] = 'failed'
    save()
    throw e
  } finally {
    process.removeListener('exit', onExit)
    await runtime.stopAll()
    releaseLock()
  }
  return { runDir, manifest, rows: readMeasurements(runDir), findings }
}

const SERIES_BUILDERS: Record<SeriesName, (custom: CustomConfig[]) => Series> = {
  pooling: poolingSeries,
  tls: () => tlsSeries(),
  ws: () => wsSeries(),
  versions: () => versionsSeries(),
}
type SeriesName = (typeof SERIES)[number]

/** Findings of a run directory's series from its CSVs: what the run printed, for the report. */
export function seriesFindings(runDir: string, names: readonly string[]): Finding[] {
  return names.filter((n): n is SeriesName => (SERIES as readonly string[]).includes(n)).flatMap((n) => SERIES_BUILDERS[n]([]).findings(runDir))
}

/** Runs the tasks not yet in their table, appending one row each, with a live progress line. */
async function runPhase(name: string, tasks: Task[], runDir: string, log: Logger, resume: boolean): Promise<void> {
  const doneKeys = new Map<Table<unknown>, Set<string>>()
  const isDone = (t: Task) => {
    if (!doneKeys.has(t.table)) doneKeys.set(t.table, new Set(readTable(runDir, t.table).map((r) => t.table.key(r))))
    return doneKeys.get(t.table)!.has(t.key)
  }
  const todo = tasks.filter((t) => !isDone(t))
  if (resume && todo.length < tasks.length) log.info(`resume ${name}: ${tasks.length - todo.length} repeats already measured, ${todo.length} to go`)
  const t0 = Date.now()
  for (const [i, task] of todo.entries()) {
    const elapsed = (Date.now() - t0) / 1000
    const eta = i === 0 ? '?' : fmtDuration((elapsed / i) * (todo.length - i))
    log.progress(`[${name} ${i + 1}/${todo.length}] ${task.label} · ${fmtDuration(elapsed)} elapsed · ETA ${eta}`)
    const row = (await task.run()) as { status: string; reason: string }
    appendRow(runDir, task.table, row)
    if (row.status !== 'valid') log.warn(`${task.label}: ${row.status}: ${row.reason}`)
  }
}

export function fmtDuration(s: number): string {
  const m = Math.floor(s / 60)
  return m > 0 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`
}
