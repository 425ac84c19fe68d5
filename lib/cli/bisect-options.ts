import { orderVersions } from '../catalog/version-order.ts'
import { bisectState } from '../core/bisect.ts'
import { userError } from '../core/errors.ts'
import { BISECT_METRICS, type BisectMetric } from '../data/bisect.ts'
import type { SeriesName } from '../data/series.ts'
import { listTags, parseRepoRef } from '../setup/registry.ts'
import { sharedFlag } from './common-flags.ts'
import type { FlagValues } from './flags.ts'

/** The bisect series' flag of the run (notebooks/bisect.mjs adds its own, BISECT_NOTEBOOK_FLAGS). */
export const BISECT_FLAGS = {
  metric: {
    type: 'string',
    arg: 'NAME',
    help: [
      `bisect: what the step is judged on: ${Object.entries(BISECT_METRICS)
        .map(([k, m]) => `${k} (${m.label})`)
        .join(' or ')}; default cpu`,
    ],
  },
} as const

export type BisectFlags = FlagValues<typeof BISECT_FLAGS>

/** notebooks/bisect.mjs's own flags, before the run's (it takes --proxy and --variant for --proxies and --variants). */
export const BISECT_NOTEBOOK_FLAGS = {
  proxy: { type: 'string', arg: 'NAME', help: ['the proxy to bisect (one)'] },
  variant: sharedFlag('variant', 'article'),
  'tags-from': {
    type: 'string',
    arg: 'REF',
    help: [
      "a registry's tags (REGISTRY/REPOSITORY, e.g. 127.0.0.1:5000/nginx): alone, print the",
      'releases a bisect over them would search and what it leaves out; with --proxy, bisect',
      'over those releases, each run from its image REF:<tag> on the docker runtime',
    ],
  },
} as const

/** `--metric` for the bisect series; with no bisect to judge it is an error, not ignored. */
export function parseBisectMetric(f: BisectFlags, series: readonly SeriesName[]): BisectMetric | undefined {
  if (f.metric === undefined) return undefined
  if (!series.includes('bisect'))
    throw userError('--metric', 'only the bisect series uses it', 'Add --series bisect (or use notebooks/bisect.mjs), or drop --metric')
  if (!(f.metric in BISECT_METRICS)) throw userError(`--metric ${f.metric}`, 'unknown metric', `Use one of: ${Object.keys(BISECT_METRICS).join(', ')}`)
  return f.metric as BisectMetric
}

/**
 * notebooks/bisect.mjs speaks of one proxy and its variants (`--proxy nginx --variant
 * article,upstream-default`); the run underneath takes them as --proxies and --variants.
 */
export function bisectRunFlags<F extends { proxy?: string; variant?: string; proxies?: string; variants?: string; series?: string }>(
  f: F,
): Omit<F, 'proxy' | 'variant'> {
  const { proxy, variant, ...rest } = f
  if (proxy === undefined) throw userError('notebooks/bisect.mjs', '--proxy is missing', 'Name the proxy to bisect, e.g. --proxy nginx --variant article')
  if (proxy.includes(',')) throw userError(`--proxy ${proxy}`, 'one proxy per bisect', 'Run one bisect per proxy (each has its own versions)')
  return { ...rest, proxies: proxy, ...(variant !== undefined ? { variants: variant } : {}) }
}

/**
 * `bisect.mjs --tags-from REGISTRY/REPO`: the releases a bisect over a registry's published
 * tags would search, oldest first, the tags left out and why, and the first two it measures.
 */
export async function tagsPlan(ref: string): Promise<string> {
  const r = parseRepoRef(ref)
  const tags = await listTags(r)
  const { versions, skipped } = orderVersions(tags)
  const first = bisectState(versions, new Map())
  const steps = versions.length > 1 ? Math.ceil(Math.log2(versions.length - 1)) : 0
  return [
    `${r.registry}/${r.repository}: ${tags.length} tags, ${versions.length} releases to bisect (oldest first):`,
    `  ${versions.join(' ') || '(none)'}`,
    `left out: ${skipped.length ? skipped.map((s) => `${s.tag} (${s.why})`).join(', ') : 'none'}`,
    first.kind === 'measure'
      ? `a bisect measures ${first.versions.join(' and ')} first, then at most ${steps} more versions`
      : `no bisect: ${'notes' in first ? first.notes.join('; ') : 'nothing to measure'}`,
  ].join('\n')
}

/** bisect.mjs --tags-from with --proxy: the registry's images run on the Docker runtime only. */
export function tagsRuntime(runtime: string | undefined): string {
  if (runtime !== undefined && runtime !== 'docker')
    throw userError(
      `--runtime ${runtime}`,
      'a bisect over registry tags runs their images on the docker runtime',
      'Use --runtime docker (or leave --runtime out with --tags-from)',
    )
  return 'docker'
}
