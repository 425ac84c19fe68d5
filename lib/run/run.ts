import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { loadStack } from '../catalog/stack.ts'
import { defaultVersionChoice } from '../catalog/version-choice.ts'
import { userError } from '../core/errors.ts'
import { sha256Text } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'
import { certsDir, repoRoot, stacksDir } from '../core/paths.ts'
import { readManifest, writeManifest } from '../data/manifest.ts'
import { readMeasurements } from '../data/measurements.ts'
import { readRunTables } from '../data/run-data.ts'
import { readBisectPlan } from '../data/bisect.ts'
import { formatCalibration, measureCalibration } from '../measure/calibration.ts'
import { checkTemplates } from '../measure/cell.ts'
import { SCHEMA_VERSION, type Invocation, type Manifest, type Measurement, type SyscallTax } from '../data/schema.ts'
import { findingsFor, type Finding } from '../findings/index.ts'
import { cpuCount } from '../roles/cpus.ts'
import { cleanupStaleContainers } from '../runtime/docker/cleanup.ts'
import { DockerRuntime } from '../runtime/docker/runtime.ts'
import { MultiHostRuntime } from '../runtime/docker/multi-host.ts'
import { describeTopology } from '../runtime/docker/topology.ts'
import { cleanupStale, NativeRuntime } from '../runtime/native.ts'
import { interrupted, untilExit } from '../runtime/shutdown.ts'
import type { Runtime } from '../runtime/types.ts'
import { SERIES_PLANS } from '../series/index.ts'
import type { SeriesContext } from '../series/types.ts'
import { ensureCerts } from '../setup/certs.ts'
import { usable } from '../setup/component.ts'
import { dockerClient, engineInfo, ensureDockerEngine } from '../setup/docker-engine.ts'
import { setup } from '../setup/doctor.ts'
import { goSourceHash } from '../setup/gobuild.ts'
import { machineFingerprint } from '../setup/fingerprint.ts'
import { harnessCommit, harnessState, hostInfo, toolVersions } from '../setup/host.ts'
import { ensureImages } from '../setup/images/ensure.ts'
import type { ImageRecord } from '../setup/images/records.ts'
import { calibrateTax, formatTax, taxLauncher } from '../runtime/syscall-tax.ts'
import { acquireRunLock } from './lock.ts'
import type { RunOptions, RuntimeChoice } from './options.ts'
import { adaptiveSettings } from './adaptive.ts'
import { adaptiveHere } from '../series/tasks.ts'
import { connectHosts, hostCpusets, hostsChange, hostsRecord, hostsShareCores, withImages, type EngineFacts } from './hosts.ts'
import { runPhase } from './phase.ts'
import { QuietBudget, quietSettings } from './quiet.ts'
import { lookAtMachine, preflightLine } from '../measure/culprits.ts'
import { MAX_FOREIGN_SHARE } from '../measure/validity.ts'
import { nextInvocationId, previousSettings, refusal, resumeDifferences, type ResumeSettings } from './provenance.ts'

export type { RunOptions } from './options.ts'

export interface RunResult {
  runDir: string
  manifest: Manifest
  rows: Measurement[]
  findings: Finding[]
}

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
async function createRuntime(kind: 'native' | 'docker', id: string, o: RunOptions, launcher: readonly string[] = []): Promise<{ runtime: Runtime; images: ImageRecord[]; facts?: Map<unknown, EngineFacts> }> {
  if (kind === 'native') {
    cleanupStale(o.log)
    return { runtime: new NativeRuntime(id, { launcher }), images: [] }
  }
  await cleanupStaleContainers(o.log)
  const imgs = await ensureImages({ mode: o.images, proxies: o.proxies, log: o.log })
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
  return { runtime: new DockerRuntime(id, { images: imgs.records, network: o.network, launcher }), images: imgs.records }
}

/** A phase that needs more repeats than the profile's (a bisect's Mann-Whitney test) gets them, disturbed windows re-measured up to there. */
const atLeast = <A extends { settings: { minRepeats: number; maxRepeats: number } }>(a: A, min: number | undefined): A =>
  min === undefined ? a : { ...a, settings: { ...a.settings, minRepeats: Math.max(a.settings.minRepeats, min), maxRepeats: Math.max(a.settings.maxRepeats, min) } }

/** Seconds the preflight samples the machine before the first window. */
const PREFLIGHT_S = 2
/**
 * --tax-ns: the filter length for the asked tax, measured on the proxy's cores now, or the
 * run's own on --resume (the same length, so every row pays the same); a resume that asks
 * for another tax, or none where the run had one, is refused.
 */
