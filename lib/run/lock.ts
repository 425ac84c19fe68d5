import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { userError } from '../core/errors.ts'
import { cacheDir } from '../core/paths.ts'
import { isAlive } from '../runtime/native.ts'

const lockFile = () => join(cacheDir(), 'run.lock')

/**
 * One measuring run per machine: a second one would steal the first one's cores and
 * make both sets of numbers wrong. A lock left by a killed run is taken over.
 */
export function acquireRunLock(runDir: string): () => void {
  mkdirSync(cacheDir(), { recursive: true })
  try {
    const held = JSON.parse(readFileSync(lockFile(), 'utf8')) as { pid: number; runDir: string }
    if (held.pid !== process.pid && isAlive(held.pid)) {
      throw userError(lockFile(), `another proxybench run (pid ${held.pid}, ${held.runDir}) is measuring on this machine`, 'Wait for it to finish or stop it; two runs at once would disturb each other')
    }
  } catch (e) {
    if ((e as Error).name === 'UserError') throw e
  }
  const file = lockFile()
  writeFileSync(file, JSON.stringify({ pid: process.pid, runDir }))
  const release = () => {
    process.removeListener('exit', release)
    try {
      if ((JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid === process.pid) rmSync(file, { force: true })
    } catch {}
  }
  // A run ended by SIGINT/SIGTERM (the shutdown handler calls process.exit) frees it too.
  process.once('exit', release)
  return release
}
