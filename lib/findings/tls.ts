import { GO_PROXIES } from '../catalog/variants.ts'
import { summarize } from '../core/stats.ts'
import type { Handshake, Measurement } from '../data/schema.ts'
import type { Finding } from './types.ts'

const fmt = (x: number, d = 0) => x.toFixed(d)

/** F5 (handshake cost per key type), F6 (open-model collapse) and the generator calibration. */
export function tlsFindings(handshakes: readonly Handshake[], rows: readonly Measurement[]): Finding[] {
  const cost = (proxy: string, kt: string) => {
    const v = handshakes.filter((h) => h.proxy === proxy && h.key_type === kt && h.status === 'valid' && h.proxy_cpu_us_per_handshake !== null).map((h) => h.proxy_cpu_us_per_handshake!)
    return v.length ? summarize(v).median : undefined
  }
  const proxies = [...new Set(handshakes.map((h) => h.proxy))].sort()
  const per = proxies.flatMap((p) => {
    const ec = cost(p, 'ec256')
    const rsa = cost(p, 'rsa4096')
    return ec && rsa ? [{ p, ec, rsa, r: rsa / ec }] : []
  })
  const others = per.filter((x) => !GO_PROXIES.includes(x.p))
  const go = per.filter((x) => GO_PROXIES.includes(x.p))
  const otherMedian = others.length ? summarize(others.map((x) => x.rsa)).median : undefined
  const f5: Finding[] = [
    {
      id: 'F5', title: 'full handshake: rsa4096 / ec256 >= 8 for every proxy (seed: 13.6x)',
      verdict: per.length === 0 ? 'not measured' : per.every((x) => x.r >= 8) ? 'held' : 'not held',
      figure: per.map((x) => `${x.p} ${fmt(x.ec)} → ${fmt(x.rsa)} µs (${x.r.toFixed(1)}x)`).join(', '),
    },
    {
      id: 'F5', title: 'rsa4096: Go proxies >= 1.5x the OpenSSL/BoringSSL median (seed: ~2x)',
      verdict: !otherMedian || go.length === 0 ? 'not measured' : go.every((x) => x.rsa / otherMedian >= 1.5) ? 'held' : 'not held',
      figure: otherMedian ? `${go.map((x) => `${x.p} ${(x.rsa / otherMedian).toFixed(2)}x`).join(', ')} of ${fmt(otherMedian)} µs` : '',
    },
  ]

  // F6: same rate, only the certificate changes.
  const open = rows.filter((r) => r.series === 'tls-open')
  const failShare = (r: Measurement) => ((r.errors ?? 0) + (r.dropped ?? 0)) / Math.max(1, r.requests + (r.errors ?? 0) + (r.dropped ?? 0))
  const worst = (proxy: string, kt: string) => open.filter((r) => r.proxy === proxy && r.key_type === kt && r.status !== 'failed').sort((a, b) => failShare(b) - failShare(a))[0]
  const openProxies = [...new Set(open.map((r) => r.proxy))].sort()
  const describe = (r?: Measurement) => (r ? `${(failShare(r) * 100).toFixed(1)}% failed, ${r.max_vus} VUs` : 'n/a')
  const ecHolds = openProxies.every((p) => {
    const r = worst(p, 'ec256')
    return r && failShare(r) <= 0.01 && (r.max_vus ?? 0) < r.connections / 2
  })
  const goCollapse = openProxies.filter((p) => GO_PROXIES.includes(p)).every((p) => {
    const r = worst(p, 'rsa4096')
    return r && ((r.max_vus ?? 0) >= r.connections || failShare(r) >= 0.05)
  })
  const rate = open[0]?.target_rps
  const f6: Finding = {
    id: 'F6', title: `open model at ${rate ?? '?'} rps: ec256 holds, rsa4096 collapses (Go proxies at least)`,
    verdict: openProxies.length === 0 ? 'not measured' : ecHolds && goCollapse ? 'held' : 'not held',
    figure: openProxies.map((p) => `${p} ec256 ${describe(worst(p, 'ec256'))} / rsa4096 ${describe(worst(p, 'rsa4096'))}`).join('; '),
  }

  // Calibration: where the open model first "fails", and how busy the proxy was then.
  const steps = rows.filter((r) => r.series === 'tls-calibration').sort((a, b) => (a.target_rps ?? 0) - (b.target_rps ?? 0))
  const ceilingRows = rows.filter((r) => r.series === 'tls-ceiling' && r.status === 'valid' && steps[0] && r.proxy === steps[0].proxy)
  const closed = ceilingRows.length ? summarize(ceilingRows.map((r) => r.rps!)).median : undefined
  const fails = steps.find((r) => (r.rps ?? 0) < 0.95 * (r.target_rps ?? 0) || failShare(r) > 0.01)
  const calib: Finding = {
    id: 'F6', title: 'calibration: where the open model first fails, and the proxy CPU then',
    verdict: steps.length === 0 ? 'not measured' : 'info',
    figure: steps.length === 0 ? '' : fails
      ? `${steps[0]!.proxy} fails at ${fails.target_rps} rps (achieved ${fmt(fails.rps ?? 0)}, ${(failShare(fails) * 100).toFixed(1)}% failed) with the proxy at ${fmt((fails.proxy_cpu_share ?? 0) * 100)}% CPU and the generator at ${fmt((fails.generator_cpu_share ?? 0) * 100)}%; closed model: ${fmt(closed ?? 0)} rps`
      : `${steps[0]!.proxy} held every step up to ${steps.at(-1)!.target_rps} rps; closed model: ${fmt(closed ?? 0)} rps`,
  }
  return [...f5, f6, calib]
}
