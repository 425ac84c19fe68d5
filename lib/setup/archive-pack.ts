import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fsyncFile, writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import { exec, lastLine } from '../core/exec.ts'
import { sha256File, sha256Text } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'
import { archiveDir, type ArchivedBuild, archivedBuildSchema, indexPath } from '../data/archive-index.ts'
import { distinctObjects, MB, objectPath, parseListing, readTree, type TreeEntry, treePath, walk } from './archive-tree.ts'

/**
 * An archive export: one compressed tar (GNU tar) holding exactly the objects of the named
 * builds, their tree listings and index entries, and LISTING.txt for a human. gzip unless
 * the name asks for zstd: every machine with tar reads gzip, the export's point is to be
 * read elsewhere; zstd (`.tar.zst`) is smaller and faster where both ends have it.
 */
const quiet: Logger = { info: () => {}, warn: () => {}, progress: () => {} }
const LISTING = 'LISTING.txt'
const SHA = '[0-9a-f]{64}'
const SEG = '[A-Za-z0-9][A-Za-z0-9.+~:_-]*'

/** tar's compression flag for an export's name; another name is a one-line error. */
export function compressionOf(file: string): '--gzip' | '--zstd' {
  if (/\.(tar\.gz|tgz)$/.test(file)) return '--gzip'
  if (/\.(tar\.zst|tzst)$/.test(file)) return '--zstd'
  throw userError(file, 'not a name an export can take', 'Name it FILE.tar.gz (gzip: read everywhere) or FILE.tar.zst (zstd: smaller, faster)')
}

/** LISTING.txt: each build, then every entry of its tree, the way a person checks what the file holds. */
export function humanListing(builds: readonly ArchivedBuild[], trees: readonly (readonly TreeEntry[])[], objects: ReadonlyMap<string, number>): string {
  const total = [...objects.values()].reduce((a, b) => a + b, 0)
  const out = [
    `proxybench archive export: ${builds.length} builds, ${objects.size} distinct files, ${MB(total)} (deduplicated)`,
    'import it: npm run archive -- import FILE (every hash is checked)',
  ]
  builds.forEach((b, i) => {
    out.push('', `${b.proxy} ${b.version}  build ${b.build}  source ${b.source}  binary ${b.binary} sha256 ${b.binary_sha256}`)
    out.push(`  tree ${b.tree}  ${b.files} files  ${MB(b.bytes)}`)
    for (const e of trees[i]!) {
      if (e.type === 'file') out.push(`  file    ${e.mode.toString(8).padStart(4, '0')} ${String(e.size).padStart(10)} ${e.sha256} ${e.path}`)
      else if (e.type === 'dir') out.push(`  dir     ${e.mode.toString(8).padStart(4, '0')} ${e.path}/`)
      else if (e.type === 'symlink') out.push(`  symlink ${e.path} -> ${e.target}`)
      else out.push(`  skipped ${e.path} (${e.kind})`)
    }
  })
  return out.join('\n') + '\n'
}

/** Writes one export file of these builds (a temp file renamed when tar has finished). */
export async function exportArchive(
  builds: readonly ArchivedBuild[],
  file: string,
  log: Logger = quiet,
): Promise<{ files: number; bytes: number; compressedBytes: number }> {
  const compress = compressionOf(file)
  if (builds.length === 0) throw userError(file, 'no archived build to export', 'Archive the builds first: npm run setup archives what it installs')
  const dir = archiveDir()
  const trees = builds.map((b) => readTree(b.tree, dir))
  const objects = distinctObjects(trees)
  for (const sha of objects.keys())
    if (!existsSync(objectPath(sha, dir))) throw userError(objectPath(sha, dir), 'missing from the archive', 'Archive or import the build again')
  const bytes = [...objects.values()].reduce((a, b) => a + b, 0)
  const names = [
    ...[...objects.keys()].map((s) => relative(dir, objectPath(s, dir))),
    ...builds.map((b) => relative(dir, treePath(b.tree, dir))),
    ...builds.map((b) => relative(dir, indexPath(b.proxy, b.version, b.binary_sha256, dir))),
  ]
  const stage = mkdtempSync(join(tmpdir(), 'pb-export-'))
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    writeFileAtomic(join(stage, LISTING), humanListing(builds, trees, objects))
    writeFileAtomic(join(stage, 'names'), [...new Set(names)].join('\n') + '\n')
    log.info(`export: ${builds.length} builds, ${objects.size} files, ${MB(bytes)} through tar ${compress}…`)
    const r = await exec('tar', ['-c', compress, '-f', tmp, '-C', stage, LISTING, '-C', dir, '--verbatim-files-from', '-T', join(stage, 'names')])
    if (r.code !== 0)
      throw userError(
        file,
        `tar failed (${lastLine(r.stderr)})`,
        'Check the folder is writable and has room, and that tar (and zstd for .tar.zst) is installed',
      )
    fsyncFile(tmp)
    renameSync(tmp, file)
  } finally {
    rmSync(tmp, { force: true })
    rmSync(stage, { recursive: true, force: true })
  }
  return { files: objects.size, bytes, compressedBytes: statSync(file).size }
}

