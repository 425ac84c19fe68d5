import { userError } from '../core/errors.ts'
import { commaList } from '../core/names.ts'
import { compareVersions, loadStack, PROXIES, type ProxyName, type Stack, type StackVersion } from './stack.ts'

/**
 * `--versions`: which catalog versions a run measures where a series takes several (the
 * versions series, nginx's literal/upstream extras). Series that measure one version per
 * proxy keep the newest.
 * - all: every catalog version;
 * - newest: the newest of each proxy;
 * - ends: the oldest, the newest and the April 2025 ones (the quick profile's default: the
 *   catalog grew from two versions a proxy to up to eight, quick keeps its time budget);
 * - a list of versions (`1.26.3,3.0.11`): those, on the proxies that have them.
 */
export type VersionChoice = { kind: 'all' | 'newest' | 'ends' } | { kind: 'list'; versions: string[] }

export const VERSION_CHOICE_NAMES = ['all', 'newest', 'ends'] as const

/** What a profile measures without --versions: smoke and quick the ends, the others all. */
export function defaultVersionChoice(profile: string): VersionChoice {
  return { kind: profile === 'smoke' || profile === 'quick' ? 'ends' : 'all' }
}

/** Catalog versions of one stack a choice keeps, oldest first. */
export function chooseVersions(stack: Pick<Stack, 'versions'>, choice: VersionChoice): StackVersion[] {
  const sorted = [...stack.versions].sort((a, b) => compareVersions(a.version, b.version))
  switch (choice.kind) {
    case 'all':
      return sorted
    case 'newest':
      return sorted.slice(-1)
    case 'ends':
      return sorted.filter((v, i) => i === 0 || i === sorted.length - 1 || v.april_2025)
    case 'list':
      return sorted.filter((v) => choice.versions.includes(v.version))
  }
}

/**
 * The versions where the documentation says a variant changes: for each `reuse: "from X"`
 * and `since: X` of stack.yaml, the newest catalog version below X and the oldest from X on.
 * With the oldest and the newest, what CI's pool detector measures of each proxy
 * (test/integration/pool-table.test.ts; every version: `npm run pool-table`).
 */
export function changeVersions(stack: Pick<Stack, 'versions' | 'variants'>): StackVersion[] {
  const sorted = [...stack.versions].sort((a, b) => compareVersions(a.version, b.version))
  const at = Object.values(stack.variants).flatMap((v) => [
    ...(typeof v.reuse === 'string' && v.reuse.startsWith('from ') ? [v.reuse.slice('from '.length)] : []),
    ...(v.since ? [v.since] : []),
  ])
  const kept = new Set(
    at.flatMap((x) => [sorted.filter((v) => compareVersions(v.version, x) < 0).at(-1), sorted.find((v) => compareVersions(v.version, x) >= 0)]),
  )
  return sorted.filter((v) => kept.has(v))
}

/**
 * `--pin-versions haproxy=2.8.25,nginx=1.31.3`: the version each series that measures one
 * version per proxy runs (pooling's main series, TLS, WebSocket, the scenarios…) instead of
 * the newest; --like sets it to the baseline's. Proxies not named keep the newest.
 */
export type PinnedVersions = Partial<Record<ProxyName, string>>

/** The stack version a cell of a one-version series runs: the pinned one, else the newest. */
export function pinnedVersion(stack: Pick<Stack, 'proxy' | 'versions'>, pinned: PinnedVersions | undefined): StackVersion | undefined {
  const v = pinned?.[stack.proxy]
  return v === undefined ? undefined : stack.versions.find((x) => x.version === v)
}

export function parsePinnedVersions(value: string, stacks: (p: ProxyName) => Pick<Stack, 'versions'> = loadStack): PinnedVersions {
  const out: PinnedVersions = {}
  for (const part of commaList(value)) {
    const [proxy, version] = part.split('=').map((s) => s.trim())
    if (!proxy || !version)
      throw userError('--pin-versions', `cannot read "${part}"`, 'Write proxy=version pairs, e.g. --pin-versions haproxy=2.8.25,nginx=1.31.3')
    if (!(PROXIES as readonly string[]).includes(proxy)) throw userError('--pin-versions', `unknown proxy "${proxy}"`, `Use one of: ${PROXIES.join(', ')}`)
    const known = stacks(proxy as ProxyName).versions.map((x) => x.version)
    if (!known.includes(version)) throw userError('--pin-versions', `${proxy} has no catalog version "${version}"`, `Use one of: ${known.join(', ')}`)
    out[proxy as ProxyName] = version
  }
  if (Object.keys(out).length === 0)
    throw userError('--pin-versions', `"${value}" names no version`, 'Write proxy=version pairs, e.g. --pin-versions haproxy=2.8.25')
  return out
}

/** `--versions all|newest|ends|LIST`; a version no selected proxy has is a one-line error listing theirs. */
export function parseVersionChoice(value: string, proxies: readonly ProxyName[], stacks: (p: ProxyName) => Pick<Stack, 'versions'> = loadStack): VersionChoice {
  const v = value.trim()
  if ((VERSION_CHOICE_NAMES as readonly string[]).includes(v)) return { kind: v as 'all' | 'newest' | 'ends' }
  const names = commaList(v)
  const known = proxies.flatMap((p) => stacks(p).versions.map((x) => `${p} ${x.version}`))
  if (names.length === 0)
    throw userError('--versions', `"${value}" names no version`, `Use all, newest, ends or a comma-separated list of catalog versions (${known.join(', ')})`)
  for (const n of names) {
    if (!known.some((k) => k.endsWith(` ${n}`)))
      throw userError('--versions', `no selected proxy has version "${n}"`, `Use all, newest, ends or catalog versions: ${known.join(', ')}`)
  }
  return { kind: 'list', versions: names }
}
