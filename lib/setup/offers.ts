import type { Stack } from '../catalog/stack.ts'
import { suiteOf } from '../catalog/stack.ts'
import type { Offer } from '../catalog/upkeep.ts'
import { exec, lastLine } from '../core/exec.ts'
import { commaList } from '../core/names.ts'
import type { Logger } from '../core/log.ts'
import { engineInfo } from './docker-engine.ts'
import { registryAnswers } from './images/pull.ts'
import { parseMadison, suiteOffers } from './suites.ts'

/**
 * What every source of the catalog offers now (lib/catalog/upkeep.ts compares): PyPI through
 * pip's own configured index (`pip index versions`: its index-url, find-links and proxy
 * settings, no host named here), the host's Debian suite through its apt lists, other suites
 * through apt in a copy of their cached base, official images through the Docker engine when
 * a registry answers. Read only.
 */
export async function gatherOffers(stacks: readonly Stack[], log: Logger): Promise<Offer[]> {
  const offers: Offer[] = []
  const sources = new Map<string, Set<string>>()
  for (const v of stacks.flatMap((s) => s.versions)) sources.set(v.source, (sources.get(v.source) ?? new Set()).add(v.package))

  for (const pkg of sources.get('pypi') ?? []) {
    log.progress(`pip index versions ${pkg}`)
    offers.push({ source: 'pypi', package: pkg, ...(await pipVersions(pkg)) })
  }
  offers.push(...(await hostSuiteOffers([...(sources.get('debian') ?? [])], log)))
  for (const [source, pkgs] of sources) {
    const suite = suiteOf({ source })
    if (suite) offers.push(...(await suiteOffersOf(source, suite, [...pkgs], log)))
  }
  for (const stack of stacks) offers.push(await imageOffer(stack, log))
  return offers
}

/** The host's Debian suite, through its apt lists (`apt-cache madison`): one offer per package. */
async function hostSuiteOffers(pkgs: string[], log: Logger): Promise<Offer[]> {
  if (!pkgs.length) return []
  log.progress(`apt-cache madison ${pkgs.join(' ')}`)
  const r = await exec('apt-cache', ['madison', ...pkgs])
  const found = parseMadison(r.stdout)
  const answer = r.code === 0 ? null : { versions: null, error: `apt-cache madison: ${lastLine(r.stderr) || `exit ${r.code}`}` }
  return pkgs.map((pkg) => ({ source: 'debian', package: pkg, ...(answer ?? { versions: found.get(pkg) ?? [] }) }))
}

/** Another suite (`debian:<suite>`), through apt in a copy of its cached base: one offer per package. */
async function suiteOffersOf(source: string, suite: string, pkgs: string[], log: Logger): Promise<Offer[]> {
  const r = await suiteOffers(suite, pkgs, log)
  return pkgs.map((pkg) => ({ source, package: pkg, versions: r.error ? null : (r.versions.get(pkg) ?? []), ...(r.error ? { error: r.error } : {}) }))
}

/** `pip index versions PKG` → its "Available versions:" line. */
export async function pipVersions(pkg: string): Promise<{ versions: string[] | null; error?: string }> {
  const r = await exec('python3', ['-m', 'pip', 'index', 'versions', '--disable-pip-version-check', pkg], { timeoutMs: 120_000 })
  const line = r.stdout.split('\n').find((l) => l.startsWith('Available versions:'))
  if (r.code !== 0 || !line) return { versions: null, error: `pip index versions ${pkg}: ${lastLine(r.stderr) || `exit ${r.code}`}` }
  return { versions: parsePipVersions(line) }
}

export const parsePipVersions = (line: string): string[] => commaList(line.replace(/^Available versions:/, ''))

/** The catalog's official tags the registry still serves; null with a reason when no registry answers. */
async function imageOffer(stack: Stack, log: Logger): Promise<Offer> {
  const offer = { source: 'image', package: stack.proxy }
  if (stack.images.length === 0) return { ...offer, versions: null, error: 'no official tags in the catalog' }
  if (!(await engineInfo())) return { ...offer, versions: null, error: 'registry not asked: no Docker engine answers' }
  const served: string[] = []
  for (const { tag } of stack.images) {
    log.progress(`asking the registry for ${tag}`)
    const r = await registryAnswers(tag)
    // The engine's reason ends with the network error ("no such host", "i/o timeout"); the URL before it is noise here.
    if (!r.answers) return { ...offer, versions: null, error: `registry unreachable (${r.reason.split(': ').at(-1)})` }
    if (r.reason === `${tag} found`) served.push(tag)
  }
  return { ...offer, versions: served }
}
