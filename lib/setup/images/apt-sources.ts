import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The apt sources a base rootfs gets: the host's Debian entries, or another suite's from the same mirror. */

/** Debian entries of the host's apt sources, so the image installs the host's exact package versions. */
export function debianSources(files: Record<string, string>): { name: string; text: string } | null {
  for (const [name, text] of Object.entries(files)) {
    if (name.endsWith('.sources')) {
      const stanzas = text.split(/\n\s*\n/).filter((s) => /^URIs:.*\/debian(-security)?\/?\s*$/m.test(s) && !/^Enabled:\s*no/im.test(s))
      if (stanzas.length) return { name: 'debian.sources', text: stanzas.map((s) => s.trim()).join('\n\n') + '\n' }
    }
  }
  const lines = Object.entries(files)
    .filter(([n]) => n.endsWith('.list'))
    .flatMap(([, t]) => t.split('\n'))
    .filter((l) => /^deb\s+(\[[^\]]*\]\s+)?\S+\/debian(-security)?\/?\s/.test(l.trim()))
  return lines.length ? { name: 'sources.list', text: lines.join('\n') + '\n' } : null
}

/** The host's apt source files by path, sources.list given a .list suffix. */
export function hostAptSources(): Record<string, string> {
  const files: Record<string, string> = {}
  const read = (f: string) => {
    try {
      files[f] = readFileSync(f, 'utf8')
    } catch {}
  }
  read('/etc/apt/sources.list')
  if (existsSync('/etc/apt/sources.list.d')) for (const f of readdirSync('/etc/apt/sources.list.d')) read(join('/etc/apt/sources.list.d', f))
  // sources.list has no .list suffix of its own; give it one for debianSources().
  if (files['/etc/apt/sources.list'] !== undefined) {
    files['/etc/apt/sources.list.list'] = files['/etc/apt/sources.list']!
    delete files['/etc/apt/sources.list']
  }
  return files
}

/** The first Debian mirror of the host's apt sources, for debootstrap (undefined: its default). */
export function mirrorOf(sources: { name: string; text: string } | null): string | undefined {
  if (!sources) return undefined
  const uris = sources.name.endsWith('.sources')
    ? [...sources.text.matchAll(/^URIs:\s*(.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/))
    : [...sources.text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)].map((m) => m[1]!)
  return uris.find((u) => /\/debian\/?$/.test(u))
}

/** Suites without -updates and -security pockets. */
const ROLLING = new Set(['sid', 'unstable', 'experimental'])

/** apt sources of another suite's root (lib/setup/suites.ts): the suite, and for a release its -updates and -security pockets. */
export function suiteSources(suite: string, mirror: string): { name: string; text: string } {
  const m = mirror.replace(/\/+$/, '')
  const lines = [`deb ${m} ${suite} main`]
  if (!ROLLING.has(suite)) lines.push(`deb ${m} ${suite}-updates main`, `deb ${m.replace(/\/debian$/, '/debian-security')} ${suite}-security main`)
  return { name: 'sources.list', text: lines.join('\n') + '\n' }
}
