import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { cacheDir, certsDir, displayPath } from '../core/paths.ts'
import { procRef, procStartTime, sameProcess, type ProcRef } from './proc.ts'
import { keepAside } from './state-file.ts'

/*
 * Copies of root-only private keys owned by a container's unprivileged user. Only files
 * under the certificates directory are ever copied (a root-only file elsewhere is an
 * error, not a copy); the copies live in `<certs>/.docker-<pid>/`, are listed in a state
 * file before they exist, and are removed at the end of the run, or by the next start
 * of either runtime when the run crashed.
 */

export const COPY_PREFIX = '.docker-'
export const copiesStateDir = () => join(cacheDir(), 'docker')

export interface CopyState {
  harness: ProcRef
  copies: string[]
}

/** Whether `path` is `dir` or lies under it. */
const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith('/') ? dir : dir + '/')

/** Refuses to copy a file outside the keys directory (symlinks resolved). */
export function assertCopyable(source: string, user: { uid: number; gid: number }, keysDir = certsDir, realpath: (p: string) => string = realpathSync): void {
  const resolved = (p: string) => {
    try {
      return realpath(p)
    } catch {
      return p
    }
  }
  if (!inside(resolved(source), resolved(keysDir))) {
    throw userError(
      displayPath(source),
      `not readable by the container user ${user.uid}:${user.gid}, and only files under ${displayPath(keysDir)}/ are copied for containers`,
      `Make it readable (chmod o+r ${source}) if it is not secret, or use --runtime native`,
    )
  }
}

/** Copy dirs of this process, shared by its runtimes (runtime-ratio runs two at once). */
const ownDirs = new Set<string>()
const holders = new Set<KeyCopies>()
const ownStateFile = () => join(copiesStateDir(), `${process.pid}.json`)

/** Removes every copy of this process and its state file (synchronous: also at process exit). */
export function removeOwnCopies(): void {
  for (const dir of ownDirs) rmSync(dir, { recursive: true, force: true })
  ownDirs.clear()
  rmSync(ownStateFile(), { force: true })
}

/** The key copies one runtime uses: recorded before they are made, removed by release(). */
export class KeyCopies {
  constructor(
    private readonly user: { uid: number; gid: number },
    readonly keysDir = certsDir,
  ) {}

  /** A copy of `source` (under the keys dir) owned by the container user, mode 0400. */
  copy(source: string): string {
    assertCopyable(source, this.user, this.keysDir)
    holders.add(this)
    const dir = join(dirname(source), `${COPY_PREFIX}${process.pid}`)
    if (!ownDirs.has(dir)) {
      ownDirs.add(dir)
      const state: CopyState = { harness: procRef(process.pid), copies: [...ownDirs] }
      writeFileAtomic(ownStateFile(), JSON.stringify(state))
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    chmodSync(dir, 0o700)
    chownSync(dir, this.user.uid, this.user.gid)
    const dest = join(dir, basename(source))
    const same = existsSync(dest) && statSync(dest).mtimeMs >= statSync(source).mtimeMs && statSync(dest).size === statSync(source).size
    if (!same) {
      rmSync(dest, { force: true })
      copyFileSync(source, dest)
      chmodSync(dest, 0o400)
      chownSync(dest, this.user.uid, this.user.gid)
    }
    return dest
  }

  /** This runtime is done: the copies go once no runtime of this process uses them. */
  release(): void {
    holders.delete(this)
    if (holders.size === 0) removeOwnCopies()
  }
}

/** A copy dir a state file may name: `<somewhere>/.docker-<pid>`, never anything else. */
const isCopyDir = (p: string) => p.startsWith('/') && new RegExp(`^${COPY_PREFIX.replace('.', '\\.')}\\d+$`).test(basename(p))

function parseState(text: string): CopyState | null {
  try {
    const s = JSON.parse(text) as Partial<CopyState> & { harnessPid?: number; boot?: string }
    if (!Array.isArray(s.copies) || !s.copies.every((c) => typeof c === 'string')) return null
    // The format before start times: its harness cannot be told from a reused pid, so it counts as gone.
    const harness = s.harness ?? { pid: s.harnessPid ?? 0, start: '', boot: s.boot ?? '' }
    return { harness, copies: s.copies }
  } catch {
    return null
  }
}

/**
 * Removes key copies whose harness is gone: those its state file lists, and any
 * `.docker-<pid>` dir in the keys dirs that no live harness lists. Returns how many dirs went.
 */
export function cleanupStaleCopies(log: Logger, keysDirs: string[] = [certsDir]): number {
  const kept = new Set<string>()
  const dir = copiesStateDir()
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : []
  let removed = 0
  for (const f of files) removed += cleanupStateFile(join(dir, f), kept, log)
  for (const keys of keysDirs.filter(existsSync)) removed += cleanupOrphanCopies(keys, kept, log)
  return removed
}

/**
 * One harness's state file: its copies kept (added to `kept`) while it runs, else removed with
 * the file; a file this version cannot read set aside. Returns how many dirs went.
 */
function cleanupStateFile(file: string, kept: Set<string>, log: Logger): number {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return 0
  }
  const state = parseState(text)
  if (!state) {
    keepAside(file, 'not a key-copy state file this version can read', log)
    return 0
  }
  if (sameProcess(state.harness)) {
    for (const c of state.copies) kept.add(c)
    return 0
  }
  let removed = 0
  for (const c of state.copies.filter(isCopyDir)) {
    if (existsSync(c)) removed++
    rmSync(c, { recursive: true, force: true })
  }
  rmSync(file, { force: true })
  return removed
}

/** Copy dirs in a keys dir that no live harness lists and whose pid no longer runs: removed, with a warning each. */
function cleanupOrphanCopies(keys: string, kept: ReadonlySet<string>, log: Logger): number {
  let removed = 0
  for (const e of readdirSync(keys)) {
    const p = join(keys, e)
    // A dir whose pid runs may belong to a harness using another cache dir: left alone.
    if (!isCopyDir(p) || kept.has(p) || procStartTime(Number(e.slice(COPY_PREFIX.length))) !== null) continue
    rmSync(p, { recursive: true, force: true })
    removed++
    log.warn(`removed ${displayPath(p)}: key copies left by a run that crashed`)
  }
  return removed
}
