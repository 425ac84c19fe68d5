import { getProfile } from '../catalog/profiles.ts'
import { loadStack, newestVersion, PROXIES, type ProxyName, type Stack } from '../catalog/stack.ts'
import { compareParsed, parseVersion } from '../catalog/version-order.ts'
import { userError } from '../core/errors.ts'
import { commaList } from '../core/names.ts'
import type { Logger } from '../core/log.ts'
import { BASELINES_DIR, listBaselines, loadBaseline } from '../data/baselines.ts'
import type { RunData } from '../data/run-data.ts'
import { isSeriesName } from '../data/series.ts'
import { knownVariants } from '../series/focus.ts'
import { MULTI_VERSION_SERIES } from '../series/then.ts'

/**
 * `--like <baseline-id>`: the run flags that repeat a promoted baseline: its profile,
 * series, proxies, repeats, window, connections, variants and key types, runtime, and the
 * versions it measured; where a version is no longer in the catalog, the proxy's newest
 * instead, and each such change is a note the comparison section prints.
 */
export interface LikeFlags {
  flags: Record<string, string>
  /** The versions of each proxy in `flags.versions`: a run of fewer proxies (--proxies beside --like) keeps theirs only. */
  versionsByProxy: Record<string, string[]>
  /** The version each proxy's one-version series ran in the baseline: its then side (lib/series/then.ts). */
  then: Record<string, string>
  /** The closed model's connections when they differ from the profile's (no flag sets them). */
  connections?: number
  notes: string[]
}

/** `--variants x` or `--variants=x` in an argv. */
const argOf = (argv: readonly string[], flag: string): string | undefined => {
  const i = argv.indexOf(flag)
  if (i >= 0) return argv[i + 1]
  return argv.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1)
}

const byVersion = (a: string, b: string) => {
  const [pa, pb] = [parseVersion(a), parseVersion(b)]
  return pa && pb ? compareParsed(pa, pb) : a.localeCompare(b)
}

/** The baseline of `--like`: a promoted run (a published one has no settings to repeat); else one line naming the known ones. */
export function likeBaseline(id: string, dir = BASELINES_DIR): RunData {
  const runs = listBaselines(dir)
    .filter((b) => b.kind === 'run')
    .map((b) => b.id)
  const known = listBaselines(dir).find((b) => b.id === id)
  if (!known)
    throw userError(
      `--like ${id}`,
      `unknown baseline (promoted runs: ${runs.join(', ') || 'none'})`,
      'Use one of those (baselines/runs/<id>), or promote a run: npm run promote -- results/<run-id>',
    )
  const b = loadBaseline(id, dir)
  if (b.kind !== 'run')
    throw userError(
      `--like ${id}`,
      'a published baseline (quoted figures, no manifest): it has no run settings to repeat',
      `Use a promoted run: ${runs.join(', ') || 'none yet'}; compare with it through --baseline ${id}`,
    )
  return b.run
}

/** The flags of a run like the baseline; `stacks` is the catalog now (a test passes its own). */
export function likeFlags(base: RunData, stacks: (p: ProxyName) => Stack = loadStack): LikeFlags {
  const m = base.manifest
  const notes: string[] = []
  const flags: Record<string, string> = { profile: m.profile, runtime: m.runtime }
  const series = m.series.filter(isSeriesName)
  for (const s of m.series.filter((s) => !isSeriesName(s))) notes.push(`series ${s} of the baseline is not a series of this harness: not run`)
  flags.series = series.join(',')
  const proxies = m.proxies.filter((p): p is ProxyName => (PROXIES as readonly string[]).includes(p))
  flags.proxies = proxies.join(',')
  const profile = getProfile(m.profile)
  const ps = m.profile_settings
  // A profile with paired rounds measures the pairs by them, whatever windows the baseline had.
  if (!profile.paired && ps.repeats !== profile.repeats) flags.repeats = String(ps.repeats)
  if (!profile.paired && ps.duration_s !== profile.durationS) flags.duration = String(ps.duration_s)
  const connections = ps.connections !== profile.connections ? ps.connections : undefined
  // Focus flags of the invocation that started the baseline, when it had them.
  const argv = m.invocations?.[0]?.argv ?? []
  const variants = likeVariants(argOf(argv, '--variants'), proxies, notes)
  if (variants) flags.variants = variants
  const keyTypes = argOf(argv, '--key-types')
  if (keyTypes !== undefined) flags['key-types'] = keyTypes
  if (m.custom_configs.length)
    notes.push(`the baseline's own configs (${m.custom_configs.map((c) => `${c.proxy}=${c.file}`).join(', ')}) are not repeated: pass them with --config`)
  const versionsByProxy = Object.fromEntries(proxies.map((proxy) => [proxy, likeVersions(base, proxy, stacks(proxy), notes)]))
  const versions = new Set(Object.values(versionsByProxy).flat())
  if (versions.size) flags.versions = [...versions].sort(byVersion).join(',')
  // The one-version series (pooling's main series, TLS, WebSocket…) run today's version (now) beside the baseline's build of its own (then).
  const then = Object.fromEntries(proxies.flatMap((proxy) => likeThen(base, proxy, notes)))
  return { flags, versionsByProxy, then, ...(connections !== undefined ? { connections } : {}), notes }
}

