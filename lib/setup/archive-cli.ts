import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { displayPath, repoRoot } from '../core/paths.ts'
import { formatTable } from '../core/text-table.ts'
import { archiveComponents, archiveDir, type ArchivedBuild, findComponent, listArchived, proxyComponents } from '../data/archive-index.ts'
import { BASELINES_DIR } from '../data/baselines.ts'
import { MANIFEST_FILE } from '../data/manifest.ts'
import { PROXIES, versionKey } from '../catalog/stack.ts'
import { compressionOf, exportArchive, importArchive } from './archive-pack.ts'
import { archiveMeasured } from './build-archive.ts'
import { setup } from './doctor.ts'
import { distinctObjects, MB, readTree } from './archive-tree.ts'

/** `npm run archive -- list | export ID FILE [--force] | import FILE` (notebooks/archive.mjs; docs/archive.md): what each prints, and its exit status. */
export interface CommandResult {
  out: string[]
  code: number
}

const USAGE = 'Use: npm run archive -- list | add | export <run-id|baseline-id> FILE [--force] | import FILE (see --help)'

const row = (b: ArchivedBuild) => ({ proxy: b.proxy, version: b.version, build: b.build, source: b.source, files: b.files, size: MB(b.bytes) })
const COLUMNS = ['proxy', 'version', 'build', 'source', 'files', 'size']

/** Deduplicated size of builds: each distinct content once, as the archive and an export hold it. */
function dedupSize(builds: readonly ArchivedBuild[]): { files: number; bytes: number } {
  const objects = distinctObjects(builds.map((b) => readTree(b.tree)))
  return { files: objects.size, bytes: [...objects.values()].reduce((a, b) => a + b, 0) }
}

export function listCommand(): CommandResult {
  const builds = listArchived()
  if (builds.length === 0)
    return { out: [`the archive is empty (${archiveDir()}); a run archives the builds it measured, npm run archive -- add every one set up here`], code: 0 }
  const all = builds.reduce((a, b) => a + b.bytes, 0)
  const d = dedupSize(builds)
  return {
    out: [
      formatTable(builds.map(row), COLUMNS),
      `${builds.length} builds, ${MB(all)} in all, ${MB(d.bytes)} deduplicated (${d.files} distinct files) in ${archiveDir()}`,
    ],
    code: 0,
  }
}

/** The run folder an id names: a path to a run, results/<id>, or a promoted baseline baselines/runs/<id>. */
export function runDirOf(id: string): string {
  const places = [resolve(id), join(repoRoot, 'results', id), join(BASELINES_DIR, id)]
  const hit = places.find((d) => existsSync(join(d, MANIFEST_FILE)))
  if (!hit)
    throw userError(
      id,
      `no ${MANIFEST_FILE} in results/${id}/ or ${displayPath(join(BASELINES_DIR, id))}/`,
      'Name a run id (ls results/), a baseline id (ls baselines/runs/) or a run folder',
    )
  return hit
}

export async function exportCommand(id: string, file: string, log: Logger, o: { force?: boolean } = {}): Promise<CommandResult> {
  const started = Date.now()
  compressionOf(file)
  // Refused before anything is read or written: an earlier export is often the only copy of its builds.
  if (!o.force && existsSync(file)) throw userError(file, 'already exists', 'Pass --force to replace it, or name another file')
  const dir = runDirOf(id)
  const proxies = proxyComponents(archiveComponents(dir) ?? [])
  const found = proxies.map((c) => ({ c, b: findComponent(c) }))
  const missing = found
    .filter((f) => !f.b)
    .map(({ c }) => `missing: ${c.component} ${c.version} (binary ${c.sha256.slice(0, 12)}): not in the archive on this machine`)
  const builds = [...new Map(found.flatMap((f) => (f.b ? [[f.b.tree + f.b.binary_sha256, f.b] as const] : []))).values()]
  if (builds.length === 0)
    return { out: [...missing, `nothing to export: no proxy build of ${displayPath(dir)} is archived here (${proxies.length} proxy components)`], code: 1 }
  const sizes = await exportArchive(builds, file, log)
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  return {
    out: [
      formatTable(builds.map(row), COLUMNS),
      ...missing,
      `in all: ${builds.length} builds, ${sizes.files} distinct files, ${MB(sizes.bytes)} deduplicated, ${MB(sizes.compressedBytes)} compressed → ${displayPath(resolve(file))} (${seconds}s)`,
      `on the other machine: npm run archive -- import ${file}`,
    ],
    code: missing.length > 0 ? 1 : 0,
  }
}

export async function importCommand(file: string, log: Logger): Promise<CommandResult> {
  const started = Date.now()
  const before = new Set(listArchived().map((b) => `${b.proxy} ${b.version} ${b.binary_sha256} ${b.tree}`))
  const builds = await importArchive(file, log)
  const seconds = ((Date.now() - started) / 1000).toFixed(1)
  const added = builds.filter((b) => !before.has(`${b.proxy} ${b.version} ${b.binary_sha256} ${b.tree}`))
  return {
    out: [
      ...builds.map((b) => `${added.includes(b) ? 'added  ' : 'had    '} ${b.proxy} ${b.version} (${b.build}, ${b.source}): ${b.files} files, ${MB(b.bytes)}`),
      `imported ${displayPath(resolve(file))}: ${added.length} of ${builds.length} builds new, every hash verified (${seconds}s) into ${archiveDir()}`,
    ],
    code: 0,
  }
}

/** Keeps every catalog version set up on this machine (before its source moves), then lists the archive. */
export async function addCommand(log: Logger): Promise<CommandResult> {
  const started = Date.now()
  const rows = await setup({ proxies: PROXIES, install: false, log, engine: false })
  const proxies = rows.filter((r) => (PROXIES as readonly string[]).includes(r.component))
  const trees = await archiveMeasured(proxies, new Set(proxies.map((r) => versionKey(r.component, r.version))), log)
  const listed = listCommand()
  return {
    out: [...listed.out, `added or had ${trees.size} of ${proxies.length} catalog versions in ${((Date.now() - started) / 1000).toFixed(1)} s`],
    code: 0,
  }
}

/** The sub-command and its arguments, checked: a wrong one is a one-line error naming it. */
export async function archiveCommand(args: readonly string[], log: Logger, o: { force?: boolean } = {}): Promise<CommandResult> {
  const [sub, ...rest] = args
  const want = (n: number, names: string) => {
    if (rest.length !== n) throw userError(`archive ${sub}`, `takes ${names}, got ${rest.length} argument${rest.length === 1 ? '' : 's'}`, USAGE)
  }
  if (sub === 'list') return (want(0, 'no argument'), listCommand())
  if (sub === 'add') return (want(0, 'no argument'), addCommand(log))
  if (sub === 'export') return (want(2, '<run-id|baseline-id> FILE'), exportCommand(rest[0]!, rest[1]!, log, o))
  if (sub === 'import') return (want(1, 'FILE'), importCommand(rest[0]!, log))
  throw userError('notebooks/archive.mjs', sub === undefined ? 'no sub-command' : `unknown sub-command '${sub}'`, USAGE)
}
