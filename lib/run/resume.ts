import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { loadStack } from '../catalog/stack.ts'
import { userError } from '../core/errors.ts'
import { sha256Text } from '../core/hash.ts'
import { repoRoot } from '../core/paths.ts'
import { readManifest } from '../data/manifest.ts'
import { readMeasurements } from '../data/measurements.ts'
import { SCHEMA_VERSION, type Manifest } from '../data/schema.ts'
import type { CpuLayout } from '../roles/cpus.ts'
import { hostsChange } from './hosts.ts'
import type { RunOptions } from './options.ts'
import { refusal, resumeDifferences, type ResumeSettings } from './provenance.ts'

/** The run directory a run writes into: new, or the one --resume finishes, with what it already holds. */
export interface OpenedRun {
  runDir: string
  runId: string
  /** The run's manifest when the directory holds one (--resume). */
  previous: Manifest | undefined
  /** The flags' cpusets; with --hosts on resume the run's own, until the engines answer. */
  cpus: CpuLayout
  /** --config files with their hashes, as the manifest records them. */
  customConfigs: { proxy: string; file: string; sha256: string }[]
  /** Differences from the run's settings this invocation measures with (accepted with --allow-changes). */
  changes: string[]
}

const newRunId = () => {
  const t = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `${t}-${sha256Text(String(Math.random())).slice(0, 4)}`
}

/** What a resume compares with the run's own settings; `runtime` and `cpus` as known at the time of the check. */
export function resumeSettings(o: RunOptions, run: Pick<OpenedRun, 'customConfigs'>, runtime: string, cpus: CpuLayout): ResumeSettings {
  const { profile } = o
  return {
    profile: profile.name,
    repeats: profile.repeats,
    duration_s: profile.durationS,
    proxies: o.proxies,
    cpusets: cpus,
    runtime,
    network: o.network,
    seed: o.seed,
    custom_configs: run.customConfigs,
    schema_version: SCHEMA_VERSION,
    ...(o.plan.pair?.at ? { pair_at: o.plan.pair.at } : {}),
  }
}

/** Rows of one run directory come from one set of settings, unless the user says otherwise (--allow-changes: each said). */
function acceptChanges(o: RunOptions, runDir: string, diffs: readonly string[]): void {
  if (diffs.length > 0 && !o.allowChanges)
    throw userError(
      '--resume',
      `${runDir} ${refusal(diffs)}`,
      "Resume with the run's settings, or add --allow-changes to measure on with the new ones (the manifest and report then say which rows came from which invocation)",
    )
  for (const d of diffs) o.log.warn(`resume with --allow-changes: ${d}`)
}

/**
 * Stage 1 of a run: its directory, new or resumed. A directory that holds a run is refused
 * without --resume; a resume whose settings differ from the run's without --allow-changes;
 * a broken stack.yaml fails here, before any output.
 */
export function openRun(o: RunOptions): OpenedRun {
  const runDir = o.out ?? join(repoRoot, 'results', newRunId())
  const previous = readManifest(runDir)
  // --hosts: each role's cpuset comes from its host's cores, known once the engines answer (the run's own until then).
  const cpus = o.hosts && previous ? previous.cpusets : o.cpus
  if (!o.resume && (previous || readMeasurements(runDir).length > 0)) {
    throw userError(runDir, 'already holds a run', 'Add --resume to finish it, or choose another --out')
  }
  const customConfigs = o.plan.custom.map((c) => ({ proxy: c.proxy, file: c.file, sha256: sha256Text(readFileSync(c.file)) }))
  const changes = o.resume && previous ? resumeDifferences(previous, resumeSettings(o, { customConfigs }, o.runtime, cpus)) : []
  const movedHosts = o.resume && previous ? hostsChange(previous, o.hosts) : null
  if (movedHosts) changes.push(movedHosts)
  acceptChanges(o, runDir, changes)
  for (const p of o.proxies) loadStack(p)
  return { runDir, runId: basename(runDir), previous, cpus, customConfigs, changes }
}

/** The runtime auto chose (and the hosts' cpusets) are known only once it is up: the same rule, before anything is measured. */
export function checkLateChanges(o: RunOptions, run: OpenedRun, runtime: string, cpus: CpuLayout): void {
  if (!(o.resume && run.previous && (o.runtime === 'auto' || o.hosts))) return
  const late = resumeDifferences(run.previous, resumeSettings(o, run, runtime, cpus)).filter((d) => !run.changes.includes(d))
  acceptChanges(o, run.runDir, late)
  run.changes.push(...late)
}
