/**
 * bisect: where the run's bisect of one proxy and variant (bisect.json + the bisect rows) put
 * its step, against a documented change (a version). Reads no cells: no select, for_each, metric.
 */
import { z } from 'zod'
import { compareVersions } from '../../catalog/stack.ts'
import { fmtInterval } from '../../core/intervals.ts'
import { bisectResults, BISECT_METRICS } from '../../data/bisect.ts'
import { cellValue, type CellValue } from '../cells.ts'
import type { SchemaParts } from '../selectors.ts'
import { missingUnit, type CheckDef, type Ctx, type Unit } from './check.ts'

const schema = (p: SchemaParts) =>
  z
    .object({
      kind: z.literal('bisect'),
      ...p.common,
      proxy: p.proxy,
      variant: z.string().min(1),
      change: z.string().regex(/^\d+(\.\d+)*$/, 'expected a version such as "1.29.7"'),
    })
    .strict()

export type BisectCheck = z.infer<ReturnType<typeof schema>>

export const bisect: CheckDef<BisectCheck, ReturnType<typeof schema>> = {
  kind: 'bisect',
  schema,
  reads: (k) => `the run's bisect of ${k.proxy} ${k.variant}`,
  needsMetric: false,
  units(k, _item, ctx) {
    return [bisectUnit(k, ctx)]
  },
}

/**
 * bisect: where the run's bisect of one proxy and variant put its step, against a documented
 * change (nginx 1.29.7). Holds when the located pair of adjacent versions has the change on
 * its newer side (older < change <= newer) and the newer version is the costlier (the ratio's
 * whole interval above 1); fails when the step sits elsewhere, goes the other way, or the
 * search's ends span the change and do not differ. A search with no pair located says why:
 * unfinished or absent is not measured (the versions series' two ends place no step),
 * inconclusive or no single step is undecided. A no-step result is "from A to B", never
 * "between A and B", which names a located step.
 */
function bisectUnit(k: BisectCheck, ctx: Ctx): Unit {
  const who = `${k.proxy} ${k.variant}`
  const result = ctx.bisect ? bisectResults(ctx.bisect, ctx.measurements).find((r) => r.search.proxy === k.proxy && r.search.variant === k.variant) : undefined
  if (!result) return noBisectUnit(k, ctx)
  const s = result.state
  const metric = BISECT_METRICS[result.metric].label
  // Evidence: the bisect cells of the pair the search ended on (the report links their CSV lines).
  const used = 'older' in s ? pairCells(k, ctx, [s.older, s.newer], BISECT_METRICS[result.metric].column) : []
  const holdsChange = (older: string, newer: string) => compareVersions(older, k.change) < 0 && compareVersions(k.change, newer) <= 0
  switch (s.kind) {
    case 'measure':
      return missingUnit([`the bisect of ${who} is unfinished: ${s.versions.join(', ')} still to measure (--resume continues it)`], used)
    case 'too few versions':
      return missingUnit([`no bisect of ${who}: ${s.notes.join('; ')}`], used)
    case 'inconclusive':
    case 'no single step':
      return { state: 'undecided', text: `bisect ${result.line}`, used }
    case 'no step': {
      if (!holdsChange(s.older, s.newer)) return missingUnit([`the bisect of ${who} searched ${s.older} to ${s.newer}, a span without ${k.change}`], used)
      return {
        state: 'fails',
        text: `bisect ${who}: no significant step from ${s.older} to ${s.newer}, a span that holds ${k.change}: ${fmtInterval(s.judgement.ratio)}x ${metric} (p=${s.judgement.p.toFixed(3)})`,
        used,
      }
    }
    case 'step': {
      const at = `the step is between ${s.older} and ${s.newer}, adjacent in the search (${fmtInterval(s.judgement.ratio)}x ${metric}, p=${s.judgement.p.toFixed(3)}, ${s.probes.length} comparison${s.probes.length === 1 ? '' : 's'})`
      if (!holdsChange(s.older, s.newer)) return { state: 'fails', text: `bisect ${who}: ${at}: ${k.change} is not in it`, used }
      if (!(s.judgement.ratio.lo > 1)) return { state: 'fails', text: `bisect ${who}: ${at}: ${s.newer} is the cheaper, not a drop`, used }
      const exact = s.newer === k.change ? `exactly at ${k.change}` : `${k.change} is in it (not narrower: no catalog version between them)`
      return { state: 'holds', text: `bisect ${who}: ${at}: ${exact}`, used }
    }
  }
}

/** No bisect of the proxy and variant in the run: not measured, with what the versions series measured instead and how to locate the step. */
function noBisectUnit(k: BisectCheck, ctx: Ctx): Unit {
  const who = `${k.proxy} ${k.variant}`
  const versions = [
    ...new Set(
      ctx.measurements.filter((r) => r.series === 'versions' && r.proxy === k.proxy && r.variant === k.variant && r.model === 'closed').map((r) => r.version),
    ),
  ].sort(compareVersions)
  const measured =
    versions.length === 0
      ? `the run measured no ${who} versions`
      : `the versions series measured ${who} at ${versions.join(', ')} only${versions.length === 2 ? ' (its two ends)' : ''}, which places no step between adjacent releases`
  return missingUnit([`no bisect of ${who} in this run: ${measured}; locate it with npx zx notebooks/bisect.mjs --proxy ${k.proxy} --variant ${k.variant}`], [])
}

/** The closed-model bisect cells of the proxy and variant at the given versions, valid repeats of the column. */
function pairCells(k: BisectCheck, ctx: Ctx, versions: readonly string[], column: string): CellValue[] {
  const pair = new Set(versions)
  return ctx.cells.measurements
    .filter(
      (c) => c.key.series === 'bisect' && c.key.proxy === k.proxy && c.key.variant === k.variant && c.key.model === 'closed' && pair.has(String(c.key.version)),
    )
    .map((c) => cellValue(c, column, 'valid'))
}
