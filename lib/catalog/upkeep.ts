import { compareVersions, suiteOf, type Stack } from './stack.ts'

/**
 * Catalog upkeep (`npm run catalog -- --check`): what each source of the catalog offers
 * now against what stack.yaml pins. Pure: the offers are gathered by lib/setup/offers.ts;
 * nothing here or there ever writes stack.yaml.
 */

/** One source as asked now: a PyPI package, a Debian suite's package, or an official image repository. */
export interface Offer {
  /** `pypi`, `debian` (the host's suite), `debian:<suite>` or `image`. */
  source: string
  package: string
  /** Versions as the source spells them (Debian: full Debian versions; image: the catalog tags it still serves); null: not asked or no answer. */
  versions: string[] | null
  /** Why versions is null (e.g. "registry unreachable"). */
  error?: string
}

export interface UpkeepRow {
  proxy: string
  source: string
  package: string
  /** Catalog versions from this source. */
  pinned: string[]
  /** Offered now, no catalog version of the proxy has it (newest first). */
  missing: string[]
  /** Pinned, not offered any more (a suite: the exact Debian version). */
  gone: string[]
  /** Newer Debian builds of a pinned version (a security update: pin the new one). */
  rebuilt: string[]
  /** The source did not answer. */
  error?: string
}

/** The upstream version of a Debian version: no epoch, no Debian revision, no +dfsg/~ suffix. */
export function debianUpstream(debVersion: string): string {
  return debVersion
    .replace(/^\d+:/, '')
    .replace(/-[^-]*$/, '')
    .replace(/[+~].*$/, '')
}

/** dpkg's order of two Debian versions (epoch, upstream, revision; `~` sorts before everything): -1, 0 or 1. */
export function compareDebian(a: string, b: string): number {
  const split = (v: string) => {
    const m = /^(?:(\d+):)?(.*?)(?:-([^-]*))?$/.exec(v)!
    return [Number(m[1] ?? 0), m[2]!, m[3] ?? '0'] as const
  }
  const [ea, ua, ra] = split(a)
  const [eb, ub, rb] = split(b)
  return Math.sign(ea - eb) || compareDebianPart(ua, ub) || compareDebianPart(ra, rb)
}

/** dpkg's order of one part (upstream or revision): non-digit runs character by character, then digit runs as numbers, in turn. */
function compareDebianPart(x: string, y: string): number {
  for (let i = 0, j = 0; i < x.length || j < y.length; ) {
    const run = compareNonDigitRuns(x, i, y, j)
    if (run.sign !== 0) return run.sign
    const nx = /^\d*/.exec(x.slice(run.i))![0]
    const ny = /^\d*/.exec(y.slice(run.j))![0]
    if (Number(nx || 0) !== Number(ny || 0)) return Math.sign(Number(nx || 0) - Number(ny || 0))
    i = run.i + nx.length
    j = run.j + ny.length
  }
  return 0
}

/** dpkg's weight of a non-digit character ('': the run has ended): `~` first, then the end, letters, then the rest. */
const debianCharOrder = (c: string) => (c === '~' ? -1 : c === '' ? 0 : /[A-Za-z]/.test(c) ? c.charCodeAt(0) : c.charCodeAt(0) + 256)

/** The character at i when it is not a digit; '' at a digit or past the end. */
const nonDigitAt = (s: string, i: number) => (i < s.length && !/\d/.test(s[i]!) ? s[i]! : '')

/** Compares the non-digit runs of x at i and y at j: their order (-1, 0, 1) and where the comparison stopped. */
function compareNonDigitRuns(x: string, i: number, y: string, j: number): { sign: number; i: number; j: number } {
  while (nonDigitAt(x, i) || nonDigitAt(y, j)) {
    const cx = nonDigitAt(x, i)
    const cy = nonDigitAt(y, j)
    if (debianCharOrder(cx) !== debianCharOrder(cy)) return { sign: Math.sign(debianCharOrder(cx) - debianCharOrder(cy)), i, j }
    if (cx) i++
    if (cy) j++
  }
  return { sign: 0, i, j }
}

/** The newest Debian build of an upstream version among those offered (a substitute for a pin that is gone), if any. */
export function newestSameUpstream(offered: readonly string[], version: string): string | undefined {
  return offered
    .filter((d) => debianUpstream(d) === version)
    .sort(compareDebian)
    .at(-1)
}

const newestFirst = (xs: Iterable<string>) => [...new Set(xs)].sort((a, b) => compareVersions(b, a))

