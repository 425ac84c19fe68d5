import { PROFILES } from '../../../lib/catalog/profiles.ts'
import type { Logger } from '../../../lib/core/log.ts'
import { certsDir } from '../../../lib/core/paths.ts'
import { defaultVersionChoice } from '../../../lib/catalog/version-choice.ts'
import { defaultCpuLayout } from '../../../lib/roles/cpus.ts'
import { acquireRunLock } from '../../../lib/run/lock.ts'
import type { Runtime } from '../../../lib/runtime/types.ts'
import type { SeriesContext } from '../../../lib/series/types.ts'
import { ensureCerts } from '../../../lib/setup/certs.ts'

/** The machine lock, waited for: another run would disturb a test's windows and the other way round. */
export async function waitForRunLock(dir: string): Promise<() => void> {
  for (let i = 0; ; i++) {
    try {
      return await acquireRunLock(dir)
    } catch (e) {
      // Polled every second, for up to 10 minutes: the test starts as soon as the lock is free.
      if (i >= 600 || !/another proxybench run/.test((e as Error).message)) throw e
      await new Promise((r) => setTimeout(r, 1000))
    }
  }
}

/** A smoke-profile series context for HAProxy windows on this machine's default cpusets. */
export async function smokeContext(runtime: Runtime, runId: string, runDir: string, log: Logger): Promise<SeriesContext> {
  const profile = PROFILES.smoke!
  return {
    runtime,
    runId,
    runDir,
    cpus: defaultCpuLayout(),
    profile,
    certs: await ensureCerts(certsDir, { force: false, log }),
    log,
    proxies: ['haproxy'],
    seed: 1,
    connections: profile.connections,
    backendVersion: 'test',
    plan: { custom: [], versions: defaultVersionChoice(profile.name) },
  }
}
