import { join } from 'node:path'
import { stacksDir } from '../core/paths.ts'
import { readBisectPlan } from '../data/bisect.ts'
import { readRunTables } from '../data/run-data.ts'
import { findingsFor, type Finding } from '../findings/index.ts'
import { checkTemplates } from '../measure/cell.ts'
import { SERIES_BUILDERS } from '../series/index.ts'
import { adaptiveHere } from '../series/tasks.ts'
import { taskSides, type SeriesContext } from '../series/types.ts'
import { notRunnableVersions } from '../setup/builds.ts'
import { goSourceHash } from '../setup/gobuild.ts'
import { adaptiveSettings } from './adaptive.ts'
import type { RunComponents } from './components.ts'
import type { RunRecord } from './manifest.ts'
import type { RunOptions } from './options.ts'
import { runPhase } from './phase.ts'
import type { QuietBudget } from './quiet.ts'
import type { OpenedRun } from './resume.ts'
import type { ChosenRuntime } from './runtime-choice.ts'

/** What every series gets: the runtime, cpusets, profile and certificates, the run's seed, and the user's plan as it was parsed. */
export function seriesContext(
  o: RunOptions,
  run: OpenedRun,
  parts: RunComponents,
  chosen: ChosenRuntime,
  seed: number,
): SeriesContext & { templateChecks: Map<string, string | null> } {
  const { profile } = o
  return {
    runtime: chosen.runtime,
    runId: run.runId,
    runDir: run.runDir,
    cpus: chosen.cpus,
    profile,
    certs: parts.certs,
    log: o.log,
    proxies: o.proxies,
    seed,
    connections: profile.connections,
    plan: o.plan,
    backendVersion: goSourceHash(join(stacksDir, 'backend')).slice(0, 16),
    templateChecks: new Map<string, string | null>(),
    ...(o.counts === false ? { counts: false } : {}),
    notRunnable: notRunnableVersions(parts.components),
  }
}

/** A phase that needs more repeats than the profile's (a bisect's Mann-Whitney test) gets them, disturbed windows re-measured up to there. */
const atLeast = <A extends { settings: { minRepeats: number; maxRepeats: number } }>(a: A, min: number | undefined): A =>
  min === undefined
    ? a
    : { ...a, settings: { ...a.settings, minRepeats: Math.max(a.settings.minRepeats, min), maxRepeats: Math.max(a.settings.maxRepeats, min) } }

/**
 * The last stage of a run: each series in turn, its phases in order, one row appended per
 * repeat; the manifest says which series runs and which are done; the findings of all of them at the end.
 */
export async function runSeries(
  o: RunOptions,
  ctx: SeriesContext & { templateChecks: Map<string, string | null> },
  record: RunRecord,
  quiet: QuietBudget,
): Promise<Finding[]> {
  const { manifest } = record
  const { profile, log } = o
  for (const name of o.series) {
    const series = SERIES_BUILDERS[name]()
    record.current = name
    manifest.steps[name] = 'running'
    record.save()
    const adaptive = { settings: adaptiveSettings(profile), seed: ctx.seed, repeatS: profile.warmupS + profile.durationS + profile.tailS + 2 }
    for (const phase of series.phases) {
      const tasks = phase.tasks(ctx)
      // Each template once, before its first cell: a broken one fails now, and its cells fail without starting anything.
      for (const reason of await checkTemplates(
        tasks.flatMap((t) => taskSides(t).flatMap((side) => side.subject ?? [])),
        ctx,
      ))
        log.warn(reason)
      await runPhase(
        phase.name,
        tasks,
        { runDir: record.runDir, invocation: record.invocation.id, quiet },
        log,
        o.resume,
        adaptiveHere(phase, ctx) ? atLeast(adaptive, phase.minRepeats) : null,
      )
    }
    manifest.steps[name] = 'done'
    manifest.quiet = quiet.record
    record.current = undefined
    record.save()
  }
  // Once, over every row the run wrote: the F1..F8 groups read the ledger's results, whose intervals pool
  // the noise of a table's cells, so the summary decides on the rows the report and the ledger decide on.
  return findingsFor(readRunTables(record.runDir), o.series, { bisect: readBisectPlan(record.runDir) })
}
