import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { Measurement } from '../data/schema.ts'
import { cpuCount } from '../roles/cpus.ts'
import { datagramsPer, h3ProtocolIssue, loadgenArgv, type H3OpenResult, type OpenResult } from '../roles/loadgen.ts'
import { withVerifiedStack, type CellPlan, type CellContext } from './cell.ts'
import { disturbanceColumns } from './disturbance.ts'
import { runGenerator } from './generator.ts'
import { h3Url, verifyH3 } from './h3.ts'
import { countColumns, measurementRow, noCounts, outcomes } from './rows.ts'
import { calibratedColumns } from './closed.ts'
import { invalidReasons } from './validity.ts'

/** VUs (connections) each open-model run starts with; the cell's connections are the cap. */
export const OPEN_PREALLOC = 50

const round = (x: number, d = 3) => Number(x.toFixed(d))

/**
 * One open-model run at a fixed rate: rows with model=open, target_rps, max_vus, dropped.
 * h3 cells run loadgen h3 -rate (a virtual user is a QUIC connection) after an h3 check.
 */
export async function measureOpen(cell: CellPlan, repeat: number, rate: number, ctx: CellContext): Promise<Measurement> {
  const seconds = ctx.profile.warmupS + ctx.profile.durationS
  const row = measurementRow(cell, repeat, ctx, { model: 'open', targetRps: rate, durationS: seconds })
  const name = repeatStem(cell, repeat, { rate })
  const quic = cell.protocol === 'h3'
  return withVerifiedStack(cell, name, ctx, outcomes(row), async (s) => {
    const { proxy, backend, url, roles } = s
    const target = quic ? h3Url(s, cell) : url
    const h3Issue = quic ? await verifyH3(target, cell, ctx, { name: `h3-${s.backend.port}`, scratch: s.scratch }) : null
    if (h3Issue) return row({ status: 'invalid', reason: `verification failed: ${h3Issue}` })
    const argv = loadgenArgv(quic ? 'h3' : 'open', target, ctx.certs.ca, {
      rate,
      d: `${seconds}s`,
      prealloc: OPEN_PREALLOC,
      'max-vus': cell.connections,
      'expect-body': 'hello world',
    })
    // The direct row (no proxy) runs the same protocol; only the backend is watched then.
    const g = await runGenerator<OpenResult & Partial<H3OpenResult>>(
      ctx,
      name,
      argv,
      rawFile(ctx.runDir, name, quic ? 'h3.json' : 'open.json'),
      proxy ? [proxy, backend.role] : [backend.role],
      roles,
      seconds,
      { count: [proxy ?? backend.role] },
    )
    const r = g.result
    const proxyNs = proxy ? g.cpuNs.get(proxy)! : null
    const perReq = (ns: number) => (r && r.ok > 0 ? round(ns / 1e3 / r.ok) : null)
    const reasons = invalidReasons({
      generatorRequests: r?.ok ?? 0,
      generatorErrors: r?.errors ?? 0,
      dropped: r?.dropped ?? 0,
      targetRps: rate,
      achievedRps: r?.achieved_rate ?? null,
      windowRequests: r?.ok ?? 0,
      generatorCpuShare: g.generatorShare,
      exited: g.exit ?? (quic && r ? h3ProtocolIssue({ alpn: r.alpn ?? '', proto: r.proto ?? '', ok: r.ok }) : null),
    })
    const proxyPerReq = proxyNs === null ? null : perReq(proxyNs)
    const backendPerReq = perReq(g.cpuNs.get(backend.role)!)
    const counted = countColumns(g.counts.get(proxy ?? backend.role), r?.ok ?? 0, proxy ? proxyPerReq : backendPerReq)
    return row({
      ...(proxy ? counted : noCounts("direct row: no proxy (proxy_cpu_calibrated is the backend's)")),
      ...calibratedColumns(counted, ctx),
      requests: r?.ok ?? 0,
      errors: r?.errors ?? 0,
      rps: r ? round(r.achieved_rate, 1) : null,
      p50_ms: r?.p50_ms ?? null,
      p90_ms: r?.p90_ms ?? null,
      p99_ms: r?.p99_ms ?? null,
      p999_ms: r?.p999_ms ?? null,
      max_ms: r?.max_ms ?? null,
      proxy_cpu_us_per_req: proxyPerReq,
      backend_cpu_us_per_req: backendPerReq,
      generator_cpu_share: g.generatorShare,
      max_vus: r?.max_vus ?? null,
      dropped: r?.dropped ?? null,
      ...(quic ? { udp_datagrams_per_req: datagramsPer(r ? (r.udp_datagrams_sent ?? 0) + (r.udp_datagrams_received ?? 0) : undefined, r?.ok ?? 0) } : {}),
      proxy_cpu_share: proxyNs === null ? null : round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
      status: reasons.length ? 'invalid' : 'valid',
      reason: reasons.join('; '),
      ...disturbanceColumns(g.disturbance),
    })
  })
}
