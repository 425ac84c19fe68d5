import { hasVariant, loadStack } from '../catalog/stack.ts'
import { capacitySearches, CAPACITY_SERIES, type CapacityStep, type StepVerdict } from '../data/capacity.ts'
import type { Measurement } from '../data/schema.ts'
import { parseSlo } from '../data/slo.ts'
import { MEASUREMENTS, readTable } from '../data/tables.ts'
import { catalogCellPlan, type CellPlan } from '../measure/cell.ts'
import { measureOpen, OPEN_PREALLOC } from '../measure/open.ts'
import { disturbedReason } from '../measure/validity.ts'
import { customVariants } from './pooling.ts'
import type { CapacitySettings, SeriesPlan } from './plan.ts'
import { cellOfRepeatId } from '../data/grouping.ts'
import { cellRowKey } from './tasks.ts'
import { OPEN_MAX_VUS } from './tls.ts'
import type { Phase, Series, SeriesContext, Task } from './types.ts'

export const CAPACITY_DEFAULT_SLO = 'p99<10ms,errors<0.1%'
export const CAPACITY_DEFAULTS: CapacitySettings = { slo: parseSlo(CAPACITY_DEFAULT_SLO), budgetS: 180, startRps: 1000, maxRps: 1_000_000 }
/** What a search runs on without --variants: every proxy with a pool, so the rate is the proxy's and not its backend connects'. */
export const CAPACITY_DEFAULT_VARIANTS = ['pool-added']
/** Rates are whole hundreds: the search stops once pass and miss are this close, or 5% of the passing rate apart. */
export const RATE_STEP = 100
export const CAPACITY_RESOLUTION = 0.05
/**
 * A rate whose window was disturbed is measured again, this many times; still disturbed, the
 * search stops there: a disturbed window says nothing about the SLO, so it is neither a pass
 * nor a reason to go lower.
 */
export const MAX_DISTURBED_RETRIES = 2
/** Steps of one search at most (the budget usually stops it first): doubling to 1M rps and halving to 5% takes about 15. */
export const MAX_CAPACITY_STEPS = 30
/** Start, verification and stop of the stack around a step's window, until a step has been timed. */
const STEP_OVERHEAD_S = 3

/** A step as the search reads it. */
export type SearchStep = Pick<CapacityStep, 'rate' | 'verdict' | 'disturbed' | 'why'>

export type SearchNext = { rate: number; why: string } | { done: string }

const roundRate = (x: number) => Math.max(RATE_STEP, Math.round(x / RATE_STEP) * RATE_STEP)
const broken = (v: StepVerdict, why: string) => v === 'failed' || (v === 'invalid' && why.startsWith('verification failed'))

/**
 * The next rate of a search, from its steps so far (pure). Exponential: double from the
 * start rate while it passes (halve while nothing passed yet); then binary: the middle of
 * the highest pass and the lowest rate above it that did not pass, until they are within
 * RATE_STEP or CAPACITY_RESOLUTION. Only a valid row that meets the SLO passes; a disturbed
 * window is measured again (MAX_DISTURBED_RETRIES). A step starts only when `spentS + stepS` fits the budget.
 */
export function nextCapacityStep(steps: readonly SearchStep[], s: Omit<CapacitySettings, 'slo'>, budget: { spentS: number; stepS: number }): SearchNext {
  const bad = steps.find((x) => broken(x.verdict, x.why))
  if (bad) return { done: `stopped: ${bad.rate} rps did not measure (${bad.why})` }
  if (steps.length >= MAX_CAPACITY_STEPS) return { done: `stopped after ${steps.length} steps` }
  const { last, attempts, lo, hi } = searchBounds(steps)
  const disturbed = [...last.values()].find((x) => x.disturbed && (lo === null || x.rate > lo) && (hi === null || x.rate <= hi))
  if (disturbed && attempts.get(disturbed.rate)! > MAX_DISTURBED_RETRIES)
    return { done: `stopped: every window at ${disturbed.rate} rps was disturbed (${disturbed.why}); measure when the machine is quiet` }
  const next: SearchNext = disturbed
    ? { rate: disturbed.rate, why: 'again: its window was disturbed' }
    : steps.length === 0
      ? { rate: roundRate(s.startRps), why: 'start' }
      : narrowedStep(lo, hi, s.maxRps)
  if ('done' in next) return next
  if (budget.spentS + budget.stepS > s.budgetS)
    return { done: `budget spent: ${Math.round(budget.spentS)} s of ${s.budgetS} s, a step takes about ${Math.round(budget.stepS)} s` }
  return next
}

/**
 * The search so far: each rate's last step and number of attempts, the highest rate that
 * passes (lo) and the lowest rate above it that does not (hi); null where there is none.
 */
function searchBounds(steps: readonly SearchStep[]) {
  const last = new Map<number, SearchStep>()
  const attempts = new Map<number, number>()
  for (const x of steps) {
    last.set(x.rate, x)
    attempts.set(x.rate, (attempts.get(x.rate) ?? 0) + 1)
  }
  const lo = Math.max(0, ...[...last.values()].filter((x) => x.verdict === 'pass').map((x) => x.rate)) || null
  const above = [...last.values()].filter((x) => x.verdict !== 'pass' && x.rate > (lo ?? 0)).map((x) => x.rate)
  const hi = above.length ? Math.min(...above) : null
  return { last, attempts, lo, hi }
}

