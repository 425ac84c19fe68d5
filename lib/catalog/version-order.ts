/**
 * Version strings as catalogs and registries spell them (`1.29.7`, `v1.34.0`, `3.0.11-1`,
 * `2.10.0-beta.3`, `1.29.7-alpine`, `1.29`, `latest`), ordered by semver for a bisect.
 * A registry lists aliases and flavours beside the releases; a bisect wants each release
 * once, so those are set aside with the reason.
 */

export interface ParsedVersion {
  tag: string
  /** Numeric core: 1.29.7 → [1, 29, 7]. */
  core: number[]
  /** Semver pre-release identifiers (rc1, beta.3): empty for a release. */
  pre: (string | number)[]
  /** A Debian revision (`-1`, `-2+deb13u1`): ordered after the core, still a release. */
  revision: string
  /** An image flavour (`alpine`, `perl`, `bookworm`): another build of the same release. */
  flavour: string
}

const PRE = /^(alpha|beta|rc|pre|preview|dev)/i

/** The parts of a version tag; null for a tag that is no version (`latest`, `mainline`, `stable-alpine`). */
export function parseVersion(tag: string): ParsedVersion | null {
  const m = /^[vV]?(\d+(?:\.\d+)*)(.*)$/.exec(tag.trim())
  if (!m) return null
  const core = m[1]!.split('.').map(Number)
  let rest = m[2]!
  // Build metadata (+ds1, +b2) never orders (semver §10); a Debian revision keeps its own.
  const build = rest.indexOf('+')
  const buildPart = build >= 0 && !/^-\d/.test(rest) ? rest.slice(build) : ''
  if (buildPart) rest = rest.slice(0, build)
  const out: ParsedVersion = { tag, core, pre: [], revision: '', flavour: '' }
  if (rest === '') return out
  if (!/^[-.~_]/.test(rest)) {
    // 1.2.3rc1 (no separator): a pre-release only when the word says so.
    if (PRE.test(rest)) return { ...out, pre: splitIds(rest) }
    return null
  }
  const body = rest.slice(1)
  if (/^\d/.test(body)) return { ...out, revision: body }
  if (PRE.test(body)) return { ...out, pre: splitIds(body) }
  return { ...out, flavour: body }
}

const splitIds = (s: string): (string | number)[] =>
  s
    .split(/[.\-_]|(?<=[a-zA-Z])(?=\d)/)
    .filter(Boolean)
    .map((x) => (/^\d+$/.test(x) ? Number(x) : x.toLowerCase()))

const cmpIds = (a: readonly (string | number)[], b: readonly (string | number)[]): number => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]
    const y = b[i]
    if (x === undefined) return -1
    if (y === undefined) return 1
    if (x === y) continue
    // semver §11: numeric identifiers sort before alphanumeric ones.
    if (typeof x === 'number' && typeof y === 'number') return Math.sign(x - y)
    if (typeof x === 'number') return -1
    if (typeof y === 'number') return 1
    return x < y ? -1 : 1
  }
  return 0
}

/** semver order: core numerically (1.9 < 1.10), a pre-release before its release, then the Debian revision. */
export function compareParsed(a: ParsedVersion, b: ParsedVersion): number {
  for (let i = 0; i < Math.max(a.core.length, b.core.length); i++) {
    const d = (a.core[i] ?? 0) - (b.core[i] ?? 0)
    if (d !== 0) return Math.sign(d)
  }
  if (a.pre.length !== b.pre.length && (a.pre.length === 0 || b.pre.length === 0)) return a.pre.length === 0 ? 1 : -1
  const pre = cmpIds(a.pre, b.pre)
  if (pre !== 0) return pre
  return cmpIds(splitIds(a.revision), splitIds(b.revision))
}

export interface OrderedVersions {
  /** The releases to bisect over, oldest first, each once. */
  versions: string[]
  /** Tags left out and why (not a version, an alias, a flavour, a pre-release, a duplicate). */
  skipped: { tag: string; why: string }[]
}

/** Why a tag is left out of a bisect (no version, an alias, another flavour, a pre-release unless asked for), or null. */
function notBisectable(p: ParsedVersion | null, o: { prereleases?: boolean; flavour?: string }): string | null {
  if (!p) return 'not a version'
  if (p.core.length < 3) return 'an alias of the newest patch release'
  if (p.flavour !== (o.flavour ?? '')) return p.flavour ? `flavour ${p.flavour}` : `not flavour ${o.flavour}`
  if (p.pre.length > 0 && !o.prereleases) return 'a pre-release'
  return null
}

/**
 * The bisectable releases among tags, oldest first. Left out: tags that are no version,
 * aliases with fewer than three numbers (`1.29` moves with each patch release), flavours
 * (`-alpine` builds the same release otherwise) unless asked for, pre-releases unless asked
 * for, and a second spelling of one release (`v1.2.3` beside `1.2.3`).
 */
export function orderVersions(tags: readonly string[], o: { prereleases?: boolean; flavour?: string } = {}): OrderedVersions {
  const skipped: OrderedVersions['skipped'] = []
  const kept: ParsedVersion[] = []
  for (const tag of tags) {
    const p = parseVersion(tag)
    const why = notBisectable(p, o)
    if (why === null) kept.push(p!)
    else skipped.push({ tag, why })
  }
  kept.sort(compareParsed)
  const versions: string[] = []
  let last: ParsedVersion | undefined
  for (const p of kept) {
    if (last && compareParsed(last, p) === 0) skipped.push({ tag: p.tag, why: `the same release as ${last.tag}` })
    else versions.push(p.tag)
    last = p
  }
  return { versions, skipped }
}
