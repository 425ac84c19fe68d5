import { randomBytes } from 'node:crypto'
import { closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { userError } from './errors.ts'
import type { Output } from './output.ts'

let counter = 0

/** Writes a file and fsyncs it before closing (creating its folder); not atomic on its own. */
export function writeFileDurable(file: string, content: string | Buffer, flags = 'w'): void {
  mkdirSync(dirname(file), { recursive: true })
  const fd = openSync(file, flags)
  try {
    writeFileSync(fd, content)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Fsyncs a file already written (a copy about to be renamed into place). */
export function fsyncFile(file: string): void {
  const fd = openSync(file, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** Errors of a directory fsync from file systems (or platforms) that do not support it. */
const DIR_FSYNC_UNSUPPORTED = new Set(['EINVAL', 'EISDIR', 'EPERM', 'EACCES', 'ENOTSUP', 'EOPNOTSUPP'])

/** Fsyncs a directory, so a rename inside it survives a crash; a no-op where that is refused. */
function fsyncDir(dir: string): void {
  let fd: number
  try {
    fd = openSync(dir, constants.O_RDONLY)
  } catch (e) {
    if (DIR_FSYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) return
    throw e
  }
  try {
    fsyncSync(fd)
  } catch (e) {
    if (!DIR_FSYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes a file (text or bytes) so that a crash leaves the old file or the new one, never
 * a mix: a fsynced temp file in the same folder, renamed over the target, then the folder
 * fsynced. The temp file is removed if anything fails.
 */
export function writeFileAtomic(file: string, content: string | Buffer): void {
  const tmp = `${file}.tmp-${process.pid}-${++counter}-${randomBytes(4).toString('hex')}`
  try {
    writeFileDurable(tmp, content, 'wx')
    renameSync(tmp, file)
    fsyncDir(dirname(file))
  } catch (e) {
    rmSync(tmp, { force: true })
    throw spaceError(e, file, 'file')
  }
}

/** A full disk as one line, not a trace: what was there before the write is untouched (the rename never happened). */
function spaceError(e: unknown, path: string, what: 'file' | 'folder'): unknown {
  const code = (e as NodeJS.ErrnoException).code
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return e
  return userError(
    path,
    `no space left on the device (${code}); the ${what} as it was before this write is kept`,
    `Free space on ${dirname(path)}, then run again with --resume`,
  )
}

/**
 * The one writer of a step's outputs: each under `root`, in order, atomically
 * (writeFileAtomic). Returns the paths written, as given.
 */
export function writeOutputs(root: string, outputs: readonly Output[]): string[] {
  for (const o of outputs) writeFileAtomic(join(root, o.path), o.render())
  return outputs.map((o) => o.path)
}

/**
 * A folder of outputs put in place of `target` whole: each written (fsynced) into `tmp`
 * beside it, the folder checked (`check`: e.g. for key material), then swapped in by
 * replaceDir (the old one aside at `old`). On any error the old folder stays as it was and
 * `tmp` is removed.
 */
export function writeOutputFolder(target: string, outputs: readonly Output[], o: { tmp: string; old: string; check?: (dir: string) => void }): void {
  try {
    mkdirSync(o.tmp, { recursive: true })
    for (const out of outputs) writeFileDurable(join(o.tmp, out.path), out.render())
    o.check?.(o.tmp)
    replaceDir(o.tmp, target, o.old)
  } catch (e) {
    rmSync(o.tmp, { recursive: true, force: true })
    throw spaceError(e, target, 'folder')
  }
}

/**
 * Puts a finished folder in place of `target` by rename: the old one aside (at `old`), the
 * new one in, then the old one removed; if the second rename fails the old one goes back.
 * A crash at any point leaves one complete folder (the old one may wait at `old`).
 */
export function replaceDir(tmp: string, target: string, old: string, rename: typeof renameSync = renameSync): void {
  const had = existsSync(target)
  if (had) {
    rmSync(old, { recursive: true, force: true })
    rename(target, old)
  }
  try {
    rename(tmp, target)
  } catch (e) {
    if (had) rename(old, target)
    throw e
  }
  if (had) rmSync(old, { recursive: true, force: true })
  fsyncDir(dirname(target))
}