/** The baseline's --variants (when it had them) that the catalog still has, joined; a note for each it lacks. */
function likeVariants(variants: string | undefined, proxies: readonly ProxyName[], notes: string[]): string | undefined {
  if (variants === undefined) return undefined
  const known = knownVariants(proxies, [])
  const asked = commaList(variants)
  const kept = asked.filter((v) => known.includes(v))
  for (const v of asked.filter((v) => !known.includes(v))) notes.push(`variant ${v} of the baseline is not in the catalog (or a custom config): not run`)
  return kept.length ? kept.join(',') : undefined
}

/** The versions of the proxy's rows in the baseline, of every series or (`oneVersion`) of the one-version series only, oldest first. */
function baselineVersions(base: RunData, proxy: string, oneVersion: boolean): string[] {
  const rows = [...base.measurements, ...base.handshakes, ...base.websocket].filter(
    (r) => r.proxy === proxy && !(oneVersion && MULTI_VERSION_SERIES.has(r.series)),
  )
  return [...new Set(rows.map((r) => r.version))].sort(byVersion)
}

/**
 * Versions: those the baseline measured (its rows, else its components), where the catalog
 * still has them; the newest instead when one has left it, with a note.
 */
function likeVersions(base: RunData, proxy: ProxyName, stack: Stack, notes: string[]): string[] {
  const measured = baselineVersions(base, proxy, false)
  const had = measured.length ? measured : base.manifest.components.filter((c) => c.component === proxy).map((c) => c.version)
  const inCatalog = had.filter((v) => stack.versions.some((x) => x.version === v))
  const gone = had.filter((v) => !inCatalog.includes(v))
  const newest = newestVersion(stack).version
  if (gone.length === 0) return [...inCatalog]
  notes.push(
    `${proxy} ${gone.join(', ')} ${gone.length > 1 ? 'are' : 'is'} no longer in the catalog: ${inCatalog.includes(newest) ? 'not measured' : `the newest, ${newest}, measured instead`}`,
  )
  return inCatalog.includes(newest) ? [...inCatalog] : [...inCatalog, newest]
}

/** The version the baseline's one-version series ran (the newest when several did, with a note), measured as then: `[proxy, version]`, or none. */
function likeThen(base: RunData, proxy: ProxyName, notes: string[]): [string, string][] {
  const ran = baselineVersions(base, proxy, true)
  const last = ran.at(-1)
  if (ran.length > 1) notes.push(`${proxy}: the baseline's one-version series ran ${ran.join(', ')}; ${last} is measured beside today's`)
  return last ? [[proxy, last]] : []
}

/**
 * Run flags with `--like ID` expanded: the baseline's settings under the flags given beside
 * it (those win), and --baseline defaulting to it so the report compares with it.
 */
export function withLike<F extends { like?: string; baseline?: string; series?: string }>(
  flags: F,
  log: Logger,
  o: { fixedSeries?: boolean } = {},
): { flags: F; like?: LikeFlags & { id: string } } {
  if (flags.like === undefined) return { flags }
  const like = likeFlags(likeBaseline(flags.like))
  const taken = { ...like.flags }
  if (o.fixedSeries) delete taken.series
  const given = Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as Record<string, unknown>
  // Fewer proxies than the baseline's: only their versions (another proxy's would be an unknown version).
  if (typeof given.proxies === 'string' && taken.versions !== undefined) {
    const kept = new Set(given.proxies.split(',').flatMap((p) => like.versionsByProxy[p.trim()] ?? []))
    if (kept.size)
      taken.versions = taken.versions
        .split(',')
        .filter((v) => kept.has(v))
        .join(',')
    else delete taken.versions
  }
  // A flag given beside --like is a difference from the baseline: said, like a version that left the catalog.
  const overridden = Object.keys(taken)
    .filter((k) => given[k] !== undefined && given[k] !== taken[k])
    .map((k) => `--${k} ${String(given[k])} given beside --like (the baseline's: ${taken[k]})`)
  const notes = [...like.notes, ...overridden]
  log.info(
    `--like ${flags.like}: ${Object.entries(taken)
      .map(([k, v]) => `--${k} ${v}`)
      .join(' ')}${like.connections ? ` (${like.connections} connections)` : ''}`,
  )
  for (const n of notes) log.warn(`--like ${flags.like}: ${n}`)
  return { flags: { ...taken, ...given, baseline: flags.baseline ?? flags.like } as F, like: { ...like, notes, id: flags.like } }
}
