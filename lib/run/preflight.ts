import { lookAtMachine, preflightLine } from '../measure/culprits.ts'
import { MAX_FOREIGN_SHARE } from '../measure/validity.ts'
import type { CpuLayout } from '../roles/cpus.ts'
import type { Runtime } from '../runtime/types.ts'
import type { RunRecord } from './manifest.ts'
import type { RunOptions } from './options.ts'
import { QuietBudget, quietSettings } from './quiet.ts'

/** Seconds the preflight samples the machine before the first window. */
const PREFLIGHT_S = 2

/**
 * Before the first window: other work on the machine, named; the run goes on either way
 * and, after a disturbed window, waits for quiet within this budget (a resumed run goes on with its own).
 */
export async function preflight(o: RunOptions, record: RunRecord, cpus: CpuLayout, runtime: Runtime): Promise<QuietBudget> {
  const look = await lookAtMachine(PREFLIGHT_S)
  const busy = preflightLine(look, `${cpus.proxy},${cpus.backend},${cpus.generator}`, MAX_FOREIGN_SHARE)
  if (busy) o.log.warn(busy)
  const quiet = new QuietBudget(quietSettings(o.profile, cpus, { runtime }), o.log, record.manifest.quiet, busy)
  record.manifest.quiet = quiet.record
  record.save()
  return quiet
}