/** What an unpacked export holds, by kind; anything else in it (a link, another file) is a one-line error. */
function layoutOf(stage: string, file: string): { objects: string[]; trees: string[]; index: string[] } {
  const found = { objects: [] as string[], trees: [] as string[], index: [] as string[] }
  const dirOk = new RegExp(`^(objects|objects/[0-9a-f]{2}|trees|index|index/${SEG}|index/${SEG}/${SEG})$`)
  for (const { path, st } of walk(stage)) {
    if (st.isDirectory() && dirOk.test(path)) continue
    const obj = new RegExp(`^objects/([0-9a-f]{2})/(${SHA})$`).exec(path)
    if (st.isFile() && obj && obj[2]!.startsWith(obj[1]!)) found.objects.push(obj[2]!)
    else if (st.isFile() && new RegExp(`^trees/${SHA}$`).test(path)) found.trees.push(path.slice(6))
    else if (st.isFile() && new RegExp(`^index/${SEG}/${SEG}/${SHA}\\.json$`).test(path)) found.index.push(path)
    else if (!(st.isFile() && path === LISTING))
      throw userError(`${file}: ${path}`, 'not part of an archive export', 'Nothing was imported; export it again: npm run archive -- export <id> FILE')
  }
  return found
}

const tampered = (file: string, path: string, what: string) =>
  userError(`${file}: ${path}`, `${what} (tampered or corrupted)`, 'Nothing was imported; export it again from the machine that has it')

/** The export's index entries, each checked: named as filed, its listing matching its address, every object it needs at hand. */
function checkBuilds(stage: string, found: { objects: string[]; trees: string[]; index: string[] }, file: string): ArchivedBuild[] {
  const dir = archiveDir()
  const have = new Set(found.objects)
  return found.index.map((path) => {
    const b = readIndexEntry(stage, path, file)
    const entries = checkedTree(b, found.trees.includes(b.tree) ? treePath(b.tree, stage) : treePath(b.tree, dir), file, path)
    const bin = entries.find((e) => e.path === b.binary)
    if (bin?.type !== 'file' || bin.sha256 !== b.binary_sha256) throw tampered(file, path, `its binary ${b.binary} is not in its tree with that sha256`)
    for (const e of entries)
      if (e.type === 'file' && !have.has(e.sha256) && !existsSync(objectPath(e.sha256, dir)))
        throw tampered(file, `objects/${e.sha256.slice(0, 2)}/${e.sha256}`, `missing (${b.proxy} ${b.version}: ${e.path})`)
    return b
  })
}

/** An index entry of the export, checked: it parses, and is filed under the name it names. */
function readIndexEntry(stage: string, path: string, file: string): ArchivedBuild {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(join(stage, path), 'utf8'))
  } catch {}
  const r = archivedBuildSchema.safeParse(json)
  if (!r.success) throw tampered(file, path, 'not an index entry')
  const b = r.data
  if (relative(stage, indexPath(b.proxy, b.version, b.binary_sha256, stage)) !== path) throw tampered(file, path, 'filed under another name than it names')
  return b
}

/** The tree listing an entry names (in the export, else already in the archive), checked against its sha256. */
function checkedTree(b: ArchivedBuild, treeFile: string, file: string, path: string) {
  if (!existsSync(treeFile)) throw tampered(file, path, `its tree listing ${b.tree.slice(0, 12)} is missing`)
  const text = readFileSync(treeFile)
  if (sha256Text(text) !== b.tree) throw tampered(file, `trees/${b.tree}`, 'does not match its sha256')
  return parseListing(text.toString('utf8'), `${file}: trees/${b.tree}`)
}

/** Moves checked files into the archive: objects, then listings, then index entries (a crash leaves unused objects, never an entry without its files). */
function land(stage: string, found: { objects: string[]; trees: string[]; index: string[] }): void {
  const dir = archiveDir()
  const move = (from: string, to: string, replace: boolean) => {
    if (!replace && existsSync(to)) return
    mkdirSync(dirname(to), { recursive: true })
    fsyncFile(from)
    renameSync(from, to)
  }
  for (const s of found.objects) move(objectPath(s, stage), objectPath(s, dir), false)
  for (const t of found.trees) move(treePath(t, stage), treePath(t, dir), false)
  for (const p of found.index) move(join(stage, p), join(dir, p), true)
}

/** Verifies every object's hash, every listing and entry, before anything lands; nothing half-imported. */
export async function importArchive(file: string, log: Logger = quiet): Promise<ArchivedBuild[]> {
  if (!existsSync(file)) throw userError(file, 'no such file', 'Name an export written by: npm run archive -- export <id> FILE')
  const dir = archiveDir()
  mkdirSync(dir, { recursive: true })
  const stage = join(dir, `.import-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    mkdirSync(stage)
    log.info(`import: unpacking ${file}…`)
    const r = await exec('tar', ['-x', '-f', file, '-C', stage, '--no-same-owner', '--no-same-permissions'])
    if (r.code !== 0)
      throw userError(file, `not a readable export (tar: ${lastLine(r.stderr)})`, 'Nothing was imported; export it again: npm run archive -- export <id> FILE')
    const found = layoutOf(stage, file)
    let last = 0
    for (const [i, s] of found.objects.entries()) {
      if ((await sha256File(objectPath(s, stage))) !== s) throw tampered(file, `objects/${s.slice(0, 2)}/${s}`, 'does not match its sha256')
      if (Date.now() - last > 1000) (last = Date.now()), log.progress(`import: ${i + 1}/${found.objects.length} files verified`)
    }
    const builds = checkBuilds(stage, found, file)
    if (builds.length === 0) throw userError(file, 'holds no archived build', 'Export it again: npm run archive -- export <id> FILE')
    land(stage, found)
    return builds
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}
