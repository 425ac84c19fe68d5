import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { Handshake } from '../data/schema.ts'
import { cpuCount } from '../roles/cpus.ts'
import { datagramsPer, loadgenArgv, type H3HandshakeResult, type HandshakeResult } from '../roles/loadgen.ts'
import { withVerifiedStack, type CellPlan, type CellContext } from './cell.ts'
import { disturbanceColumns } from './disturbance.ts'
import { runGenerator } from './generator.ts'
import { h3Url, verifyH3 } from './h3.ts'
import { referenceColumns, referenceNote } from './reference.ts'
import { countColumns, handshakeRow, outcomes } from './rows.ts'
import { invalidReasons } from './validity.ts'

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
  const quic = cell.protocol === 'h3'
  return withVerifiedStack(cell, name, ctx, outcomes(row), async (s) => {
    const { proxy, url, roles } = s
    const target = quic ? h3Url(s, cell) : url
    const h3Issue = quic ? await verifyH3(target, cell, ctx, { name: `h3-${s.backend.port}`, scratch: s.scratch }) : null
    if (h3Issue) return row({ status: 'invalid', reason: `verification failed: ${h3Issue}` })
    const argv = loadgenArgv(quic ? 'h3-handshake' : 'handshake', target, ctx.certs.ca, {
      c: cell.connections,
      d: `${ctx.profile.durationS}s`,
      'expect-body': 'hello world',
      resume: resumption,
    })
    // Both print the fields of loadgen handshake; the QUIC ones only h3-handshake.
    const g = await runGenerator<HandshakeResult & Partial<H3HandshakeResult>>(
      ctx,
      name,
      argv,
      rawFile(ctx.runDir, name, quic ? 'h3-handshake.json' : 'handshake.json'),
      [proxy!],
      roles,
      ctx.profile.durationS,
      { withReference: true },
    )
    const r = g.result
    const proxyNs = g.cpuNs.get(proxy!)!
    const reasons = invalidReasons({
      generatorRequests: r?.handshakes ?? 0,
      generatorErrors: r?.errors ?? 0,
      windowRequests: r?.handshakes ?? 0,
      generatorCpuShare: g.generatorShare,
      exited: g.exit,
    })
    if (r && r.resumed > 0 && resumption === 'none') reasons.unshift(`${r.resumed} handshakes were resumed, not full`)
    if (r && quic)
      reasons.unshift(...quicHandshakeIssues({ handshakes: r.handshakes, resumed: r.resumed, alpn: r.alpn ?? '', early_data: r.early_data ?? 0 }, resumption))
    const perHandshake = r && r.handshakes > 0 ? round(proxyNs / 1e3 / r.handshakes) : null
    const refNote = referenceNote(g.reference)
    return row({
      ...countColumns(g.counts.get(proxy!), r?.handshakes ?? 0, perHandshake),
      handshakes: r?.handshakes ?? 0,
      resumed: r?.resumed ?? 0,
      errors: r?.errors ?? 0,
      rate: r ? round(r.rate, 1) : null,
      p50_ms: r?.p50_ms ?? null,
      p99_ms: r?.p99_ms ?? null,
      proxy_cpu_us_per_handshake: perHandshake,
      ...(quic
        ? {
            udp_datagrams_per_req: datagramsPer(r ? (r.udp_datagrams_sent ?? 0) + (r.udp_datagrams_received ?? 0) : undefined, r?.handshakes ?? 0),
            early_data: r?.early_data ?? 0,
          }
        : {}),
      generator_cpu_share: g.generatorShare,
      proxy_cpu_share: round(proxyNs / 1e9 / (g.wallS * cpuCount(ctx.cpus.proxy)), 4),
      status: reasons.length ? 'invalid' : 'valid',
      reason: [...reasons, ...(refNote ? [refNote] : [])].join('; '),
      ...disturbanceColumns(g.disturbance),
      ...referenceColumns(g.reference, perHandshake),
    })
  })
}