/** The rows of one proxy: one per source its catalog uses (and one for its official images). */
export function upkeepRows(stack: Pick<Stack, 'proxy' | 'versions' | 'images'>, offers: readonly Offer[]): UpkeepRow[] {
  const have = new Set(stack.versions.map((v) => v.version))
  const sources = [...new Map(stack.versions.map((v) => [`${v.source}\0${v.package}`, { source: v.source, package: v.package }])).values()]
  const rows: UpkeepRow[] = sources.map(({ source, package: pkg }) => {
    const mine = stack.versions.filter((v) => v.source === source && v.package === pkg)
    const offer = offers.find((o) => o.source === source && o.package === pkg)
    const row: UpkeepRow = { proxy: stack.proxy, source, package: pkg, pinned: mine.map((v) => v.version), missing: [], gone: [], rebuilt: [] }
    if (!offer?.versions) return { ...row, error: offer?.error ?? 'not asked' }
    return { ...row, ...(source === 'pypi' ? pypiChanges(mine, offer.versions, have) : debianChanges(mine, offer.versions, have)) }
  })
  const images = offers.find((o) => o.source === 'image' && o.package === stack.proxy)
  if (images) rows.push(imageRow(stack, images))
  return rows
}

type Changes = Pick<UpkeepRow, 'missing' | 'gone' | 'rebuilt'>

/** PyPI: versions offered that no catalog version has, and pinned ones no longer offered. */
function pypiChanges(mine: Stack['versions'], offered: string[], have: ReadonlySet<string>): Changes {
  return {
    missing: newestFirst(offered.filter((v) => !have.has(v))),
    gone: mine.filter((v) => !offered.includes(v.version)).map((v) => v.version),
    rebuilt: [],
  }
}

/** Debian: the catalog names upstream versions; a suite's version also pins the exact build (gone when it is, rebuilt when newer builds came). */
function debianChanges(mine: Stack['versions'], offered: string[], have: ReadonlySet<string>): Changes {
  const upstream = new Set(offered.map(debianUpstream))
  const changes: Changes = { missing: newestFirst([...upstream].filter((u) => !have.has(u))), gone: [], rebuilt: [] }
  for (const v of mine) {
    const exact = suiteOf(v) ? v.deb_version! : null
    if (exact ? !offered.includes(exact) : !upstream.has(v.version)) changes.gone.push(exact ? `${v.version} (${exact})` : v.version)
    if (exact) changes.rebuilt.push(...offered.filter((d) => debianUpstream(d) === v.version && compareDebian(d, exact) > 0))
  }
  return changes
}

/** The row of the proxy's official images: the catalog's tags the registry no longer serves. */
function imageRow(stack: Pick<Stack, 'proxy' | 'images'>, images: Offer): UpkeepRow {
  const tags = stack.images.map((i) => i.tag)
  return {
    proxy: stack.proxy,
    source: 'image',
    package: tags[0]?.replace(/:.*$/, '') ?? '-',
    pinned: stack.images.map((i) => i.version),
    missing: [],
    gone: images.versions ? stack.images.filter((i) => !images.versions!.includes(i.tag)).map((i) => i.version) : [],
    rebuilt: [],
    ...(images.versions ? {} : { error: images.error ?? 'not asked' }),
  }
}

/** A list for one table cell: the newest `n`, then how many more. */
export function shortList(xs: readonly string[], n = 6): string {
  if (xs.length === 0) return '-'
  return xs.length <= n ? xs.join(', ') : `${xs.slice(0, n).join(', ')} (+${xs.length - n} older)`
}

/** A new pin for one catalog version: its sha256 and, for a suite version, its Debian build. */
export interface Repin {
  version: string
  sha256: string
  deb_version?: string
}

/**
 * stack.yaml's text with each version's pin replaced (`npm run catalog -- --update`): only the
 * `sha256:` and `deb_version:` lines inside that version's entry change, so comments and layout
 * stay and the upkeep is one reviewable diff. A version not in the text is an error.
 */
export function repinText(text: string, pins: readonly Repin[], file: string): string {
  const lines = text.split('\n')
  for (const pin of pins) {
    const start = lines.findIndex((l) => new RegExp(`^\\s*- version: "?${pin.version.replace(/\./g, '\\.')}"?\\s*$`).test(l))
    if (start < 0) throw new Error(`${file}: no versions: entry for ${pin.version}`)
    const indent = /^\s*/.exec(lines[start]!)![0].length
    for (let i = start + 1; i < lines.length; i++) {
      const line = lines[i]!
      if (/^\s*- /.test(line) || /^\S/.test(line) || /^\s*$/.test(line) || /^\s*/.exec(line)![0].length <= indent) break
      if (/^\s*sha256:/.test(line)) lines[i] = line.replace(/sha256:.*$/, `sha256: "${pin.sha256}"`)
      if (pin.deb_version && /^\s*deb_version:/.test(line)) lines[i] = line.replace(/deb_version:.*$/, `deb_version: "${pin.deb_version}"`)
    }
  }
  return lines.join('\n')
}
