import { readMeasurements } from '../data/measurements.ts'
import type { Manifest, Measurement } from '../data/schema.ts'
import type { Finding } from '../findings/index.ts'
import { preflight } from './preflight.ts'
import { archiveRunBuilds, prepareComponents } from './components.ts'
import { closeRun, recordFailed, recordFinished, recordOnExit } from './exit.ts'
import { acquireRunLock } from './lock.ts'
import { runLine, startRecord } from './manifest.ts'
import type { RunOptions } from './options.ts'
import { runSeries, seriesContext } from './phases.ts'
import { checkLateChanges, openRun } from './resume.ts'
import { chooseRuntime } from './runtime-choice.ts'
import { keepTemplates, prepareThen } from './then.ts'

export type { RunOptions } from './options.ts'

export interface RunResult {
  runDir: string
  manifest: Manifest
  rows: Measurement[]
  findings: Finding[]
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

/** The stages in order, each in its own file: resume, components, runtime choice, manifest, preflight, the series' phases. */
async function runLocked(o: RunOptions): Promise<RunResult> {
  const run = openRun(o)
  const parts = await prepareComponents(o, run)
  const chosen = await chooseRuntime(o, run, parts)
  checkLateChanges(o, run, chosen.kind, chosen.cpus)
  const record = await startRecord(o, run, parts, chosen)
  const unhook = recordOnExit(record)
  o.log.info(runLine(o, run.runId, record, chosen.cpus))
  const ctx = seriesContext(o, run, parts, chosen, record.invocation.seed)
  keepTemplates(run.runDir, o.proxies)
  const then = await prepareThen(o, run.runDir)
  if (then) ctx.pairing = then
  let findings: Finding[] = []
  try {
    const quiet = await preflight(o, record, chosen.cpus, chosen.runtime)
    ctx.windowGate = quiet
    findings = await runSeries(o, ctx, record, quiet)
    await archiveRunBuilds(o, record, parts, run.runDir)
    recordFinished(record)
  } catch (e) {
    await recordFailed(record)
    throw e
  } finally {
    await closeRun(record, chosen.runtime, unhook, o.log)
  }
  return { runDir: run.runDir, manifest: record.manifest, rows: readMeasurements(run.runDir), findings }
}
