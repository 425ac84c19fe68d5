import { medianInterval } from '../core/intervals.ts'
import { summarize } from '../core/stats.ts'
import type { Measurement } from '../data/schema.ts'
import type { RowSeries } from '../data/series.ts'
import { openRowsOutcome } from '../claims/checks/open-outcome.ts'
import { withUnit } from '../claims/words.ts'
import { failShare, validButForErrors, type OpenOutcome } from '../data/open-outcome.ts'
import type { Finding } from './types.ts'

const fmt = (x: number, d = 0) => x.toFixed(d)

/**
 * F6's figures beside its ledger line (baselines/published/findings.yaml): the open model at
 * half HAProxy's ceiling (recorded, not judged) and the generator calibration. F5's and F6's
 * judged lines are groups of ledger claims.
 */
export function tlsFindings(rows: readonly Measurement[]): Finding[] {
  const half = openFigure(rows, 'tls-open-half')
  const f6half: Finding[] = half
    ? [
        {
          id: 'F6',
          title: `open model at half HAProxy's ceiling, ${half.rate ?? '?'} rps: what collapses there (recorded, not judged)`,
          verdict: 'info',
          figure: half.figure,
          intervals: half.intervals,
        },
      ]
    : []

  // Calibration: where the open model first "fails", and how busy the proxy was then.
  const steps = rows.filter((r) => r.series === 'tls-calibration' && validButForErrors(r)).sort((a, b) => (a.target_rps ?? 0) - (b.target_rps ?? 0))
  const ceilingRows = rows.filter((r) => r.series === 'tls-ceiling' && r.key_type === 'ec256' && r.status === 'valid' && steps[0] && r.proxy === steps[0].proxy)
  const closed = ceilingRows.length ? summarize(ceilingRows.map((r) => r.rps!)).median : undefined
  const fails = steps.find((r) => (r.rps ?? 0) < 0.95 * (r.target_rps ?? 0) || failShare(r) > 0.01)
  const calib: Finding = {
    id: 'F6',
    title: 'calibration: where the open model first fails, and the proxy CPU then',
    verdict: steps.length === 0 ? 'not measured' : 'info',
    figure:
      steps.length === 0
        ? ''
        : fails
          ? `${steps[0]!.proxy} fails at ${fails.target_rps} rps (achieved ${fmt(fails.rps ?? 0)}, ${withUnit(failShare(fails) * 100, 'failed_pct')}) with the proxy at ${fmt((fails.proxy_cpu_share ?? 0) * 100)}% CPU and the generator at ${fmt((fails.generator_cpu_share ?? 0) * 100)}%; closed model: ${fmt(closed ?? 0)} rps`
          : `${steps[0]!.proxy} held every step up to ${steps.at(-1)!.target_rps} rps; closed model: ${fmt(closed ?? 0)} rps`,
  }
  return [...f6half, calib]
}

/** What each proxy's open-model cells show at one series' rate (median repeat), or null with no such rows. */
function openFigure(
  rows: readonly Measurement[],
  series: RowSeries,
): { rate: number | null | undefined; figure: string; intervals: Finding['intervals'] } | null {
  const open = rows.filter((r) => r.series === series && validButForErrors(r))
  if (open.length === 0) return null
  const cell = (proxy: string, kt: string) => open.filter((r) => r.proxy === proxy && r.key_type === kt)
  const openProxies = [...new Set(open.map((r) => r.proxy))].sort()
  const describe = (p: string, kt: string, outcome: OpenOutcome) => {
    const rs = cell(p, kt)
    return rs.length === 0 ? 'n/a' : openRowsOutcome(rs, outcome).figure
  }
  return {
    rate: open[0]?.target_rps,
    figure: `${openProxies.map((p) => `${p} ec256 ${describe(p, 'ec256', 'holds')} / rsa4096 ${describe(p, 'rsa4096', 'collapses')}`).join('; ')} (median repeat; valid rows and rows invalid only because requests failed: errors, dropped iterations, a rate not reached)`,
    intervals: openProxies.flatMap((p) =>
      ['ec256', 'rsa4096'].flatMap((kt) => {
        const rs = cell(p, kt)
        return rs.length ? [{ label: `${p} ${kt} failed share`, interval: medianInterval(new Map(rs.map((r) => [r.repeat, failShare(r)]))) }] : []
      }),
    ),
  }
}
