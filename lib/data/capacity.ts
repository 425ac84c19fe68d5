import { groupBy } from './grouping.ts'
import { isDisturbed } from './precision.ts'
import type { Measurement } from './schema.ts'
import { parseSlo, sloMisses } from './slo.ts'

/** The `series` value of the capacity search's rows in measurements.csv. */
export const CAPACITY_SERIES = 'capacity'

/**
 * pass: a valid row that meets the SLO. miss: a valid row that does not. invalid: the row
 * cannot be used (errors, drops, rate not reached, generator saturated, disturbed): never
 * a pass. failed: nothing was measured (the stack did not start).
 */
export type StepVerdict = 'pass' | 'miss' | 'invalid' | 'failed'

export interface CapacityStep {
  rate: number
  repeat: number
  verdict: StepVerdict
  /** Why it is not a pass: the SLO terms missed, or the row's reason. */
  why: string
  /**
   * Invalid only because the window was disturbed: the search measures that rate again. A
   * disturbed window that also dropped, failed or fell short of the rate is a plain invalid
   * step: the overload is evidence against the rate, disturbed or not.
   */
  disturbed: boolean
  row: Measurement
}

/** One cell's search under one SLO: its steps in the order measured and what they found. */
export interface CapacitySearch {
  proxy: string
  version: string
  variant: string
  key_type: string
  connections: number
  slo: string
  steps: CapacityStep[]
  /** The passing step at the highest rate; null when no step passed. */
  found: CapacityStep | null
  /** What stopped it above `found`: the lowest rate that did not pass and why; '' when none did. */
  limit: string
}

/** A capacity row judged against its SLO (the row's own `slo` column unless one is given). */
export function capacityStep(r: Measurement, sloText = r.slo ?? ''): CapacityStep {
  const base = { rate: r.target_rps ?? 0, repeat: r.repeat, row: r, disturbed: isDisturbed(r) && r.reason.split('; ').length === 1 }
  if (r.status === 'failed') return { ...base, verdict: 'failed', why: r.reason }
  if (r.status === 'invalid') return { ...base, verdict: 'invalid', why: r.reason }
  const misses = sloMisses(r, parseSlo(sloText, `${CAPACITY_SERIES} row slo "${sloText}"`))
  return { ...base, verdict: misses.length ? 'miss' : 'pass', why: misses.join('; ') }
}

/** The searches in a run's rows (capacity rows only), grouped by cell and SLO, in the order first measured. */
export function capacitySearches(rows: readonly Measurement[]): CapacitySearch[] {
  const own = rows.filter((r) => r.series === CAPACITY_SERIES && r.model === 'open' && r.target_rps !== null)
  const searches = [...groupBy(own, (r) => [r.proxy, r.version, r.variant, r.key_type, r.connections, r.slo ?? '']).values()].map((g) => {
    const r = g[0]!
    return {
      proxy: r.proxy,
      version: r.version,
      variant: r.variant,
      key_type: r.key_type,
      connections: r.connections,
      slo: r.slo ?? '',
      steps: g.map((x) => capacityStep(x)),
    }
  })
  return searches.map((s) => {
    const found =
      s.steps
        .filter((x) => x.verdict === 'pass')
        .sort((a, b) => a.rate - b.rate)
        .at(-1) ?? null
    const above = s.steps
      .filter((x) => x.verdict !== 'pass' && x.rate > (found?.rate ?? 0))
      .sort((a, b) => a.rate - b.rate || Number(a.disturbed) - Number(b.disturbed))[0]
    return { ...s, found, limit: above ? `${above.rate} rps: ${above.why}` : '' }
  })
}
