import { coreNamer, lookAtMachine, preflightLine } from '../measure/culprits.ts'
import { MAX_FOREIGN_SHARE } from '../measure/validity.ts'
import type { CpuLayout } from '../roles/cpus.ts'
import type { Runtime } from '../runtime/types.ts'
import type { RunRecord } from './manifest.ts'
import type { RunOptions } from './options.ts'
import { QuietBudget, quietSettings } from './quiet.ts'

/** Seconds the preflight samples the machine before the first window. */
const PREFLIGHT_S = 2

/**
 * Before the first window: other work on the machine (on several hosts, on each), named; the run goes on either way
 * and, after a disturbed window, waits for quiet within this budget (a resumed run goes on with its own).
 */
export async function preflight(o: RunOptions, record: RunRecord, cpus: CpuLayout, runtime: Runtime): Promise<QuietBudget> {
  const settings = quietSettings(o.profile, cpus, { runtime })
  // On several hosts every host is looked at, as the waits do (the harness's own named by the samples).
  const { sample } = settings
  const look = await lookAtMachine(PREFLIGHT_S, sample ? { roots: [], sample: () => sample([]) } : {}).catch((e: Error) => {
    o.log.warn(`no look at the hosts before the first window: ${e.message.split('\n')[0]}`)
    return null
  })
  const where = sample ? 'the hosts' : 'this machine'
  const busy = look && preflightLine(look, settings.groups.join(','), MAX_FOREIGN_SHARE, { where, coreName: coreNamer(runtime) })
  if (busy) o.log.warn(busy)
  const quiet = new QuietBudget(settings, o.log, record.manifest.quiet, busy)
  record.manifest.quiet = quiet.record
  record.save()
  return quiet
}
