import { join } from 'node:path'
import { writeManifest } from '../data/manifest.ts'
import { SCHEMA_VERSION, type Invocation, type Manifest } from '../data/schema.ts'
import { cpuCount, type CpuLayout } from '../roles/cpus.ts'
import { MultiHostRuntime } from '../runtime/docker/multi-host.ts'
import { DockerRuntime } from '../runtime/docker/runtime.ts'
import { usable, type ComponentRow } from '../setup/component.ts'
import { machineFingerprint } from '../setup/fingerprint.ts'
import { harnessCommit, harnessState, hostInfo, toolVersions } from '../setup/host.ts'
import { adaptiveSettings } from './adaptive.ts'
import type { RunComponents } from './components.ts'
import { hostsRecord, hostsShareCores } from './hosts.ts'
import type { RunOptions } from './options.ts'
import { nextInvocationId, previousSettings } from './provenance.ts'
import type { OpenedRun } from './resume.ts'
import type { ChosenRuntime } from './runtime-choice.ts'

/** The run's manifest as it is being written: this invocation in it, the series being measured, saved on each change. */
export interface RunRecord {
  runDir: string
  manifest: Manifest
  invocation: Invocation
  /** The series being measured: what a kill marks interrupted and an error failed. */
  current?: string
  save(): void
}

/** How the roles reach each other, in the manifest's words. */
function networkMode(chosen: ChosenRuntime): string {
  const { runtime } = chosen
  if (runtime instanceof MultiHostRuntime) return runtime.networkMode
  if (runtime instanceof DockerRuntime && runtime.network === 'bridge') return runtime.networkMode
  return chosen.kind === 'docker' ? 'docker host network (loopback)' : 'host (loopback)'
}

/** A component as the manifest keeps it: a substituted or restored build with its pin and the line saying so. */
export const manifestComponent = (c: ComponentRow): Manifest['components'][number] => ({
  component: c.component,
  version: c.version,
  source: c.source,
  path: c.path,
  sha256: c.sha256,
  ...(c.pinned ? { pinned: c.pinned } : {}),
  ...buildNote(c),
})

/** The line a substituted or restored build carries into the manifest and each invocation (the provenance of its rows). */
const buildNote = (c: ComponentRow): { build_note?: string } =>
  c.status === 'substituted' || c.status === 'restored' ? { build_note: c.note ?? c.status } : {}

/** A new run's manifest: what measured it (components, images, host, tools), its settings and its steps, all pending. */
async function newManifest(o: RunOptions, run: OpenedRun, parts: RunComponents, chosen: ChosenRuntime, seed: number): Promise<Manifest> {
  const { profile } = o
  const { cpus } = chosen
  const adaptive = adaptiveSettings(profile)
  return {
    schema_version: SCHEMA_VERSION,
    run_id: run.runId,
    profile: profile.name,
    series: o.series,
    proxies: o.proxies,
    runtime: chosen.kind,
    cpu_source: chosen.runtime.cpuSource,
    network_mode: networkMode(chosen),
    started: new Date().toISOString(),
    finished: null,
    host: hostInfo(),
    cpusets: cpus,
    cpusets_shared: o.hosts ? hostsShareCores(o.hosts, cpus) : new Set([cpus.proxy, cpus.backend, cpus.generator]).size < 3,
    harness_commit: await harnessCommit(),
    tools: await toolVersions(),
    components: parts.components.filter(usable).map(manifestComponent),
    not_runnable: parts.components
      .filter((c) => c.status === 'not runnable')
      .map((c) => ({ component: c.component, version: c.version, reason: c.note ?? 'not runnable here' })),
    images: chosen.images.map((i) => ({ component: i.component, version: i.version, image: i.image, id: i.id, digest: i.digest ?? null })),
    order_seed: seed,
    profile_settings: {
      repeats: profile.repeats,
      warmup_s: profile.warmupS,
      duration_s: profile.durationS,
      connections: profile.connections,
      threads: cpuCount(cpus.generator),
      max_repeats: adaptive.maxRepeats,
      precision: adaptive.precision,
      budget_s: adaptive.budgetS,
      max_disturbed: adaptive.maxDisturbed,
    },
    custom_configs: run.customConfigs,
    steps: Object.fromEntries(o.series.map((s) => [s, 'pending'])),
    fingerprint: await machineFingerprint(),
    invocations: [],
    ...(parts.syscallTax ? { syscall_tax: parts.syscallTax } : {}),
  }
}

/** This invocation: what code, settings and machine measure the rows tagged with its id. */
async function newInvocation(
  o: RunOptions,
  run: OpenedRun,
  parts: RunComponents,
  chosen: ChosenRuntime,
  manifest: Manifest,
  seed: number,
): Promise<Invocation> {
  const { profile } = o
  const state = await harnessState()
  return {
    id: nextInvocationId(run.previous),
    commit: state.commit,
    dirty: state.dirty,
    argv: process.argv.slice(1),
    profile: profile.name,
    repeats: profile.repeats,
    duration_s: profile.durationS,
    series: o.series,
    proxies: o.proxies,
    cpusets: chosen.cpus,
    runtime: chosen.kind,
    network: o.network,
    seed,
    components: parts.components.filter(usable).map((c) => ({ component: c.component, version: c.version, sha256: c.sha256, ...buildNote(c) })),
    custom_configs: run.customConfigs,
    schema_version: SCHEMA_VERSION,
    ...(o.plan.pair?.at ? { pair_at: o.plan.pair.at } : {}),
    fingerprint: run.previous ? await machineFingerprint() : manifest.fingerprint,
    started: new Date().toISOString(),
    finished: null,
    changes: run.changes,
  }
}

/**
 * Stage 4 of a run: the manifest, the run's own on --resume (extended by new series) or a
 * new one, with this invocation appended, written before any cell; with --hosts each
 * host's facts and the network between the generator's and the proxy's.
 */
export async function startRecord(o: RunOptions, run: OpenedRun, parts: RunComponents, chosen: ChosenRuntime): Promise<RunRecord> {
  // An explicit --seed wins (refused on resume unless --allow-changes); else the run's own.
  const seed = o.seed ?? (run.previous ? previousSettings(run.previous).seed : Math.floor(Math.random() * 2 ** 31))
  const manifest = run.previous ?? (await newManifest(o, run, parts, chosen, seed))
  for (const s of o.series) if (!manifest.series.includes(s)) manifest.series.push(s)
  const invocation = await newInvocation(o, run, parts, chosen, manifest, seed)
  manifest.invocations.push(invocation)
  const record: RunRecord = { runDir: run.runDir, manifest, invocation, save: () => writeManifest(run.runDir, manifest) }
  record.save()
  if (chosen.runtime instanceof MultiHostRuntime && chosen.facts && !manifest.hosts) {
    manifest.hosts = await hostsRecord(chosen.runtime, chosen.facts, chosen.cpus, { scratch: join(run.runDir, 'hosts'), ca: parts.certs.ca, log: o.log })
    record.save()
  }
  return record
}

/** The line that opens a run's log. */
export function runLine(o: RunOptions, runId: string, record: RunRecord, cpus: CpuLayout): string {
  return `run ${runId}: profile ${o.profile.name}, series ${o.series.join(',')}, cpusets proxy=${cpus.proxy} backend=${cpus.backend} generator=${cpus.generator}${record.manifest.cpusets_shared ? ' (shared on this machine)' : ''}, seed ${record.invocation.seed}`
}
