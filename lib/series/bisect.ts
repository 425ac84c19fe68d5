import { hasVariant, loadStack, variantRunsOn, type ProxyName, type StackVersion } from '../catalog/stack.ts'
import { orderVersions } from '../catalog/version-order.ts'
import { BISECT_ALPHA, BISECT_MIN_EFFECT, BISECT_REPEATS } from '../core/bisect.ts'
import { userError } from '../core/errors.ts'
import { bisectResults, readBisectPlan, writeBisectPlan, BISECT_SERIES, type BisectMetric, type BisectPlan, type BisectSearch } from '../data/bisect.ts'
import { MEASUREMENTS, readTable } from '../data/tables.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import { OFFICIAL_BINARY } from '../setup/images/names.ts'
import { closedTasks } from './tasks.ts'
import type { Phase, Series, SeriesContext } from './types.ts'

/** What a bisect runs on without --variants: the seed's own config. */
export const BISECT_DEFAULT_VARIANTS = ['article']
/** Steps a search may take: log2 of 4096 versions, more than any registry lists for one image. */
const MAX_STEPS = 12

/**
 * One search per proxy and variant over the catalog versions that variant runs on, oldest
 * first; with `tags` (bisect.mjs --tags-from) over a registry's published releases instead,
 * each run from its image.
 */
export function catalogPlan(
  proxies: readonly ProxyName[],
  variants: readonly string[],
  metric: BisectMetric,
  tags?: { ref: string; tags: readonly string[] },
): BisectPlan {
  const searches: BisectSearch[] = []
  for (const proxy of proxies) {
    const stack = loadStack(proxy)
    for (const variant of variants.filter((v) => hasVariant(stack, v))) {
      const names = tags ? tags.tags : stack.versions.map((v) => v.version)
      const { versions, skipped } = orderVersions(names.filter((v) => variantRunsOn(stack, variant, v)))
      const images = tags ? Object.fromEntries(versions.map((v) => [v, `${tags.ref}:${v}`])) : {}
      searches.push({ proxy, variant, source: tags ? tags.ref : 'catalog', versions, skipped, images })
    }
  }
  return { metric, alpha: BISECT_ALPHA, min_effect: BISECT_MIN_EFFECT, searches }
}

/** The cells a search asks for next, each repeated BISECT_REPEATS times (Mann-Whitney needs four a side). */
function searchCells(search: BisectSearch, versions: readonly string[], connections: number): CellPlan[] {
  const stack = loadStack(search.proxy as ProxyName)
  return versions.map((version) => {
    const image = search.images[version]
    // A registry release: its image holds the binary (at the official image's path); the image, not a sha256, names it.
    if (image)
      return {
        ...catalogCellPlan(stack, { series: BISECT_SERIES, variant: search.variant, connections, version: imageVersion(search.proxy as ProxyName, version) }),
        image,
      }
    const v = stack.versions.find((x) => x.version === version)
    if (!v) throw new Error(`bisect: ${search.proxy} ${version} is not in stacks/${search.proxy}/stack.yaml`)
    return catalogCellPlan(stack, { series: BISECT_SERIES, variant: search.variant, connections, version: v })
  })
}

/** A registry release as a catalog entry: the binary at the official image's path, no host file to hash. */
const imageVersion = (proxy: ProxyName, version: string): StackVersion => ({
  version,
  source: 'pypi',
  package: 'registry image',
  binary: OFFICIAL_BINARY[proxy],
  lib_dir: null,
  sha256: '',
  april_2025: false,
})

/**
 * The bisect series: the first phase measures the oldest and newest version of each
 * search, each later phase the middle of the interval that holds the step, until every
 * search has its adjacent pair. Each phase replays the searches from the rows on disk.
 */
export function bisectSeries(): Series {
  let said = ''
  const step = (i: number): Phase => ({
    name: i === 0 ? 'bisect-ends' : `bisect-step-${i}`,
    minRepeats: BISECT_REPEATS,
    // Judged on a count (backend connections per request: a property of proxy, config and
    // load, not of the machine's state), a disturbed window still counts right: it is kept,
    // its disturbance recorded, as the ws-hold counts are. On proxy CPU it is invalid and re-measured.
    adaptive: (ctx) => (ctx.plan.bisectMetric ?? 'cpu') !== 'conns',
    tasks: (ctx: SeriesContext) => {
      const plan = planFor(ctx)
      const results = bisectResults(plan, readTable(ctx.runDir, MEASUREMENTS))
      const lines = results.map((r) => r.line).join('\n')
      if (lines !== said) for (const l of results) ctx.log.info(`bisect: ${l.line}`)
      said = lines
      const cells = results.flatMap((r) => (r.state.kind === 'measure' ? searchCells(r.search, r.state.versions, ctx.connections) : []))
      return closedTasks(cells, { ...ctx, profile: { ...ctx.profile, repeats: Math.max(ctx.profile.repeats, BISECT_REPEATS) } })
    },
  })
  return { name: 'bisect', phases: Array.from({ length: MAX_STEPS + 1 }, (_, i) => step(i)) }
}

/** The run's bisect plan: the one in bisect.json (a resumed run keeps its own), else planned now from the user's (ctx.plan) and written. */
function planFor(ctx: SeriesContext): BisectPlan {
  const kept = readBisectPlan(ctx.runDir)
  if (kept) return kept
  const { focus, bisectMetric, bisectTags } = ctx.plan
  const made = catalogPlan(ctx.proxies, focus?.variants ?? BISECT_DEFAULT_VARIANTS, bisectMetric ?? 'cpu', bisectTags)
  if (made.searches.length === 0)
    throw userError(
      '--variants',
      `none of ${(focus?.variants ?? BISECT_DEFAULT_VARIANTS).join(', ')} is a variant of ${ctx.proxies.join(', ')}`,
      'Name a variant of the proxy (stacks/<proxy>/stack.yaml)',
    )
  writeBisectPlan(ctx.runDir, made)
  return made
}
