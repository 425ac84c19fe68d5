import { formatTable } from '../core/text-table.ts'
import { capacitySearches, type CapacitySearch } from '../data/capacity.ts'
import type { Measurement } from '../data/schema.ts'
import { errorShare } from '../data/slo.ts'
import { MEASUREMENTS, readTable } from '../data/tables.ts'
import type { Finding } from './types.ts'

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(0)}%`)

/** One search in words: the rate found, the proxy's CPU share and cost there, what stopped it. */
export function capacityFigure(s: CapacitySearch): string {
  const f = s.found
  const found = f
    ? `${f.rate} rps meets ${s.slo} (p99 ${f.row.p99_ms ?? '—'} ms, proxy CPU ${pct(f.row.proxy_cpu_share)}, ${f.row.proxy_cpu_us_per_req ?? '—'} µs/req)`
    : `no rate meets ${s.slo}`
  return `${found}; ${s.steps.length} step${s.steps.length === 1 ? '' : 's'}${s.limit ? `; above: ${s.limit}` : ''}`
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

const pct1 = (x: number | null) => (x === null ? '—' : `${Number((x * 100).toPrecision(2))}%`)

/** Every step of every search as text tables (what capacity.mjs prints under the findings). */
export function formatCapacitySteps(rows: readonly Measurement[]): string {
  return capacitySearches(rows)
    .map((s) => {
      const lines = s.steps.map((x, i) => ({
        step: i + 1,
        'target rps': x.rate,
        'achieved rps': x.row.rps ?? '—',
        'p99 ms': x.row.p99_ms ?? '—',
        errors: pct1(errorShare(x.row)),
        'proxy CPU': pct(x.row.proxy_cpu_share),
        'µs/req': x.row.proxy_cpu_us_per_req ?? '—',
        verdict: x.verdict,
        why: x.why,
      }))
      return [
        `  ${s.proxy} ${s.version} ${s.variant}${s.key_type === 'ec256' ? '' : ` ${s.key_type}`} under ${s.slo}:`,
        formatTable(lines, ['step', 'target rps', 'achieved rps', 'p99 ms', 'errors', 'proxy CPU', 'µs/req', 'verdict', 'why']).replace(/^/gm, '    '),
      ].join('\n')
    })
    .join('\n\n')
}

/** The steps of a run directory's searches, for the capacity notebook. */
export const capacityStepsOf = (runDir: string): string => formatCapacitySteps(readTable(runDir, MEASUREMENTS))
