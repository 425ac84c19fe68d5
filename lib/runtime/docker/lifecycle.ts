import { createWriteStream, lchownSync, lstatSync, mkdirSync, readdirSync, type WriteStream } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import type Docker from 'dockerode'
import { cacheDir, repoRoot } from '../../core/paths.ts'
import { interrupted } from '../shutdown.ts'
import type { RoleSpec } from '../types.ts'
import { copyIn } from './copy-in.ts'
import { under, type MountPlan } from './mounts.ts'
import { errorLine, exitMarkFilter } from './stream.ts'

/* Steps of a container's life that hold no runtime state: its start, and an engine that goes away and comes back. */

/** Errors of an engine that is stopping or gone, not of the container asked for. */
export const ENGINE_GONE = /docker\.sock|ECONNREFUSED|ECONNRESET|socket hang up|libnetwork|shutting down|daemon is not running/i

/** A timer that never keeps the process alive (used in races). */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref())

const answers = (docker: Docker) =>
  docker.ping().then(
    () => true,
    () => false,
  )

/**
 * A restarting engine (dockerd stopped mid-run) is waited for, up to waitS, and said
 * so on stderr: the cell in flight has a row naming its dead containers, the next ones run.
 */
export async function engineBack(docker: Docker, waitS: number): Promise<void> {
  if (await answers(docker)) return
  process.stderr.write(`proxybench: docker: the engine does not answer; waiting up to ${waitS} s for it before the next cell\n`)
  const deadline = Date.now() + waitS * 1000
  while (Date.now() < deadline && !interrupted()) {
    // A timer that keeps the process alive: nothing else may while the engine is away.
    await new Promise((r) => setTimeout(r, 1000))
    if (await answers(docker)) {
      process.stderr.write('proxybench: docker: the engine answers again; the run goes on\n')
      return
    }
  }
}

/** Stopping engines answer pings for a few seconds more: wait (up to 15 s) for it to go. */
export async function engineGone(docker: Docker): Promise<void> {
  const until = Date.now() + 15_000
  while (Date.now() < until && (await answers(docker))) await new Promise((r) => setTimeout(r, 500))
}

/** A started container's output: the log file, when its stream ends, and the generator's exit line. */
export interface Attached {
  log: WriteStream
  logDone: Promise<void>
  marked: Promise<number>
}

/**
 * Opens the log, puts files in (copyFiles), attaches and starts. A container that does not
 * start is removed; `removed` is called when the engine could remove it (else the caller
 * keeps it to try again).
 */
export async function attachAndStart(
  docker: Docker,
  container: Docker.Container,
  spec: RoleSpec,
  o: { plan: MountPlan; wrap: boolean; copyFiles: boolean; user: { uid: number; gid: number }; removed: () => void },
): Promise<Attached> {
  mkdirSync(dirname(spec.logFile), { recursive: true })
  const log = createWriteStream(spec.logFile, { flags: 'a' })
  let markSeen: ((code: number) => void) | undefined
  const marked = new Promise<number>((r) => (markSeen = r))
  let logDone: Promise<void>
  try {
    await new Promise<void>((r, j) => log.once('open', () => r()).once('error', j))
    if (o.copyFiles) await copyIn(container, o.plan, o.user)
    const stdout = o.wrap ? exitMarkFilter(log, (code) => markSeen!(code)) : log
    // Attached before start: not a byte of output is missed.
    const stream = (await container.attach({ stream: true, stdout: true, stderr: true })) as NodeJS.ReadableStream
    logDone = new Promise<void>((r) => {
      stream.once('end', () => r())
      stream.once('close', () => r())
      stream.once('error', () => r())
    })
    docker.modem.demuxStream(stream, stdout, log)
    await container.start()
  } catch (e) {
    log.end()
    // Kept in `starting` when the engine cannot remove it now (restarting): stopAll tries again.
    if (
      await container.remove({ force: true, v: true }).then(
        () => true,
        () => false,
      )
    )
      o.removed()
    throw new Error(`container for ${spec.name} did not start: ${errorLine(e)}`)
  }
  return { log, logDone, marked }
}

/**
 * The run_dir becomes the container user's, with what the host already wrote in it
 * (the rendered config; the proxy's checker, run natively as root, leaves an empty
 * nginx.pid and temp dirs). Never a shared directory.
 */
export function chownRunDir(dir: string, user: { uid: number; gid: number }): void {
  const forbidden = [repoRoot, homedir(), cacheDir(), '/tmp', '/']
  if (dir.split('/').filter(Boolean).length < 2 || forbidden.some((f) => under(f, dir))) return
  const walk = (p: string, depth: number) => {
    try {
      lchownSync(p, user.uid, user.gid)
      if (depth < 4 && lstatSync(p).isDirectory()) for (const f of readdirSync(p)) walk(join(p, f), depth + 1)
    } catch {}
  }
  walk(dir, 0)
}