async function runSyscallTax(o: RunOptions, previous: Manifest | null | undefined, cpuset: string): Promise<SyscallTax | undefined> {
  const had = previous?.syscall_tax
  if (o.resume && previous && (had?.target_ns ?? null) !== (o.syscallTaxNs ?? null)) {
    throw userError('--tax-ns', `${o.out} ran ${had ? `under a tax of ${had.target_ns} ns per system call` : 'without a system-call tax'}`, had ? `Resume with --tax-ns ${had.target_ns}` : 'Resume without --tax-ns')
  }
  if (had) {
    o.log.info(formatTax(had))
    return had
  }
  if (o.syscallTaxNs === undefined) return undefined
  o.log.progress(`syscall tax: measuring the filter length for ${o.syscallTaxNs} ns per system call on cpuset ${cpuset}…`)
  const tax = await calibrateTax(o.syscallTaxNs, cpuset).catch((e: Error) => {
    throw userError('--tax-ns', e.message, 'Run: npx zx notebooks/00-setup.mjs (it builds stacks/syscall-tax), or drop --tax-ns')
  })
  o.log.info(formatTax(tax))
  return tax
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
  const releaseLock = await acquireRunLock(o.out ?? 'a new run directory')
  try {
    return await runLocked(o)
  } finally {
    await releaseLock()
  }
}

