import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { Handshake } from '../data/schema.ts'
import { cpuCount } from '../roles/cpus.ts'
import { datagramsPer, loadgenArgv, type H3HandshakeResult, type HandshakeResult } from '../roles/loadgen.ts'
import { withVerifiedStack, type CellPlan, type CellContext, type RunningStack } from './cell.ts'
import { backendStats } from '../roles/backend.ts'
import { cpuPerUnit, judgedColumns, runGenerator, type GeneratorOutcome } from './generator.ts'
import { loadTarget } from './h3.ts'
import { countColumns, handshakeRow, outcomes } from './rows.ts'
import { invalidReasons } from './validity.ts'
import type { RunningRole } from '../runtime/types.ts'

const round = (x: number, d = 3) => Number(x.toFixed(d))

/**
 * The problems of a QUIC handshake run beyond those of any handshake run: a protocol other
 * than h3, or a 0-RTT cell whose proxy accepted no early data (its template is meant to:
 * stack.yaml early_data), which would price a plain resumption as 0-RTT.
 */
export function quicHandshakeIssues(
  r: Pick<H3HandshakeResult, 'handshakes' | 'alpn' | 'early_data' | 'resumed'>,
  resumption: NonNullable<CellPlan['resumption']>,
): string[] {
  const issues: string[] = []
  if (r.handshakes > 0 && r.alpn !== 'h3') issues.push(`ALPN ${r.alpn || 'none'}, expected h3`)
  if (resumption === '0rtt' && r.resumed > 0 && r.early_data === 0)
    issues.push(`0-RTT offered on ${r.resumed} resumed connections, the proxy accepted it on none`)
  return issues
}

type HandshakeReport = HandshakeResult & Partial<H3HandshakeResult>

/**
 * Handshakes (+ one GET each) for one key type: proxy CPU per handshake. Full ones unless
 * the cell asks the client to resume (the resumption series, the h3 series): then the row's
 * resumed count is the proxy's answer, not a fault. h3 cells handshake over QUIC
 * (loadgen h3-handshake) after an h3 check of the stack, and count UDP datagrams per handshake.
 */
export async function measureHandshakes(cell: CellPlan, repeat: number, ctx: CellContext): Promise<Handshake> {
  const filled = handshakeRow(cell, repeat, ctx)
  const resumption = cell.resumption ?? 'none'
  const row = (fields: Partial<Handshake>) => filled({ ...(cell.resumption ? { resumption } : {}), ...fields })
  const name = repeatStem(cell, repeat)
  return withVerifiedStack(cell, name, ctx, outcomes(row), async (s) => {
    const target = await loadTarget(cell, s, ctx)
    if (target.issue) return row({ status: 'invalid', reason: `verification failed: ${target.issue}` })
    const g = await runHandshakeGenerator(cell, name, target.url, s, ctx)
    return row(handshakeFields(cell, g, s.proxy!, ctx))
  })
}

/** Runs loadgen handshake (h3: h3-handshake) for the profile's duration (longer when it extends itself), watching the proxy. */
function runHandshakeGenerator(cell: CellPlan, name: string, url: string, s: RunningStack, ctx: CellContext) {
  const quic = cell.protocol === 'h3'
  // Started for the longest window, interrupted once the window it took is over (docs/method/disturbance.md#extension).
  const argv = (runS: number) =>
    loadgenArgv(quic ? 'h3-handshake' : 'handshake', url, ctx.certs.ca, {
      c: cell.connections,
      d: `${runS}s`,
      'expect-body': 'hello world',
      resume: cell.resumption ?? 'none',
    })
  // Both print the fields of loadgen handshake; the QUIC ones only h3-handshake.
  return runGenerator<HandshakeReport>(
    ctx,
    name,
    argv,
    rawFile(ctx.runDir, name, quic ? 'h3-handshake.json' : 'handshake.json'),
    [s.proxy!],
    s.roles,
    ctx.profile.durationS,
    // One GET per handshake: the backend's requests count them.
    { work: async () => (await backendStats(s.backend)).requests },
  )
}

/** The columns of a handshake row from its generator run. */
function handshakeFields(cell: CellPlan, g: GeneratorOutcome<HandshakeReport>, proxy: RunningRole, ctx: CellContext): Partial<Handshake> {
  const r = g.result
  const proxyNs = g.cpuNs.get(proxy)!
  const reasons = handshakeInvalidReasons(cell, g)
  const perHandshake = cpuPerUnit(g, proxy, r?.handshakes ?? 0)
  return {
    ...countColumns(g.counts.get(proxy), r?.handshakes ?? 0, perHandshake),
    ...handshakeReportColumns(r),
    proxy_cpu_us_per_handshake: perHandshake,
    ...(cell.protocol === 'h3' ? quicColumns(r) : {}),
    generator_cpu_share: g.generatorShare,
    proxy_cpu_share: round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
    ...judgedColumns(g, reasons),
  }
}

/** Why a handshake run is invalid (empty: valid): the run's own reasons after those of resumption and QUIC. */
function handshakeInvalidReasons(cell: CellPlan, g: GeneratorOutcome<HandshakeReport>): string[] {
  const r = g.result
  const resumption = cell.resumption ?? 'none'
  const reasons = invalidReasons({
    generatorRequests: r?.handshakes ?? 0,
    generatorErrors: r?.errors ?? 0,
    windowRequests: r?.handshakes ?? 0,
    generatorCpuShare: g.generatorShare,
    exited: g.exit,
  })
  if (!r) return reasons
  if (r.resumed > 0 && resumption === 'none') reasons.unshift(`${r.resumed} handshakes were resumed, not full`)
  if (cell.protocol === 'h3')
    reasons.unshift(...quicHandshakeIssues({ handshakes: r.handshakes, resumed: r.resumed, alpn: r.alpn ?? '', early_data: r.early_data ?? 0 }, resumption))
  return reasons
}

/** The generator's own figures: handshakes, resumed, errors, rate, latency percentiles. */
function handshakeReportColumns(r: HandshakeReport | null): Partial<Handshake> {
  return {
    handshakes: r?.handshakes ?? 0,
    resumed: r?.resumed ?? 0,
    errors: r?.errors ?? 0,
    rate: r ? round(r.rate, 1) : null,
    p50_ms: r?.p50_ms ?? null,
    p99_ms: r?.p99_ms ?? null,
  }
}

/** Columns only an h3 cell has: UDP datagrams per handshake, early data accepted. */
function quicColumns(r: HandshakeReport | null): Partial<Handshake> {
  const datagrams = r ? (r.udp_datagrams_sent ?? 0) + (r.udp_datagrams_received ?? 0) : undefined
  return { udp_datagrams_per_req: datagramsPer(datagrams, r?.handshakes ?? 0), early_data: r?.early_data ?? 0 }
}