/** The next rate between the bounds: halving while nothing passes, doubling while nothing fails, else the middle; done when they meet. */
function narrowedStep(lo: number | null, hi: number | null, maxRps: number): SearchNext {
  if (lo === null) {
    if (hi! <= RATE_STEP) return { done: `no rate passes: even ${hi} rps does not` }
    return { rate: roundRate(hi! / 2), why: `halving: ${hi} rps does not pass` }
  }
  if (hi === null) {
    if (lo >= maxRps) return { done: `reached the search's upper bound, ${maxRps} rps` }
    return { rate: Math.min(roundRate(lo * 2), maxRps), why: `doubling: ${lo} rps passes` }
  }
  if (hi - lo <= Math.max(RATE_STEP, CAPACITY_RESOLUTION * lo)) return { done: `found: ${lo} rps passes, ${hi} rps does not` }
  return { rate: roundRate((lo + hi) / 2), why: `between ${lo} and ${hi} rps` }
}

/**
 * The cells searched: each proxy with each variant it has (default pool-added), its own
 * --config files by their custom: names when --variants names them, on the newest version,
 * EC-256 unless --key-types says otherwise. The VU cap is the open model's (tls-open).
 */
export function capacityCells(ctx: Pick<SeriesContext, 'proxies'> & { plan: Pick<SeriesPlan, 'focus' | 'pinned' | 'custom'> }): CellPlan[] {
  const { focus, pinned, custom } = ctx.plan
  const variants = focus?.variants ?? CAPACITY_DEFAULT_VARIANTS
  const keyTypes = focus?.keyTypes ?? ['ec256']
  return ctx.proxies.flatMap((proxy) => {
    const stack = loadStack(proxy)
    const own = [...customVariants(custom.filter((c) => c.proxy === proxy))]
    return keyTypes.flatMap((keyType) => [
      ...variants
        .filter((v) => hasVariant(stack, v))
        .map((variant) => catalogCellPlan(stack, { series: CAPACITY_SERIES, variant, keyType, connections: OPEN_MAX_VUS, pinned })),
      ...own
        .filter(([, v]) => variants.includes(v))
        .map(([id, variant]) =>
          catalogCellPlan(stack, { series: CAPACITY_SERIES, variant, keyType, connections: OPEN_MAX_VUS, template: id.slice(id.indexOf('=') + 1), pinned }),
        ),
    ])
  })
}

const sameCell = (c: CellPlan) => (r: Pick<Measurement, 'proxy' | 'version' | 'variant' | 'key_type' | 'connections'>) =>
  r.proxy === c.proxy && r.version === c.version && r.variant === c.variant && r.key_type === c.keyType && r.connections === c.connections

/** A disturbed window is invalid here (this phase re-measures it itself, see nextCapacityStep). */
function withDisturbance(row: Measurement): Measurement {
  if (row.status === 'failed') return row
  const d = disturbedReason(row, 'proxy')
  return d ? { ...row, status: 'invalid', reason: [d, row.reason].filter(Boolean).join('; ') } : row
}

/**
 * The capacity series: phase i asks each cell's search for its next step (replayed from
 * the rows on disk, so --resume goes on where it stopped) until every search is done.
 */
export function capacitySeries(): Series {
  /** Wall seconds of each step measured by this invocation, by row key. */
  const took = new Map<string, number>()
  const said = new Set<string>()
  const phase = (i: number): Phase => ({
    name: `capacity-${i + 1}`,
    // Steps of a search, not a cost to pin down: no extra rounds; disturbed windows handled above.
    adaptive: false,
    tasks: (ctx) => {
      const s = ctx.plan.capacity ?? CAPACITY_DEFAULTS
      const rows = readTable(ctx.runDir, MEASUREMENTS).filter((r) => r.series === CAPACITY_SERIES && r.model === 'open')
      const searches = capacitySearches(rows.filter((r) => (r.slo ?? '') === s.slo.text))
      const measured = [...took.values()]
      const estimate = measured.length ? Math.max(...measured) : ctx.profile.warmupS + ctx.profile.durationS + ctx.profile.tailS + STEP_OVERHEAD_S
      const average = measured.length ? measured.reduce((a, b) => a + b, 0) / measured.length : estimate
      return capacityCells(ctx).flatMap((cell): Task[] => {
        const own = searches.find(sameCell(cell))?.steps ?? []
        const spentS = own.reduce((sum, x) => sum + (took.get(MEASUREMENTS.key(x.row)) ?? average), 0)
        const next = nextCapacityStep(own, s, { spentS, stepS: estimate })
        const label = `${cell.proxy} ${cell.version} ${cell.variant}${cell.keyType === 'ec256' ? '' : ` ${cell.keyType}`}`
        if ('done' in next) {
          if (!said.has(label)) ctx.log.info(`capacity ${label} under ${s.slo.text}: ${next.done}`)
          said.add(label)
          return []
        }
        // Each rate's repeats count every attempt at it (any SLO), so a new one never shares a row key.
        const repeat = 1 + Math.max(0, ...rows.filter((r) => sameCell(cell)(r) && r.target_rps === next.rate).map((r) => r.repeat))
        const key = cellRowKey(cell, repeat, 'open', next.rate)
        const task: Task = {
          label: `capacity ${label} ${next.rate} rps (${next.why}; VUs ${OPEN_PREALLOC}..${cell.connections})`,
          table: MEASUREMENTS as Task['table'],
          key,
          cellId: cellOfRepeatId(key),
          repeat,
          again: () => task,
          subject: cell,
          run: async () => {
            const t0 = Date.now()
            const row = await measureOpen(cell, repeat, next.rate, ctx)
            took.set(key, (Date.now() - t0) / 1000)
            return withDisturbance({ ...row, slo: s.slo.text })
          },
        }
        return [task]
      })
    },
  })
  return { name: 'capacity', phases: Array.from({ length: MAX_CAPACITY_STEPS + 1 }, (_, i) => phase(i)) }
}
