import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { WebSocketRow } from '../data/schema.ts'
import { loadgenArgv, type WsEchoResult, type WsHoldResult } from '../roles/loadgen.ts'
import { withVerifiedStack, type CellPlan, type CellContext } from './cell.ts'
import { disturbanceColumns } from './disturbance.ts'
import { runGenerator } from './generator.ts'
import { countColumns, outcomes, websocketRow } from './rows.ts'
import { invalidReasons } from './validity.ts'

export const ECHO_CONNECTIONS = 200
/**
 * Held connections, hold time and the limit for one upgrade per profile: quick stays above
 * Envoy's 1024 so its cap shows. The connections over the cap wait for the limit; an upgrade
 * here answers in milliseconds, so smoke and quick give up after 5 s (their time budget).
 */
export const HOLD: Record<string, { conns: number; holdS: number; openRate: number; upgradeTimeoutS: number }> = {
  smoke: { conns: 1200, holdS: 5, openRate: 1000, upgradeTimeoutS: 5 },
  quick: { conns: 1500, holdS: 5, openRate: 1000, upgradeTimeoutS: 5 },
  standard: { conns: 5000, holdS: 60, openRate: 1000, upgradeTimeoutS: 10 },
  full: { conns: 5000, holdS: 300, openRate: 1000, upgradeTimeoutS: 10 },
}
const PING_S = 5

const round = (x: number, d = 3) => Number(x.toFixed(d))
const counts = (m: Record<string, number>) =>
  Object.entries(m)
    .map(([k, v]) => `${k} × ${v}`)
    .join(', ')

const wsUrl = (url: string) => url.replace(/^https:/, 'wss:').replace(/^http:/, 'ws:') + 'ws'

/** Echo: messages back to back over N connections; a failed upgrade is a result (status failed, with the HTTP status). */
export async function measureEcho(c: CellPlan, repeat: number, ctx: CellContext): Promise<WebSocketRow> {
  const row = websocketRow(c, 'echo', repeat, ctx, ctx.profile.durationS)
  const name = repeatStem(c, repeat, { mode: 'echo' })
  return withVerifiedStack(c, name, ctx, outcomes(row), async ({ proxy, url, roles }) => {
    const argv = loadgenArgv('ws-echo', wsUrl(url), ctx.certs.ca, { c: c.connections, d: `${ctx.profile.durationS}s` })
    const g = await runGenerator<WsEchoResult>(ctx, name, argv, rawFile(ctx.runDir, name, 'ws-echo.json'), [proxy!], roles, ctx.profile.durationS + 5)
    const r = g.result
    if (r && r.conns_established === 0)
      return row({
        status: 'failed',
        reason: `upgrade failed: ${counts(Object.fromEntries(Object.entries(r.upgrade_status).map(([s, n]) => [s === '0' ? 'no HTTP answer' : `HTTP ${s}`, n])))}`,
        generator_cpu_share: g.generatorShare,
      })
    const reasons = invalidReasons({
      generatorRequests: r?.messages ?? 0,
      generatorErrors: 0,
      windowRequests: r?.messages ?? 0,
      generatorCpuShare: g.generatorShare,
      exited: g.exit,
    })
    if (r && r.failed_upgrades > 0) reasons.push(`${r.failed_upgrades} of ${r.conns_target} upgrades failed (${counts(r.upgrade_status)})`)
    if (r && r.errors > 0) reasons.push(`${r.errors} connections failed mid-run (${r.error_samples[0] ?? ''})`)
    const proxyNs = g.cpuNs.get(proxy!)!
    const perMsg = r && r.messages > 0 ? round(proxyNs / 1e3 / r.messages) : null
    return row({
      ...countColumns(g.counts.get(proxy!), r?.messages ?? 0, perMsg),
      conns_established: r?.conns_established ?? 0,
      messages: r?.messages ?? 0,
      msg_rate: r ? round(r.msg_rate, 1) : null,
      proxy_cpu_us_per_msg: perMsg,
      p50_ms: r?.p50_ms ?? null,
      p99_ms: r?.p99_ms ?? null,
      max_ms: r?.max_ms ?? null,
      generator_cpu_share: g.generatorShare,
      status: reasons.length ? 'invalid' : 'valid',
      reason: reasons.join('; '),
      ...disturbanceColumns(g.disturbance),
    })
  })
}

/** Hold: N idle connections opened at a bounded rate, pinged; how many are established and survive. */
export async function measureHold(c: CellPlan, repeat: number, ctx: CellContext): Promise<WebSocketRow> {
  const hold = HOLD[ctx.profile.name] ?? HOLD.quick!
  const row = websocketRow(c, 'hold', repeat, ctx, hold.holdS)
  const name = repeatStem(c, repeat, { mode: 'hold' })
  return withVerifiedStack(c, name, ctx, outcomes(row), async ({ proxy, url, roles }) => {
    const argv = loadgenArgv('ws-hold', wsUrl(url), ctx.certs.ca, {
      n: c.connections,
      'open-rate': hold.openRate,
      hold: `${hold.holdS}s`,
      ping: `${PING_S}s`,
      timeout: `${hold.upgradeTimeoutS}s`,
    })
    const g = await runGenerator<WsHoldResult>(
      ctx,
      name,
      argv,
      rawFile(ctx.runDir, name, 'ws-hold.json'),
      [proxy!],
      roles,
      hold.holdS + hold.conns / hold.openRate + hold.upgradeTimeoutS + 10,
    )
    const r = g.result
    // Fewer established or surviving connections are the result (Envoy's 1024), said in reason; only the bench itself invalidates.
    const reasons = invalidReasons({ generatorRequests: 1, generatorErrors: 0, windowRequests: 1, generatorCpuShare: g.generatorShare, exited: g.exit })
    const notes = r
      ? [
          r.refused ? `refused ${r.refused}: ${counts(r.refusal_reasons)}` : '',
          r.closed_early ? `closed early ${r.closed_early}: ${counts(r.close_reasons)}` : '',
        ].filter(Boolean)
      : []
    const perPing = r && r.pings > 0 ? round(g.cpuNs.get(proxy!)! / 1e3 / r.pings) : null
    return row({
      ...countColumns(g.counts.get(proxy!), r?.pings ?? 0, perPing),
      conns_established: r?.conns_established ?? 0,
      survived: r?.survived ?? null,
      refused: r?.refused ?? null,
      closed_early: r?.closed_early ?? null,
      messages: r?.pings ?? 0,
      p50_ms: r?.ping_p50_ms ?? null,
      p99_ms: r?.ping_p99_ms ?? null,
      max_ms: r?.ping_max_ms ?? null,
      generator_cpu_share: g.generatorShare,
      proxy_cpu_us_per_msg: perPing,
      status: reasons.length ? 'invalid' : 'valid',
      reason: [...reasons, ...notes].join('; '),
      ...disturbanceColumns(g.disturbance),
    })
  })
}
