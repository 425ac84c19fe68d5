import { GO_PROXIES } from '../catalog/variants.ts'
import { medianInterval } from '../core/intervals.ts'
import { median, summarize } from '../core/stats.ts'
import type { Measurement } from '../data/schema.ts'
import { byMajority, combine } from './decide.ts'
import type { Finding } from './types.ts'

const fmt = (x: number, d = 0) => x.toFixed(d)

/** Share of attempted requests that failed (errors and, in the open model, dropped). */
const failShare = (r: Measurement) => ((r.errors ?? 0) + (r.dropped ?? 0)) / Math.max(1, r.requests + (r.errors ?? 0) + (r.dropped ?? 0))

/** The reasons that are the collapse itself in the open model: errors, dropped iterations, a rate not reached. */
const COLLAPSE_REASON = /^(errors|dropped|achieved) /

/** Valid, or invalid only because requests failed (errors, dropped, rate not reached): the very thing the open-model findings measure. */
export const validButForErrors = (r: Measurement) =>
  r.status === 'valid' || (r.status === 'invalid' && r.reason !== '' && r.reason.split('; ').every((s) => COLLAPSE_REASON.test(s)))

/**
 * F6 (open-model collapse) and the generator calibration. F5's lines are groups of ledger
 * claims (baselines/published/findings.yaml).
 */
export function tlsFindings(rows: readonly Measurement[]): Finding[] {
  // F6: same rate, only the certificate changes. Each repeat holds or collapses; the median repeat decides.
  // tls-open is the seed's load and is judged; tls-open-half (half HAProxy's ceiling) is recorded beside it as info.
  const { rate: _seedRate, ...f6 } = openFinding(rows, 'tls-open')
  const { rate: halfRate, ...half } = openFinding(rows, 'tls-open-half')
  const f6half: Finding[] =
    half.verdict === 'not measured'
      ? []
      : [{ ...half, title: `open model at half HAProxy's ceiling, ${halfRate ?? '?'} rps: what collapses there (recorded, not judged)`, verdict: 'info' }]

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
          ? `${steps[0]!.proxy} fails at ${fails.target_rps} rps (achieved ${fmt(fails.rps ?? 0)}, ${(failShare(fails) * 100).toFixed(1)}% failed) with the proxy at ${fmt((fails.proxy_cpu_share ?? 0) * 100)}% CPU and the generator at ${fmt((fails.generator_cpu_share ?? 0) * 100)}%; closed model: ${fmt(closed ?? 0)} rps`
          : `${steps[0]!.proxy} held every step up to ${steps.at(-1)!.target_rps} rps; closed model: ${fmt(closed ?? 0)} rps`,
  }
  return [f6, ...f6half, calib]
}

/** F6 at one open-model series' rate: EC-256 holds, RSA-4096 collapses (Go proxies at least). */
function openFinding(rows: readonly Measurement[], series: string): Finding & { rate: number | null | undefined } {
  const open = rows.filter((r) => r.series === series && validButForErrors(r))
  const cell = (proxy: string, kt: string) => open.filter((r) => r.proxy === proxy && r.key_type === kt)
  const openProxies = [...new Set(open.map((r) => r.proxy))].sort()
  const holds = (r: Measurement) => failShare(r) <= 0.01 && (r.max_vus ?? 0) < r.connections / 2
  const collapses = (r: Measurement) => (r.max_vus ?? 0) >= r.connections || failShare(r) >= 0.05
  const ec = openProxies.map((p) => byMajority(cell(p, 'ec256').map(holds)))
  const goCollapse = openProxies.filter((p) => GO_PROXIES.includes(p)).map((p) => byMajority(cell(p, 'rsa4096').map(collapses)))
  const describe = (p: string, kt: string, outcome: (r: Measurement) => boolean) => {
    const rs = cell(p, kt)
    if (rs.length === 0) return 'n/a'
    const split = byMajority(rs.map(outcome)) === 'inconclusive' ? ', repeats split' : ''
    return `${(median(rs.map(failShare)) * 100).toFixed(1)}% failed, ${fmt(median(rs.map((r) => r.max_vus ?? 0)))} VUs${split}`
  }
  const rate = open[0]?.target_rps
  const f6: Finding & { rate?: number | null } = {
    id: 'F6',
    title: `open model at ${rate ?? '?'} rps: ec256 holds, rsa4096 collapses (Go proxies at least)`,
    verdict: openProxies.length === 0 ? 'not measured' : combine([combine(ec), combine(goCollapse)]),
    figure:
      openProxies.length === 0
        ? ''
        : `${openProxies.map((p) => `${p} ec256 ${describe(p, 'ec256', holds)} / rsa4096 ${describe(p, 'rsa4096', collapses)}`).join('; ')} (median repeat; valid rows and rows invalid only because requests failed: errors, dropped iterations, a rate not reached)`,
    intervals: openProxies.flatMap((p) =>
      ['ec256', 'rsa4096'].flatMap((kt) => {
        const rs = cell(p, kt)
        return rs.length ? [{ label: `${p} ${kt} failed share`, interval: medianInterval(new Map(rs.map((r) => [r.repeat, failShare(r)]))) }] : []
      }),
    ),
  }
  return { ...f6, rate }
}
