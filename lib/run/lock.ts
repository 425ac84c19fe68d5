import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'

/*
 * The machine lock (docs/reliability.md#the-run-lock): one measuring run per machine, and no
 * step that changes what a run measures with (packages, certificates, images) while one runs.
 */

const LOCK_NAME = 'proxybench-run.lock'

/**
 * Where the lock lives, first usable first: fixed paths, never TMPDIR, which differs
 * between users and shells and would give two runs two locks. /run/lock (and /var/lock,
 * usually the same) is world-writable on Debian; /var/tmp and /tmp where it is not.
 */
export const LOCK_DIRS: readonly string[] = ['/run/lock', '/var/lock', '/var/tmp', '/tmp']

const writableDir = (d: string) => {
  try {
    accessSync(d, constants.W_OK)
    return statSync(d).isDirectory()
  } catch {
    return false
  }
}

/** One path for the whole machine (not per user cache): two users' runs disturb each other too. PROXYBENCH_LOCK overrides it. */
export function lockPath(env: NodeJS.ProcessEnv = process.env, dirs: readonly string[] = LOCK_DIRS): string {
  if (env.PROXYBENCH_LOCK) return env.PROXYBENCH_LOCK
  return join(dirs.find(writableDir) ?? '/tmp', LOCK_NAME)
}

const holderFile = (path: string) => `${path}.holder`

/** `<pid>:<lock path>` of the process holding the lock, handed to the processes it starts, so a step they run re-uses it. */
export const HELD_ENV = 'PROXYBENCH_LOCK_HELD'

interface Holder {
  pid: number
  runDir: string
  /** Absent (older holders) or 'run': a measuring run; 'step': a setup step. */
  kind?: 'run' | 'step'
}

/** What this process holds, if anything: a step inside it re-uses it. */
let held: { path: string } | undefined

/** The parent of a process, from /proc (0 when unknown). */
function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return 0
  }
}

/** Whether `pid` is this process's parent, grandparent, … */
export function isAncestor(pid: number, self = process.pid): boolean {
  for (let p = parentOf(self), hops = 0; p > 1 && hops < 64; p = parentOf(p), hops++) if (p === pid) return true
  return false
}

const readHolder = (path: string): Holder | undefined => {
  try {
    return JSON.parse(readFileSync(holderFile(path), 'utf8')) as Holder
  } catch {
    return undefined
  }
}

/** Whether some process holds the lock now (a non-blocking try that gives it straight back). */
function lockTaken(path: string): boolean {
  return spawnSync('flock', ['--nonblock', '--conflict-exit-code', '75', path, 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 75
}

/**
 * The lock held by a process that started this one (a run whose child runs a step): the
 * env names it, the holder file still names it, it is our ancestor, and the lock is taken.
 */
export function inheritedLock(env: NodeJS.ProcessEnv = process.env): { pid: number; path: string } | undefined {
  const m = /^(\d+):(.+)$/.exec(env[HELD_ENV] ?? '')
  if (!m) return undefined
  const pid = Number(m[1])
  const path = m[2]!
  if (path !== lockPath(env) || readHolder(path)?.pid !== pid || !isAncestor(pid) || !lockTaken(path)) return undefined
  return { pid, path }
}

/**
 * Takes the lock: a kernel flock held by a `flock … cat` child that reads our stdin pipe:
 * when this process ends in any way (even kill -9) the pipe closes, the child exits and
 * the kernel frees the lock, so a lock is never stale and never taken over by guesswork.
 */
async function takeLock(what: string, kind: 'run' | 'step', hint = ''): Promise<() => Promise<void>> {
  const path = lockPath()
  const holder = spawn('flock', ['--nonblock', '--conflict-exit-code', '75', path, '-c', 'echo locked; exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  holder.stderr.on('data', (d: Buffer) => (stderr += d))
  const got = await new Promise<'locked' | number>((resolve, reject) => {
    holder.once('error', (e) => reject(userError('flock', `cannot take the run lock: ${e.message}`, 'Install util-linux (apt-get install util-linux)')))
    holder.stdout.once('data', () => resolve('locked'))
    holder.once('exit', (code) => resolve(code ?? 1))
  })
  if (got !== 'locked') {
    if (got === 75) {
      const h = readHolder(path)
      const step = kind === 'step' ? `${what} changes packages, keys or images: ` : ''
      if (h?.kind === 'step')
        throw userError(
          path,
          `${step}proxybench's ${h.runDir} (pid ${h.pid}) is changing packages, keys or images on this machine`,
          `Wait for it to finish, then run this again${hint}`,
        )
      const who = h ? `another proxybench run (pid ${h.pid}, ${h.runDir})` : 'another proxybench run'
      throw userError(
        path,
        `${step}${who} is measuring on this machine`,
        kind === 'step'
          ? `Wait for it to finish or stop it; changing them under a measurement would spoil it${hint}`
          : 'Wait for it to finish or stop it; two runs at once would disturb each other',
      )
    }
    throw userError(
      path,
      `flock exited ${got}${stderr ? `: ${stderr.trim().split('\n')[0]}` : ''}`,
      `Check that ${path} is writable, or set PROXYBENCH_LOCK to another path`,
    )
  }
  writeFileAtomic(holderFile(path), JSON.stringify({ pid: process.pid, runDir: what, kind } satisfies Holder))
  held = { path }
  process.env[HELD_ENV] = `${process.pid}:${path}`
  // The holder lives as long as this process, but must not keep it alive.
  holder.unref()
  for (const s of [holder.stdin, holder.stdout, holder.stderr]) (s as unknown as { unref?: () => void }).unref?.()
  const gone = new Promise<void>((resolve) => (holder.exitCode !== null ? resolve() : holder.once('exit', () => resolve())))
  let released: Promise<void> | undefined
  // Resolves once the holder has exited, i.e. the kernel has freed the lock: a run started
  // right after (in the same process, as the tests do) finds it free.
  return () => {
    if (!released) {
      if (held?.path === path) held = undefined
      if (process.env[HELD_ENV] === `${process.pid}:${path}`) delete process.env[HELD_ENV]
      // ref again: waiting for the holder's exit must keep this process alive until then.
      released = (holder.ref(), holder.stdin.end(), gone)
    }
    return released
  }
}

/**
 * One measuring run per machine: a second one would steal the first one's cores and make
 * both sets of numbers wrong. Taken before setup, which may install packages or rewrite
 * certificates. Never re-entrant: a second run in this process is refused like any other.
 */
export function acquireRunLock(runDir: string): Promise<() => Promise<void>> {
  return takeLock(runDir, 'run')
}

/**
 * A step that changes shared state (00-setup installing, 01-certs writing, 02-stacks
 * building): refused while a run measures, except inside that run: when this process or
 * one that started it holds the lock, the step runs under it (released by its holder).
 * `hint`: what the user can do meanwhile, added to the refusal.
 */
export async function acquireStepLock(step: string, o: { hint?: string } = {}): Promise<() => Promise<void>> {
  const noop = () => Promise.resolve()
  if (held && held.path === lockPath()) return noop
  if (inheritedLock()) return noop
  return takeLock(step, 'step', o.hint ? ` (${o.hint})` : '')
}
