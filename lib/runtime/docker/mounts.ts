import { readFileSync, realpathSync, statSync } from 'node:fs'
import { resolve, sep } from 'node:path'
import { certsDir } from '../../core/paths.ts'
import { assertCopyable } from '../key-copies.ts'
import type { RoleSpec } from '../types.ts'

/* Which host paths a role's container sees, and how (lib/runtime/docker/runtime.ts: Files). */

const SYSTEM_DIRS = ['/usr', '/etc', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/sys', '/dev', '/run', '/var/run', '/boot']
const DOCKER_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock']
const NOT_PATHS = new Set(['LD_LIBRARY_PATH', 'PATH'])

/** Whether `path` is `dir` or lies under it. */
export const under = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep)

/** Absolute paths in an argv element or env value: the whole value, or what follows `=`. */
export function pathTokens(values: string[]): string[] {
  const out: string[] = []
  for (const v of values) {
    for (const cand of [v, v.includes('=') ? v.slice(v.indexOf('=') + 1) : '']) {
      for (const part of cand.split(':')) if (part.startsWith('/') && part.length > 1) out.push(part.replace(/\/+$/, ''))
    }
  }
  return [...new Set(out)]
}

/** Absolute paths written in a config file (certificates, keys, directories). */
export function configPaths(text: string): string[] {
  return [...new Set([...text.matchAll(/(?<![\w.:/@~$-])\/(?:[\w.@+-]+\/)*[\w.@+-]+/g)].map((m) => m[0]))]
}

export interface Mount {
  source: string
  target: string
  readOnly: boolean
}

export interface MountPlan {
  mounts: Mount[]
  /** Files the container user cannot read as they are: copy, then mount at `target`. */
  copies: { source: string; target: string }[]
}

export interface Fs {
  stat(path: string): { isDir: boolean; uid: number; gid: number; mode: number; size: number } | null
  read(path: string): string
  /** The path with symlinks resolved (default: as given). */
  realpath?(path: string): string
}

const realFs: Fs = {
  stat(path) {
    try {
      const s = statSync(path)
      return { isDir: s.isDirectory(), uid: s.uid, gid: s.gid, mode: s.mode, size: s.size }
    } catch {
      return null
    }
  },
  read: (path) => readFileSync(path, 'utf8'),
  realpath: (path) => realpathSync(path),
}

/** Whether `uid:gid` may read a file with this owner and mode (no capabilities). */
export function readable(st: { uid: number; gid: number; mode: number }, uid: number, gid: number): boolean {
  if (uid === 0) return true
  if (st.uid === uid) return (st.mode & 0o400) !== 0
  if (st.gid === gid) return (st.mode & 0o040) !== 0
  return (st.mode & 0o004) !== 0
}

/**
 * What a role's container sees: cwd read-write; every other existing absolute path named
 * in argv[1..], in env, or inside a (small, text) file named there, read-only at the same
 * path. System directories come from the image; nothing above depth 2 (/, /root, /tmp)
 * and no Docker socket is ever mounted. A file the container user cannot read is copied
 * only when it lies under `keysDir` (certs/); anywhere else it is an error naming it.
 */
export function planMounts(spec: Pick<RoleSpec, 'argv' | 'env' | 'cwd'>, user: { uid: number; gid: number }, fs: Fs = realFs, keysDir = certsDir): MountPlan {
  const mounts: Mount[] = []
  const copies: MountPlan['copies'] = []
  if (spec.cwd) mounts.push({ source: resolve(spec.cwd), target: resolve(spec.cwd), readOnly: false })
  // Shortest first: a directory mounted covers the paths under it.
  const candidates = [...new Set(namedPaths(spec, fs).map((p) => resolve(p)))].sort((a, b) => a.length - b.length)
  for (const p of candidates) {
    if (p === spec.argv[0] || neverMounted(p) || mounts.some((m) => under(p, m.target))) continue
    const st = fs.stat(p)
    if (!st) continue
    if (!st.isDir && !readable(st, user.uid, user.gid)) {
      assertCopyable(p, user, keysDir, fs.realpath)
      copies.push({ source: p, target: p })
    } else mounts.push({ source: p, target: p, readOnly: true })
  }
  return { mounts, copies }
}

/** The paths argv[1..] and env name, and those named inside a (small, text) file among them. */
function namedPaths(spec: Pick<RoleSpec, 'argv' | 'env'>, fs: Fs): string[] {
  const envValues = Object.entries(spec.env ?? {})
    .filter(([k]) => !NOT_PATHS.has(k))
    .map(([, v]) => v)
  const direct = pathTokens([...spec.argv.slice(1), ...envValues])
  return [...direct, ...direct.flatMap((p) => configPathsIn(p, fs))]
}

/** The paths a small text file names (none for a directory, a missing, large, unreadable or binary file). */
function configPathsIn(path: string, fs: Fs): string[] {
  const st = fs.stat(path)
  if (!st || st.isDir || st.size > 1 << 20) return []
  let text = ''
  try {
    text = fs.read(path)
  } catch {}
  return text.includes('\0') ? [] : configPaths(text)
}

/** Paths never mounted: / and those one level under it (/root, /tmp), system directories, and any that holds a Docker socket. */
const neverMounted = (p: string) => p.split('/').filter(Boolean).length < 2 || SYSTEM_DIRS.some((d) => under(p, d)) || DOCKER_SOCKETS.some((s) => under(s, p))
