import { randomBytes } from 'node:crypto'
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fsyncFile, replaceDir, writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import { sha256File, sha256Text } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'
import { archiveDir, type ArchivedBuild, findArchived, indexPath } from '../data/archive-index.ts'
import { entryOf, listingText, MB, objectPath, readTree, type TreeEntry, treePath, treeSize, walk } from './archive-tree.ts'

/**
 * The archive of what was measured (docs/archive.md): every file of a build's root kept
 * content-addressed under the cache, its tree listing and an index entry, so the exact
 * binaries can be measured again later or carried to another machine (exportArchive).
 */
export { archiveDir, type ArchivedBuild, findArchived } from '../data/archive-index.ts'
export { exportArchive, importArchive } from './archive-pack.ts'

const quiet: Logger = { info: () => {}, warn: () => {}, progress: () => {} }
const tmpName = (file: string) => `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`

/**
 * Puts one file's content into the archive under its sha256 (a temp copy beside it, checked,
 * fsynced, renamed): the bytes added, 0 when that content is there already.
 */
export async function storeObject(src: string, sha256: string, dir = archiveDir()): Promise<number> {
  const target = objectPath(sha256, dir)
  if (existsSync(target)) return 0
  mkdirSync(dirname(target), { recursive: true })
  const tmp = tmpName(target)
  try {
    copyFileSync(src, tmp)
    if ((await sha256File(tmp)) !== sha256) throw userError(src, 'changed while it was archived', 'Archive it again once nothing writes to it')
    fsyncFile(tmp)
    renameSync(tmp, target)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
  return lstatSync(target).size
}

/** The archived build, when its index entry, listing and every object are there. */
function complete(b: ArchivedBuild | undefined, dir: string): ArchivedBuild | undefined {
  if (!b || !existsSync(treePath(b.tree, dir))) return undefined
  try {
    return readTree(b.tree, dir).every((e) => e.type !== 'file' || existsSync(objectPath(e.sha256, dir))) ? b : undefined
  } catch {
    return undefined
  }
}

/** Lists and hashes a root, storing every new content: its entries and the bytes added. */
async function storeTree(root: string, label: string, log: Logger, dir: string): Promise<{ entries: TreeEntry[]; newBytes: number }> {
  const walked = walk(root)
  const entries: TreeEntry[] = []
  let newBytes = 0
  let last = 0
  for (const [i, w] of walked.entries()) {
    const e = await entryOf(root, w.path, w.st)
    if (e.type === 'file') newBytes += await storeObject(join(root, e.path), e.sha256, dir)
    entries.push(e)
    if (Date.now() - last > 1000 || i === walked.length - 1) {
      last = Date.now()
      log.progress(`archive ${label}: ${i + 1}/${walked.length} entries, ${MB(newBytes)} new`)
    }
  }
  return { entries, newBytes }
}

/**
 * Keeps the files under `root` content-addressed (objects/<aa>/<sha256>, one per distinct
 * content: suite roots share most files) plus the tree listing (path, mode, type, size,
 * sha256 or symlink target) and an index entry per build. Idempotent and cheap when the
 * build is already archived (same proxy, version, binary sha256).
 */
export async function archiveBuild(
  b: { proxy: string; version: string; build: string; source: string; root: string; binary: string },
  log: Logger = quiet,
): Promise<ArchivedBuild & { newBytes: number }> {
  const dir = archiveDir()
  const bin = join(b.root, b.binary)
  if (!existsSync(bin) || !lstatSync(bin).isFile())
    throw userError(bin, `not a regular file under ${b.root}`, `Install ${b.proxy} ${b.version} again (npm run setup)`)
  const binarySha256 = await sha256File(bin)
  const file = indexPath(b.proxy, b.version, binarySha256, dir)
  const had = complete(findArchived(b.proxy, b.version, binarySha256, dir), dir)
  if (had) return { ...had, newBytes: 0 }
  const { entries, newBytes } = await storeTree(b.root, `${b.proxy} ${b.version}`, log, dir)
  const listed = entries.find((e) => e.path === b.binary)
  if (listed?.type !== 'file' || listed.sha256 !== binarySha256)
    throw userError(bin, 'changed while it was archived', 'Archive it again once nothing writes to it')
  const text = listingText(entries)
  const tree = sha256Text(text)
  writeFileAtomic(treePath(tree, dir), text)
  const entry: ArchivedBuild = {
    proxy: b.proxy,
    version: b.version,
    build: b.build,
    source: b.source,
    binary: b.binary,
    binary_sha256: binarySha256,
    tree,
    ...treeSize(entries),
  }
  mkdirSync(dirname(file), { recursive: true })
  writeFileAtomic(file, JSON.stringify(entry, null, 2) + '\n')
  log.info(`archived ${b.proxy} ${b.version} (${b.build}): ${entry.files} files, ${MB(entry.bytes)}, ${MB(newBytes)} new`)
  return { ...entry, newBytes }
}

/** One listed entry into the tree being restored; a file is copied from its object and its hash checked where it landed. */
async function restoreEntry(e: TreeEntry, tmp: string, dir: string): Promise<void> {
  const to = join(tmp, e.path)
  if (e.type === 'dir') return void mkdirSync(to, { recursive: true })
  if (e.type === 'skipped') return
  mkdirSync(dirname(to), { recursive: true })
  if (e.type === 'symlink') return void symlinkSync(e.target, to)
  const obj = objectPath(e.sha256, dir)
  if (!existsSync(obj)) throw userError(obj, `missing from the archive (${e.path})`, 'Import the build again (npm run archive -- import FILE)')
  copyFileSync(obj, to)
  if ((await sha256File(to)) !== e.sha256) throw userError(obj, `does not match its sha256 (${e.path}: corrupted)`, 'Remove it and import the build again')
  chmodSync(to, e.mode)
}

/**
 * Restores a build's tree into dest (a temp dir renamed on success), verifying every file's
 * hash; an object missing or not matching its hash is a one-line error naming it.
 */
export async function restoreBuild(b: ArchivedBuild, dest: string): Promise<void> {
  const dir = archiveDir()
  const entries = readTree(b.tree, dir)
  const tmp = tmpName(dest)
  try {
    mkdirSync(tmp, { recursive: true })
    for (const e of entries) await restoreEntry(e, tmp, dir)
    // Folder modes last, deepest first: a read-only folder would refuse what goes into it.
    for (const e of [...entries].reverse()) if (e.type === 'dir') chmodSync(join(tmp, e.path), e.mode)
    replaceDir(tmp, dest, `${tmp}.old`)
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true })
    throw e
  }
}
