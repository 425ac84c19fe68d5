import { rawFile, repeatStem } from '../data/raw-files.ts'
import type { WebSocketRow } from '../data/schema.ts'
import { loadgenArgv, type WsEchoResult, type WsHoldResult } from '../roles/loadgen.ts'
import { withVerifiedStack, type CellPlan, type CellContext } from './cell.ts'
import { disturbanceColumns } from './disturbance.ts'
import { backendStats } from '../roles/backend.ts'
import { cpuPerUnit, judgedColumns, runGenerator, type GeneratorOutcome } from './generator.ts'
import { countColumns, outcomes, websocketRow } from './rows.ts'
import { invalidReasons } from './validity.ts'
import type { RunningRole } from '../runtime/types.ts'

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
  return withVerifiedStack(c, name, ctx, outcomes(row), async ({ proxy, backend, url, roles }) => {
    // Started for the longest window, interrupted once the window it took is over (docs/method/disturbance.md#extension).
    const argv = (runS: number) => loadgenArgv('ws-echo', wsUrl(url), ctx.certs.ca, { c: c.connections, d: `${runS}s` })
    const g = await runGenerator<WsEchoResult>(ctx, name, argv, rawFile(ctx.runDir, name, 'ws-echo.json'), [proxy!], roles, ctx.profile.durationS, {
      work: async () => (await backendStats(backend)).ws_messages,
    })
    return row(echoFields(g, proxy!))
  })
}

/** The columns of an echo row from its generator run; no connection upgraded: failed, with the answers it got. */
function echoFields(g: GeneratorOutcome<WsEchoResult>, proxy: RunningRole): Partial<WebSocketRow> {
  const r = g.result
  if (r && r.conns_established === 0)
    return { status: 'failed', reason: `upgrade failed: ${counts(upgradeAnswers(r.upgrade_status))}`, generator_cpu_share: g.generatorShare }
  const reasons = echoInvalidReasons(g)
  const perMsg = cpuPerUnit(g, proxy, r?.messages ?? 0)
  return {
    ...countColumns(g.counts.get(proxy), r?.messages ?? 0, perMsg),
    conns_established: r?.conns_established ?? 0,
    messages: r?.messages ?? 0,
    msg_rate: r ? round(r.msg_rate, 1) : null,
    proxy_cpu_us_per_msg: perMsg,
    p50_ms: r?.p50_ms ?? null,
    p99_ms: r?.p99_ms ?? null,
    max_ms: r?.max_ms ?? null,
    generator_cpu_share: g.generatorShare,
    ...judgedColumns(g, reasons),
  }
}

/** Upgrade answers by HTTP status, in words (status 0: no HTTP answer at all). */
const upgradeAnswers = (byStatus: Record<string, number>) =>
  Object.fromEntries(Object.entries(byStatus).map(([s, n]) => [s === '0' ? 'no HTTP answer' : `HTTP ${s}`, n]))

/** Why an echo run is invalid (empty: valid): the run's own reasons, then failed upgrades and connections that failed mid-run. */
function echoInvalidReasons(g: GeneratorOutcome<WsEchoResult>): string[] {
  const r = g.result
  const reasons = invalidReasons({
    generatorRequests: r?.messages ?? 0,
    generatorErrors: 0,
    windowRequests: r?.messages ?? 0,
    generatorCpuShare: g.generatorShare,
    exited: g.exit,
  })
  if (r && r.failed_upgrades > 0) reasons.push(`${r.failed_upgrades} of ${r.conns_target} upgrades failed (${counts(r.upgrade_status)})`)
  if (r && r.errors > 0) reasons.push(`${r.errors} connections failed mid-run (${r.error_samples[0] ?? ''})`)
  return reasons
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
    return row(holdFields(g, proxy!))
  })
}

/** The columns of a hold row from its generator run; refusals and early closes are the result, said in reason. */
function holdFields(g: GeneratorOutcome<WsHoldResult>, proxy: RunningRole): Partial<WebSocketRow> {
  const r = g.result
  // Fewer established or surviving connections are the result (Envoy's 1024), said in reason; only the bench itself invalidates.
  const reasons = invalidReasons({ generatorRequests: 1, generatorErrors: 0, windowRequests: 1, generatorCpuShare: g.generatorShare, exited: g.exit })
  const perPing = r && r.pings > 0 ? round(g.cpuNs.get(proxy)! / 1e3 / r.pings) : null
  return {
    ...countColumns(g.counts.get(proxy), r?.pings ?? 0, perPing),
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
    reason: [...reasons, ...holdNotes(r)].join('; '),
    ...disturbanceColumns(g.disturbance),
  }
}

/** Connections the proxy refused or closed early, with why, by count. */
function holdNotes(r: WsHoldResult | null): string[] {
  if (!r) return []
  return [
    r.refused ? `refused ${r.refused}: ${counts(r.refusal_reasons)}` : '',
    r.closed_early ? `closed early ${r.closed_early}: ${counts(r.close_reasons)}` : '',
  ].filter(Boolean)
}
