import { capacitySearches, type CapacitySearch } from '../data/capacity.ts'
import type { Measurement } from '../data/schema.ts'
import type { Finding } from './types.ts'

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(0)}%`)

/** One search in words: the rate found, the proxy's CPU share and cost there, what stopped it. */
export function capacityFigure(s: CapacitySearch): string {
  const f = s.found
  const found = f
    ? `${f.rate} rps meets ${s.slo} (p99 ${f.row.p99_ms ?? '—'} ms, proxy CPU ${pct(f.row.proxy_cpu_share)}, ${f.row.proxy_cpu_us_per_req ?? '—'} µs/req)`
    : `no rate meets ${s.slo}`
  return `${found}; ${s.steps.length} steps${s.limit ? `; above: ${s.limit}` : ''}`
}

/** One info finding per search: a figure to report, not a target (a single repeat per step, no interval). */
export function capacityFindings(rows: readonly Measurement[]): Finding[] {
  return capacitySearches(rows).map((s) => ({
    id: 'capacity',
    title: `${s.proxy} ${s.version} ${s.variant}${s.key_type === 'ec256' ? '' : ` ${s.key_type}`}`,
    verdict: 'info',
    figure: capacityFigure(s),
  }))
}
