import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs'
import { join } from 'node:path'
import { userError } from '../core/errors.ts'
import { sha256File, sha256Text } from '../core/hash.ts'
import { archiveDir } from '../data/archive-index.ts'

/**
 * A build's tree listing: every entry under its root (path, mode, type, size, sha256 or
 * symlink target), one JSON array a line after a header, sorted by path. Its sha256 is the
 * build's content address; the file contents live apart, one object per distinct content
 * (docs/archive.md).
 */
export type TreeEntry =
  | { type: 'file'; path: string; mode: number; size: number; sha256: string }
  | { type: 'dir'; path: string; mode: number }
  | { type: 'symlink'; path: string; target: string }
  /** Device nodes, fifos and sockets (and files this user cannot read): listed and counted, never kept. */
  | { type: 'skipped'; path: string; kind: string }

const HEADER = 'proxybench-tree 1'
const SHA = /^[0-9a-f]{64}$/

/** A size as the archive's messages print it. */
export const MB = (n: number): string => `${(n / 2 ** 20).toFixed(1)} MB`

export const objectPath = (sha256: string, dir = archiveDir()): string => join(dir, 'objects', sha256.slice(0, 2), sha256)
export const treePath = (tree: string, dir = archiveDir()): string => join(dir, 'trees', tree)

const line = (e: TreeEntry): unknown[] =>
  e.type === 'file'
    ? ['f', e.path, e.mode.toString(8), e.size, e.sha256]
    : e.type === 'dir'
      ? ['d', e.path, e.mode.toString(8)]
      : e.type === 'symlink'
        ? ['l', e.path, e.target]
        : ['s', e.path, e.kind]

export function listingText(entries: readonly TreeEntry[]): string {
  return [HEADER, ...entries.map((e) => JSON.stringify(line(e)))].join('\n') + '\n'
}

/** A path a listing may name: relative, no `.`/`..` segment, so a restore never writes outside its folder. */
export function safeRelative(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.includes('\0') && path.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
}

function parseLine(text: string): TreeEntry | undefined {
  const a = JSON.parse(text) as unknown
  if (!Array.isArray(a) || typeof a[1] !== 'string' || !safeRelative(a[1])) return undefined
  const [t, path] = a as [string, string]
  const mode = (s: unknown) => (typeof s === 'string' && /^[0-7]{1,6}$/.test(s) ? Number.parseInt(s, 8) : undefined)
  if (t === 'f' && mode(a[2]) !== undefined && Number.isInteger(a[3]) && typeof a[4] === 'string' && SHA.test(a[4]))
    return { type: 'file', path, mode: mode(a[2])!, size: a[3] as number, sha256: a[4] }
  if (t === 'd' && mode(a[2]) !== undefined) return { type: 'dir', path, mode: mode(a[2])! }
  if (t === 'l' && typeof a[2] === 'string' && a[2] !== '') return { type: 'symlink', path, target: a[2] }
  if (t === 's' && typeof a[2] === 'string') return { type: 'skipped', path, kind: a[2] }
  return undefined
}

/** A listing's entries; a line that is not one is a one-line error naming the file and line. */
export function parseListing(text: string, file: string): TreeEntry[] {
  const lines = text.split('\n')
  if (lines[0] !== HEADER) throw userError(file, `not a tree listing (first line is not '${HEADER}')`, 'Remove it and archive or import the build again')
  return lines.slice(1, lines.at(-1) === '' ? -1 : undefined).map((l, i) => {
    let e: TreeEntry | undefined
    try {
      e = parseLine(l)
    } catch {}
    if (!e) throw userError(`${file}:${i + 2}`, 'not a tree entry', 'Remove it and archive or import the build again')
    return e
  })
}

/** A build's listing from the archive, checked against its address. */
export function readTree(tree: string, dir = archiveDir()): TreeEntry[] {
  const file = treePath(tree, dir)
  if (!existsSync(file)) throw userError(file, 'missing from the archive', 'Import the build again (npm run archive -- import FILE)')
  const text = readFileSync(file)
  if (sha256Text(text) !== tree) throw userError(file, 'does not match its sha256 (corrupted)', 'Remove it and import the build again')
  return parseListing(text.toString('utf8'), file)
}

const SKIPPED_KIND = (st: Stats): string =>
  st.isFIFO() ? 'fifo' : st.isSocket() ? 'socket' : st.isCharacterDevice() ? 'char device' : st.isBlockDevice() ? 'block device' : 'other'

/** Every path under root (not root itself) with its lstat, parents before children, sorted. */
export function walk(root: string): { path: string; st: Stats }[] {
  const out: { path: string; st: Stats }[] = []
  const visit = (rel: string) => {
    const names = readdirSync(rel ? join(root, rel) : root).sort()
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name
      const st = lstatSync(join(root, path))
      out.push({ path, st })
      if (st.isDirectory()) visit(path)
    }
  }
  visit('')
  return out
}

/** One walked path as a listing entry, hashing a regular file (a file this user cannot read is skipped, named). */
export async function entryOf(root: string, path: string, st: Stats): Promise<TreeEntry> {
  const mode = st.mode & 0o7777
  if (st.isDirectory()) return { type: 'dir', path, mode }
  if (st.isSymbolicLink()) return { type: 'symlink', path, target: readlinkSync(join(root, path)) }
  if (!st.isFile()) return { type: 'skipped', path, kind: SKIPPED_KIND(st) }
  try {
    return { type: 'file', path, mode, size: st.size, sha256: await sha256File(join(root, path)) }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EACCES') return { type: 'skipped', path, kind: 'unreadable' }
    throw e
  }
}

/** Regular files and their bytes in a listing (as restored: a content twice counts twice). */
export function treeSize(entries: readonly TreeEntry[]): { files: number; bytes: number } {
  const files = entries.filter((e) => e.type === 'file')
  return { files: files.length, bytes: files.reduce((a, e) => a + e.size, 0) }
}

/** The distinct contents of listings: sha256 → size (what they take in the archive, deduplicated). */
export function distinctObjects(trees: readonly (readonly TreeEntry[])[]): Map<string, number> {
  const seen = new Map<string, number>()
  for (const t of trees) for (const e of t) if (e.type === 'file') seen.set(e.sha256, e.size)
  return seen
}