async function runLocked(o: RunOptions): Promise<RunResult> {
  const { log, profile, custom, network } = o
  const runDir = o.out ?? join(repoRoot, 'results', newRunId())
  const runId = basename(runDir)
  const previous = readManifest(runDir)
  // --hosts: each role's cpuset comes from its host's cores, known once the engines answer (the run's own until then).
  let cpus = o.hosts && previous ? previous.cpusets : o.cpus
  if (!o.resume && (previous || readMeasurements(runDir).length > 0)) {
    throw userError(runDir, 'already holds a run', 'Add --resume to finish it, or choose another --out')
  }
  const customConfigs = custom.map((c) => ({ proxy: c.proxy, file: c.file, sha256: sha256Text(readFileSync(c.file)) }))
  const settings = (runtime: string): ResumeSettings => ({ profile: profile.name, repeats: profile.repeats, duration_s: profile.durationS, proxies: o.proxies, cpusets: cpus, runtime, network, seed: o.seed, custom_configs: customConfigs, schema_version: SCHEMA_VERSION })
  // Rows of one run directory must come from one set of settings, unless the user says otherwise.
  const changes = o.resume && previous ? resumeDifferences(previous, settings(o.runtime)) : []
  const movedHosts = o.resume && previous ? hostsChange(previous, o.hosts) : null
  if (movedHosts) changes.push(movedHosts)
  const checkResume = (diffs: string[]) => {
    if (diffs.length > 0 && !o.allowChanges) throw userError('--resume', `${runDir} ${refusal(diffs)}`, 'Resume with the run\'s settings, or add --allow-changes to measure on with the new ones (the manifest and report then say which rows came from which invocation)')
    for (const d of diffs) log.warn(`resume with --allow-changes: ${d}`)
  }
  checkResume(changes)
  for (const p of o.proxies) loadStack(p) // a broken stack.yaml fails here, before any output

  // Components: installed by run-all, only checked by a single step.
  const components = await setup({ proxies: o.proxies, install: o.install, log, engine: false })
  const broken = components.filter((c) => !usable(c) && ['backend', 'loadgen', 'wrk', 'openssl', ...(o.syscallTaxNs ? ['syscall-tax'] : []), ...o.proxies].includes(c.component))
  if (broken.length > 0) throw userError(broken[0]!.component, broken[0]!.note ?? 'missing', 'Run: npx zx notebooks/00-setup.mjs')
  const certs = await ensureCerts(certsDir, { force: false, log })
  const syscallTax = await runSyscallTax(o, previous, cpus.proxy)
  const launcher = syscallTax ? taxLauncher(syscallTax) : []

  let runtimeKind = await resolveRuntime(o.runtime, log, !!o.hosts)
  if (network === 'bridge' && runtimeKind !== 'docker') {
    throw userError('--network', 'bridge needs the docker runtime, and no Docker engine answers (auto chose native)', 'Start the engine (npx zx notebooks/00-setup.mjs) or use --runtime docker')
  }
  // The pid keeps cgroups, containers and state of two runs with the same directory name apart.
  const runtimeId = `${runId}-${process.pid}`
  const { runtime, images, facts } = await createRuntime(runtimeKind, runtimeId, o, launcher).catch((e: Error) => {
    if (o.runtime !== 'auto' || network === 'bridge' || o.hosts) throw e
    log.warn(`runtime: docker images could not be prepared (${e.message.split('\n')[0]}); auto falls back to native`)
    runtimeKind = 'native'
    return createRuntime('native', runtimeId, o, launcher)
  })
  if (o.hosts && runtime instanceof MultiHostRuntime) {
    cpus = hostCpusets(o.hosts, (h) => facts?.get(h)?.cpus ?? 0)
    for (const line of describeTopology(o.hosts, cpus)) log.info(`hosts: ${line}`)
  }
  // The runtime auto chose (and the hosts' cpusets) are known only now: the same rule, before anything is measured.
  if (o.resume && previous && (o.runtime === 'auto' || o.hosts)) {
    const late = resumeDifferences(previous, settings(runtimeKind)).filter((d) => !changes.includes(d))
    checkResume(late)
    changes.push(...late)
  }
  // An explicit --seed wins (refused above on resume unless --allow-changes); else the run's own.
  const seed = o.seed ?? (previous ? previousSettings(previous).seed : Math.floor(Math.random() * 2 ** 31))
  const manifest: Manifest = previous ?? {
    schema_version: SCHEMA_VERSION, run_id: runId, profile: profile.name, series: o.series, proxies: o.proxies, runtime: runtimeKind, cpu_source: runtime.cpuSource,
    network_mode: runtime instanceof MultiHostRuntime ? runtime.networkMode : runtime instanceof DockerRuntime && runtime.network === 'bridge' ? runtime.networkMode : runtimeKind === 'docker' ? 'docker host network (loopback)' : 'host (loopback)', started: new Date().toISOString(), finished: null, host: hostInfo(), cpusets: cpus,
    cpusets_shared: o.hosts ? hostsShareCores(o.hosts, cpus) : new Set([cpus.proxy, cpus.backend, cpus.generator]).size < 3, harness_commit: await harnessCommit(), tools: await toolVersions(),
    components: components.filter(usable).map(({ component, version, source, path, sha256 }) => ({ component, version, source, path, sha256 })),
    images: images.map((i) => ({ component: i.component, version: i.version, image: i.image, id: i.id, digest: i.digest ?? null })),
    order_seed: seed,
    profile_settings: {
      repeats: profile.repeats, warmup_s: profile.warmupS, duration_s: profile.durationS, connections: profile.connections, threads: cpuCount(cpus.generator),
      max_repeats: adaptiveSettings(profile).maxRepeats, precision: adaptiveSettings(profile).precision, budget_s: adaptiveSettings(profile).budgetS, max_disturbed: adaptiveSettings(profile).maxDisturbed,
    },
    custom_configs: customConfigs,
    steps: Object.fromEntries(o.series.map((s) => [s, 'pending'])),
    fingerprint: await machineFingerprint(), calibration: null, invocations: [],
    ...(syscallTax ? { syscall_tax: syscallTax } : {}),
  }
  // Resuming with more series extends the run: the manifest lists every series it holds.
  for (const s of o.series) if (!manifest.series.includes(s)) manifest.series.push(s)
  // This invocation: what code, settings and machine measure the rows tagged with its id.
  const state = await harnessState()
  const invocation: Invocation = {
    id: nextInvocationId(previous), commit: state.commit, dirty: state.dirty, argv: process.argv.slice(1), profile: profile.name, repeats: profile.repeats, duration_s: profile.durationS, series: o.series, proxies: o.proxies, cpusets: cpus,
    runtime: runtimeKind, network, seed, components: components.filter(usable).map(({ component, version, sha256 }) => ({ component, version, sha256 })),
    custom_configs: customConfigs, schema_version: SCHEMA_VERSION, fingerprint: previous ? await machineFingerprint() : manifest.fingerprint, started: new Date().toISOString(), finished: null, changes,
  }
  manifest.invocations.push(invocation)
  const save = () => writeManifest(runDir, manifest)
  save()
  if (runtime instanceof MultiHostRuntime && facts && !manifest.hosts) {
    // Each host's facts and the network between the generator's and the proxy's, before any cell.
    manifest.hosts = await hostsRecord(runtime, facts as Map<never, EngineFacts>, cpus, { scratch: join(runDir, 'hosts'), ca: certs.ca, log })
    save()
  }
  // A kill keeps every appended row; the manifest says which step was interrupted.
  let current: string | undefined
  const onExit = () => {
    if (current) manifest.steps[current] = 'interrupted'
    invocation.finished ??= new Date().toISOString()
    try {
      save()
    } catch {
      // Inside 'exit' a throw is a stack trace; the error that ended the run (e.g. a full disk) was said already.
    }
  }
  process.once('exit', onExit)
  log.info(`run ${runId}: profile ${profile.name}, series ${o.series.join(',')}, cpusets proxy=${cpus.proxy} backend=${cpus.backend} generator=${cpus.generator}${manifest.cpusets_shared ? ' (shared on this machine)' : ''}, seed ${seed}`)

  const templateChecks = new Map<string, string | null>()
  const ctx: SeriesContext = {
    runtime, runId, runDir, cpus, profile, certs, log, proxies: o.proxies, seed, connections: profile.connections, focus: o.focus, versions: o.versions ?? defaultVersionChoice(profile.name), pinned: o.pinned, bisectMetric: o.bisectMetric, bisectTags: o.bisectTags,
    backendVersion: goSourceHash(join(stacksDir, 'backend')).slice(0, 16), templateChecks,
    capacity: o.capacity,
    ...(o.counts === false ? { counts: false } : {}),
    ...(o.reference && o.reference !== 'none' ? { reference: o.reference } : {}),
    launcher,
  }
  const findings: Finding[] = []
  try {
    // Other work on the machine, named before the first window; the run goes on either way and waits for quiet after a disturbed window.
    const look = await lookAtMachine(PREFLIGHT_S)
    const busy = preflightLine(look, `${cpus.proxy},${cpus.backend},${cpus.generator}`, MAX_FOREIGN_SHARE)
    if (busy) log.warn(busy)
    const quiet = new QuietBudget(quietSettings(profile, cpus), log, manifest.quiet, busy)
    ctx.windowGate = quiet
    manifest.quiet = quiet.record
    save()
    // Once per run, before any cell, on the proxy's cpuset; a resumed run keeps its own.
    // On this machine's cores: with the proxy on another host's engine it would calibrate the wrong machine.
    const proxyElsewhere = o.hosts && o.hosts.roles.proxy.host.protocol !== 'unix'
    if (proxyElsewhere && !manifest.calibration) log.info('calibration: not measured (the proxy runs on another host; calibrated units need it measured there)')
    if (!manifest.calibration && !proxyElsewhere) {
      manifest.calibration = await measureCalibration({ cpuset: cpus.proxy, log, launcher, ...o.profile.calibration })
      save()
    }
    if (manifest.calibration) log.info(formatCalibration(manifest.calibration))
    ctx.calibration = manifest.calibration
    for (const name of o.series) {
      const series = SERIES_PLANS[name](custom)
      current = name
      manifest.steps[name] = 'running'
      save()
      const adaptive = { settings: adaptiveSettings(profile), seed, repeatS: profile.warmupS + profile.durationS + profile.tailS + 2 }
      for (const phase of series.phases) {
        const tasks = phase.tasks(ctx)
        // Each template once, before its first cell: a broken one fails now, and its cells fail without starting anything.
        for (const reason of await checkTemplates(tasks.flatMap((t) => t.subject ?? []), { ...ctx, templateChecks })) log.warn(reason)
        await runPhase(phase.name, tasks, { runDir, invocation: invocation.id, quiet }, log, o.resume, adaptiveHere(phase, ctx) ? atLeast(adaptive, phase.minRepeats) : null)
      }
      manifest.steps[name] = 'done'
      manifest.quiet = quiet.record
      current = undefined
      save()
      findings.push(...findingsFor(readRunTables(runDir), [name], { bisect: readBisectPlan(runDir) }))
    }
    manifest.finished = new Date().toISOString()
    invocation.finished = manifest.finished
    save()
  } catch (e) {
    // After a signal the handler stops the roles and exits 130/143; the exit hook records 'interrupted'.
    // Awaited here, so that `finally` neither unhooks that nor stops the roles a second time.
    if (interrupted()) await untilExit()
    if (current) manifest.steps[current] = 'failed'
    invocation.finished = new Date().toISOString()
    save()
    throw e
  } finally {
    process.removeListener('exit', onExit)
    if (runtime instanceof MultiHostRuntime && manifest.hosts) {
      manifest.hosts = withImages(manifest.hosts, runtime)
      try {
        save()
      } catch {}
    }
    await runtime.stopAll()
  }
  return { runDir, manifest, rows: readMeasurements(runDir), findings }
}
