import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'

/** One path for the whole machine (not per user cache): two users' runs disturb each other too. */
export const lockPath = () => process.env.PROXYBENCH_LOCK ?? join(tmpdir(), 'proxybench-run.lock')
const holderFile = () => `${lockPath()}.holder`

/**
 * One measuring run per machine: a second one would steal the first one's cores and make
 * both sets of numbers wrong. The lock is a kernel flock held by a `flock … cat` child that
 * reads our stdin pipe: when this process ends in any way (even kill -9) the pipe closes,
 * the child exits and the kernel frees the lock, so a lock is never stale and never taken
 * over by guesswork. Taken before setup, which may install packages or rewrite certificates.
 */
export async function acquireRunLock(runDir: string): Promise<() => Promise<void>> {
  const path = lockPath()
  const holder = spawn('flock', ['--nonblock', '--conflict-exit-code', '75', path, '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  holder.stderr.on('data', (d: Buffer) => (stderr += d))
  const got = await new Promise<'locked' | number>((resolve, reject) => {
    holder.once('error', (e) => reject(userError('flock', `cannot take the run lock: ${e.message}`, 'Install util-linux (apt-get install util-linux)')))
    holder.stdout.once('data', () => resolve('locked'))
    holder.once('exit', (code) => resolve(code ?? 1))
  })
  if (got !== 'locked') {
    if (got === 75) {
      let who = 'another proxybench run'
      try {
        const h = JSON.parse(readFileSync(holderFile(), 'utf8')) as { pid: number; runDir: string }
        who = `another proxybench run (pid ${h.pid}, ${h.runDir})`
      } catch {}
      throw userError(path, `${who} is measuring on this machine`, 'Wait for it to finish or stop it; two runs at once would disturb each other')
    }
    throw userError(path, `flock exited ${got}${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}`, `Check that ${path} is writable, or set PROXYBENCH_LOCK to another path`)
  }
  writeFileAtomic(holderFile(), JSON.stringify({ pid: process.pid, runDir }))
  // The holder lives as long as this process, but must not keep it alive.
  holder.unref()
  for (const s of [holder.stdin, holder.stdout, holder.stderr]) (s as unknown as { unref?: () => void }).unref?.()
  const gone = new Promise<void>((resolve) => (holder.exitCode !== null ? resolve() : holder.once('exit', () => resolve())))
  let released: Promise<void> | undefined
  // Resolves once the holder has exited, i.e. the kernel has freed the lock: a run started
  // right after (in the same process, as the tests do) finds it free.
  return () => {
    // ref again: waiting for the holder's exit must keep this process alive until then.
    released ??= (holder.ref(), holder.stdin.end(), gone)
    return released
  }
}
