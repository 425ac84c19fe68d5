import { join } from 'node:path'
import { VARIANTS } from '../catalog/variants.ts'
import { z } from 'zod'
import { writeFileAtomic } from '../core/atomic.ts'
import { readJsonFile } from '../core/json-file.ts'
import { bisectState, cellMedian, judgeChange, BISECT_ALPHA, BISECT_MIN_EFFECT, type BisectState } from '../core/bisect.ts'
import { fmtInterval, repeatsOf } from '../core/intervals.ts'
import type { Measurement } from './schema.ts'

/**
 * A run's bisect plan (`bisect.json`): which proxy and variant, over which versions in
 * which order, judged on which metric. The rows (series `bisect` in measurements.csv)
 * are the measurements; the result is replayed from plan + rows (core/bisect.ts), so the
 * report and a resumed run always agree with what was measured.
 */
export const BISECT_FILE = 'bisect.json'
export const BISECT_SERIES = 'bisect'

export const BISECT_METRICS = {
  cpu: { column: 'proxy_cpu_us_per_req', label: 'proxy CPU µs/req', digits: 1 },
  conns: { column: 'backend_conns_per_1k_req', label: 'backend conns/1k', digits: 0 },
} as const
export type BisectMetric = keyof typeof BISECT_METRICS

const searchSchema = z
  .object({
    proxy: z.string().min(1),
    variant: z.enum(VARIANTS),
    /** `catalog`, or the registry repository whose tags were listed (`127.0.0.1:5000/nginx`). */
    source: z.string().min(1),
    /** Oldest first (catalog/version-order.ts). */
    versions: z.array(z.string().min(1)),
    skipped: z.array(z.object({ tag: z.string(), why: z.string() }).strict()).default([]),
    /** Registry searches: the image of each version. */
    images: z.record(z.string()).default({}),
  })
  .strict()

export const bisectPlanSchema = z
  .object({
    metric: z.enum(Object.keys(BISECT_METRICS) as [BisectMetric, ...BisectMetric[]]),
    alpha: z.number().positive().max(1).default(BISECT_ALPHA),
    min_effect: z.number().nonnegative().default(BISECT_MIN_EFFECT),
    searches: z.array(searchSchema).min(1),
  })
  .strict()

export type BisectPlan = z.infer<typeof bisectPlanSchema>
export type BisectSearch = BisectPlan['searches'][number]

export function readBisectPlan(runDir: string): BisectPlan | undefined {
  return readJsonFile(join(runDir, BISECT_FILE), bisectPlanSchema, 'Restore it, or delete it to plan the bisect again')
}

export function writeBisectPlan(runDir: string, plan: BisectPlan): void {
  writeFileAtomic(join(runDir, BISECT_FILE), JSON.stringify(bisectPlanSchema.parse(plan), null, 2) + '\n')
}

type Row = Pick<Measurement, 'series' | 'proxy' | 'version' | 'variant' | 'model' | 'repeat' | 'status' | 'proxy_cpu_us_per_req' | 'backend_conns_per_1k_req'>

/** The closed-model bisect rows of one search, of any status. */
const searchRows = (search: BisectSearch, rows: readonly Row[]) =>
  rows.filter((r) => r.series === BISECT_SERIES && r.model === 'closed' && r.proxy === search.proxy && r.variant === search.variant)

/** Valid closed-model bisect rows of one search, per version: repeat → metric. */
export function searchCells(search: BisectSearch, metric: BisectMetric, rows: readonly Row[]) {
  const mine = searchRows(search, rows).filter((r) => r.status === 'valid')
  return new Map(
    search.versions.map((v) => [
      v,
      repeatsOf(
        mine.filter((r) => r.version === v),
        (r) => r[BISECT_METRICS[metric].column],
      ),
    ]),
  )
}

/** Versions of a search with bisect rows of any status (measured, whether or not a window was valid). */
export const measuredVersions = (search: BisectSearch, rows: readonly Row[]): Set<string> => new Set(searchRows(search, rows).map((r) => r.version))

export interface BisectResult {
  search: BisectSearch
  metric: BisectMetric
  state: BisectState
  /** One line: the step, its effect with its interval, and the other metric's medians. */
  line: string
}

/** Where each search of the plan stands, from the rows measured so far. */
export function bisectResults(plan: BisectPlan, rows: readonly Row[]): BisectResult[] {
  const judge = judgeChange({ alpha: plan.alpha, minEffect: plan.min_effect })
  return plan.searches.map((search) => {
    const state = bisectState(search.versions, searchCells(search, plan.metric, rows), judge, measuredVersions(search, rows))
    return { search, metric: plan.metric, state, line: formatBisect(search, plan, state, rows) }
  })
}

/**
 * `nginx upstream-default: the step is between A and B: R [lo, hi]x proxy CPU µs/req a → b
 * (p=…, n+n repeats), backend conns/1k a → b`: the ratio newer / older and both medians.
 */
export function formatBisect(search: BisectSearch, plan: Pick<BisectPlan, 'metric' | 'min_effect'>, s: BisectState, rows: readonly Row[]): string {
  const metric = plan.metric
  const who = `${search.proxy} ${search.variant}`
  if (s.kind === 'measure') return `${who}: unfinished, ${s.versions.join(', ')} still to measure`
  if (s.kind === 'too few versions') return `${who}: no bisect, ${s.notes.join('; ')}`
  if (s.kind === 'inconclusive') return `${who}: inconclusive, the step (if any) lies between ${s.older} and ${s.newer}: ${s.notes.join('; ')}`
  const medians = (which: BisectMetric) => {
    const cells = searchCells(search, which, rows)
    const f = (v: string) => {
      const x = cellMedian(cells.get(v))
      return x === null ? '?' : x.toFixed(BISECT_METRICS[which].digits)
    }
    return `${BISECT_METRICS[which].label} ${f(s.older)} → ${f(s.newer)}`
  }
  const other = (Object.keys(BISECT_METRICS) as BisectMetric[]).find((k) => k !== metric)!
  const n = (v: string) => searchCells(search, metric, rows).get(v)?.size ?? 0
  const effect = `${fmtInterval(s.judgement.ratio)}x ${medians(metric)} (p=${s.judgement.p.toFixed(3)}, ${n(s.older)}+${n(s.newer)} repeats), ${medians(other)}`
  const head = {
    step: `the step is between ${s.older} and ${s.newer}`,
    // Not "between A and B": that form names a located step (docs/ledger.md "How the bisect claim reads").
    'no step': `no significant step from ${s.older} to ${s.newer} (±${Math.round(100 * plan.min_effect)}% or less, or not significant)`,
    'no single step': `no single step: the interval ends at ${s.older} and ${s.newer}, which do not differ significantly`,
  }[s.kind]
  return `${who}: ${head}: ${effect}${s.notes.length ? `; ${s.notes.join('; ')}` : ''}`
}
