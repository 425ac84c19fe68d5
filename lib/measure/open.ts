import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { Measurement } from '../data/schema.ts'
import { cpuCount } from '../roles/cpus.ts'
import { datagramsPer, h3ProtocolIssue, loadgenArgv, type H3OpenResult, type OpenResult } from '../roles/loadgen.ts'
import { withVerifiedStack, type CellPlan, type CellContext, type RunningStack } from './cell.ts'
import { backendStats } from '../roles/backend.ts'
import { cpuPerUnit, judgedColumns, runGenerator, type GeneratorOutcome } from './generator.ts'
import { loadTarget } from './h3.ts'
import { countColumns, measurementRow, noCounts, outcomes } from './rows.ts'
import { invalidReasons } from './validity.ts'

/** VUs (connections) each open-model run starts with; the cell's connections are the cap. */
export const OPEN_PREALLOC = 50

const round = (x: number, d = 3) => Number(x.toFixed(d))

type OpenReport = OpenResult & Partial<H3OpenResult>

/**
 * One open-model run at a fixed rate: rows with model=open, target_rps, max_vus, dropped.
 * h3 cells run loadgen h3 -rate (a virtual user is a QUIC connection) after an h3 check.
 */
export async function measureOpen(cell: CellPlan, repeat: number, rate: number, ctx: CellContext): Promise<Measurement> {
  const seconds = ctx.profile.warmupS + ctx.profile.durationS
  const row = measurementRow(cell, repeat, ctx, { model: 'open', targetRps: rate, durationS: seconds })
  const name = repeatStem(cell, repeat, { rate })
  return withVerifiedStack(cell, name, ctx, outcomes(row), async (s) => {
    const target = await loadTarget(cell, s, ctx)
    if (target.issue) return row({ status: 'invalid', reason: `verification failed: ${target.issue}` })
    const g = await runOpenGenerator(cell, name, rate, seconds, target.url, s, ctx)
    return row(openFields(cell, rate, g, s, ctx))
  })
}

/** Runs loadgen open (h3: loadgen h3 -rate) at `rate` for `seconds` (longer when it extends itself), watching the proxy and the backend. */
function runOpenGenerator(cell: CellPlan, name: string, rate: number, seconds: number, url: string, s: RunningStack, ctx: CellContext) {
  const { proxy, backend, roles } = s
  const quic = cell.protocol === 'h3'
  // Started for the longest window, interrupted once the window it took is over (docs/method/disturbance.md#extension).
  const argv = (runS: number) =>
    loadgenArgv(quic ? 'h3' : 'open', url, ctx.certs.ca, {
      rate,
      d: `${runS}s`,
      prealloc: OPEN_PREALLOC,
      'max-vus': cell.connections,
      'expect-body': 'hello world',
    })
  // The direct row (no proxy) runs the same protocol; only the backend is watched then.
  return runGenerator<OpenReport>(
    ctx,
    name,
    argv,
    rawFile(ctx.runDir, name, quic ? 'h3.json' : 'open.json'),
    proxy ? [proxy, backend.role] : [backend.role],
    roles,
    seconds,
    { count: [proxy ?? backend.role], work: async () => (await backendStats(backend)).requests },
  )
}

/** The columns of an open-model row from its generator run. */
function openFields(cell: CellPlan, rate: number, g: GeneratorOutcome<OpenReport>, s: RunningStack, ctx: CellContext): Partial<Measurement> {
  const { proxy, backend } = s
  const r = g.result
  const ok = r?.ok ?? 0
  const proxyNs = proxy ? g.cpuNs.get(proxy)! : null
  const proxyPerReq = proxy ? cpuPerUnit(g, proxy, ok) : null
  const backendPerReq = cpuPerUnit(g, backend.role, ok)
  const reasons = openInvalidReasons(cell, rate, g)
  return {
    ...(proxy ? countColumns(g.counts.get(proxy), ok, proxyPerReq) : noCounts('direct row: no proxy')),
    ...openReportColumns(r),
    proxy_cpu_us_per_req: proxyPerReq,
    backend_cpu_us_per_req: backendPerReq,
    generator_cpu_share: g.generatorShare,
    max_vus: r?.max_vus ?? null,
    dropped: r?.dropped ?? null,
    ...(cell.protocol === 'h3' ? { udp_datagrams_per_req: datagramsPer(sentAndReceived(r), ok) } : {}),
    proxy_cpu_share: proxyNs === null ? null : round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
    ...judgedColumns(g, reasons),
  }
}

/** UDP datagrams both ways, or undefined with no report. */
const sentAndReceived = (r: OpenReport | null) => (r ? (r.udp_datagrams_sent ?? 0) + (r.udp_datagrams_received ?? 0) : undefined)

/** Why an open-model run is invalid (empty: valid); an h3 run's protocol is checked when the generator exited cleanly. */
function openInvalidReasons(cell: CellPlan, rate: number, g: GeneratorOutcome<OpenReport>): string[] {
  const r = g.result
  return invalidReasons({
    generatorRequests: r?.ok ?? 0,
    generatorErrors: r?.errors ?? 0,
    dropped: r?.dropped ?? 0,
    targetRps: rate,
    achievedRps: r?.achieved_rate ?? null,
    windowRequests: r?.ok ?? 0,
    generatorCpuShare: g.generatorShare,
    exited: g.exit ?? (cell.protocol === 'h3' && r ? h3ProtocolIssue({ alpn: r.alpn ?? '', proto: r.proto ?? '', ok: r.ok }) : null),
  })
}

/** The generator's own figures: counts, achieved rate, latency percentiles. */
function openReportColumns(r: OpenReport | null): Partial<Measurement> {
  return {
    requests: r?.ok ?? 0,
    errors: r?.errors ?? 0,
    rps: r ? round(r.achieved_rate, 1) : null,
    p50_ms: r?.p50_ms ?? null,
    p90_ms: r?.p90_ms ?? null,
    p99_ms: r?.p99_ms ?? null,
    p999_ms: r?.p999_ms ?? null,
    max_ms: r?.max_ms ?? null,
  }
}
