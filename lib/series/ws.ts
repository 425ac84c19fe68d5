import { join } from 'node:path'
import { loadStack, templateFile, type ProxyName } from '../catalog/stack.ts'
import type { WebSocketRow } from '../data/schema.ts'
import { readTable, WEBSOCKETS } from '../data/tables.ts'
import type { Finding } from '../findings/pooling.ts'
import { loadgenArgv, type WsEchoResult, type WsHoldResult } from '../roles/loadgen.ts'
import { cellName, withVerifiedStack, type Cell, type CellContext } from '../measure/cell.ts'
import { runGenerator } from '../measure/generator.ts'
import { invalidReasons } from '../measure/validity.ts'
import { interleavedOrder } from '../core/shuffle.ts'
import { summarize } from '../core/stats.ts'
import { newest } from './pooling.ts'
import type { Series, SeriesContext, Task } from './types.ts'

export const ECHO_CONNECTIONS = 200
/** Held connections and hold time per profile: quick stays above Envoy's 1024 so its cap shows. */
export const HOLD: Record<string, { conns: number; holdS: number; openRate: number }> = {
  smoke: { conns: 1200, holdS: 5, openRate: 1000 },
  quick: { conns: 1500, holdS: 10, openRate: 1000 },
  standard: { conns: 5000, holdS: 60, openRate: 1000 },
  full: { conns: 5000, holdS: 300, openRate: 1000 },
}
const PING_S = 5

const round = (x: number, d = 3) => Number(x.toFixed(d))
const counts = (m: Record<string, number>) => Object.entries(m).map(([k, v]) => `${k} × ${v}`).join(', ')

function cell(proxy: ProxyName, series: string, variant: string, conns: number): Cell {
  const stack = loadStack(proxy)
  const v = newest(stack)
  return { series, proxy, version: v.version, variant, keyType: 'ec256', connections: conns, stack, stackVersion: v, template: templateFile(stack, variant) }
}

const wsUrl = (url: string) => url.replace(/^https:/, 'wss:').replace(/^http:/, 'ws:') + 'ws'

function blankRow(c: Cell, mode: 'echo' | 'hold', repeat: number, ctx: CellContext, durationS: number) {
  const started = new Date().toISOString()
  return (f: Partial<WebSocketRow>): WebSocketRow => ({
    run_id: ctx.runId, series: c.series, proxy: c.proxy, version: c.version, variant: c.variant, mode, conns_target: c.connections, conns_established: 0,
    messages: 0, msg_rate: null, proxy_cpu_us_per_msg: null, p50_ms: null, p99_ms: null, status: 'valid', reason: '', repeat, duration_s: durationS,
    survived: null, refused: null, closed_early: null, max_ms: null, generator_cpu_share: null, runtime: ctx.runtime.kind, started_at: started, ...f,
  })
}

/** Echo: messages back to back over N connections; a failed upgrade is a result (status failed, with the HTTP status). */
export async function measureEcho(c: Cell, repeat: number, ctx: CellContext): Promise<WebSocketRow> {
  const row = blankRow(c, 'echo', repeat, ctx, ctx.profile.durationS)
  const name = `${cellName(c)}-echo-r${repeat}`
  return withVerifiedStack(c, name, ctx, { failed: (reason) => row({ status: 'failed', reason }), invalid: (reason) => row({ status: 'invalid', reason }) }, async ({ proxy, url, roles }) => {
    const argv = loadgenArgv('ws-echo', wsUrl(url), ctx.certs.ca, { c: c.connections, d: `${ctx.profile.durationS}s` })
    const g = await runGenerator<WsEchoResult>(ctx, name, argv, join(ctx.runDir, 'raw', `${name}.ws-echo.json`), [proxy!], roles, ctx.profile.durationS + 5)
    const r = g.result
    if (r && r.conns_established === 0) return row({ status: 'failed', reason: `upgrade failed: ${counts(Object.fromEntries(Object.entries(r.upgrade_status).map(([s, n]) => [s === '0' ? 'no HTTP answer' : `HTTP ${s}`, n])))}`, generator_cpu_share: g.generatorShare })
    const reasons = invalidReasons({ generatorRequests: r?.messages ?? 0, generatorErrors: 0, windowRequests: r?.messages ?? 0, generatorCpuShare: g.generatorShare, exited: g.exit })
    if (r && r.failed_upgrades > 0) reasons.push(`${r.failed_upgrades} of ${r.conns_target} upgrades failed (${counts(r.upgrade_status)})`)
    if (r && r.errors > 0) reasons.push(`${r.errors} connections failed mid-run (${r.error_samples[0] ?? ''})`)
    const proxyNs = g.cpuNs.get(proxy!)!
    return row({
      conns_established: r?.conns_established ?? 0, messages: r?.messages ?? 0, msg_rate: r ? round(r.msg_rate, 1) : null,
      proxy_cpu_us_per_msg: r && r.messages > 0 ? round(proxyNs / 1e3 / r.messages) : null,
      p50_ms: r?.p50_ms ?? null, p99_ms: r?.p99_ms ?? null, max_ms: r?.max_ms ?? null, generator_cpu_share: g.generatorShare,
      status: reasons.length ? 'invalid' : 'valid', reason: reasons.join('; '),
    })
  })
}

/** Hold: N idle connections opened at a bounded rate, pinged; how many are established and survive. */
export async function measureHold(c: Cell, repeat: number, ctx: CellContext): Promise<WebSocketRow> {
  const hold = HOLD[ctx.profile.name] ?? HOLD.quick!
  const row = blankRow(c, 'hold', repeat, ctx, hold.holdS)
  const name = `${cellName(c)}-hold-r${repeat}`
  return withVerifiedStack(c, name, ctx, { failed: (reason) => row({ status: 'failed', reason }), invalid: (reason) => row({ status: 'invalid', reason }) }, async ({ proxy, url, roles }) => {
    const argv = loadgenArgv('ws-hold', wsUrl(url), ctx.certs.ca, { n: c.connections, 'open-rate': hold.openRate, hold: `${hold.holdS}s`, ping: `${PING_S}s` })
    const g = await runGenerator<WsHoldResult>(ctx, name, argv, join(ctx.runDir, 'raw', `${name}.ws-hold.json`), [proxy!], roles, hold.holdS + hold.conns / hold.openRate + 10)
    const r = g.result
    // Fewer established or surviving connections are the result (Envoy's 1024), said in reason; only the bench itself invalidates.
    const reasons = invalidReasons({ generatorRequests: 1, generatorErrors: 0, windowRequests: 1, generatorCpuShare: g.generatorShare, exited: g.exit })
    const notes = r ? [r.refused ? `refused ${r.refused}: ${counts(r.refusal_reasons)}` : '', r.closed_early ? `closed early ${r.closed_early}: ${counts(r.close_reasons)}` : ''].filter(Boolean) : []
    return row({
      conns_established: r?.conns_established ?? 0, survived: r?.survived ?? null, refused: r?.refused ?? null, closed_early: r?.closed_early ?? null,
      messages: r?.pings ?? 0, p50_ms: r?.ping_p50_ms ?? null, p99_ms: r?.ping_p99_ms ?? null, max_ms: r?.ping_max_ms ?? null, generator_cpu_share: g.generatorShare,
      proxy_cpu_us_per_msg: r && r.pings > 0 ? round(g.cpuNs.get(proxy!)! / 1e3 / r.pings) : null,
      status: reasons.length ? 'invalid' : 'valid', reason: [...reasons, ...notes].join('; '),
    })
  })
}

function wsTasks(cells: Cell[], mode: 'echo' | 'hold', ctx: SeriesContext): Task[] {
  return interleavedOrder(cells, ctx.profile.repeats, ctx.seed).map(({ cell: c, repeat }) => ({
    label: `ws-${mode} ${c.proxy} ${c.variant} ${c.connections} conns r${repeat}`,
    table: WEBSOCKETS,
    key: WEBSOCKETS.key({ series: c.series, proxy: c.proxy, version: c.version, variant: c.variant, mode, conns_target: c.connections, repeat } as WebSocketRow),
    run: () => (mode === 'echo' ? measureEcho(c, repeat, ctx) : measureHold(c, repeat, ctx)),
  })) as Task[]
}

export function wsSeries(): Series {
  return {
    name: 'ws',
    phases: [
      { name: 'ws-echo', tasks: (ctx) => wsTasks(ctx.proxies.flatMap((p) => ['article', 'ws'].map((v) => cell(p, 'ws-echo', v, ECHO_CONNECTIONS))), 'echo', ctx) },
      {
        name: 'ws-hold',
        tasks: (ctx) => {
          const n = (HOLD[ctx.profile.name] ?? HOLD.quick!).conns
          const variants = (p: ProxyName) => (p === 'envoy' ? ['ws', 'ws-raised'] : ['ws'])
          return wsTasks(ctx.proxies.flatMap((p) => variants(p).map((v) => cell(p, 'ws-hold', v, n))), 'hold', ctx)
        },
      },
    ],
    findings: (runDir) => wsFindings(readTable(runDir, WEBSOCKETS)),
  }
}

/** The proxy answered the upgrade request: it worked, or it was refused with a status. */
export const upgradeAnswered = (r: WebSocketRow) => r.status !== 'failed' || r.reason.startsWith('upgrade failed')

/** F8: echo costs within ±20% (nginx article fails), hold: Envoy's cap and everyone else's survival. */
export function wsFindings(rows: readonly WebSocketRow[]): Finding[] {
  const med = (xs: number[]) => (xs.length ? summarize(xs).median : undefined)
  const echo = rows.filter((r) => r.mode === 'echo')
  const proxies = [...new Set(echo.map((r) => r.proxy))].sort()
  const cost = proxies.flatMap((p) => {
    const m = med(echo.filter((r) => r.proxy === p && r.variant === 'ws' && r.status === 'valid' && r.proxy_cpu_us_per_msg !== null).map((r) => r.proxy_cpu_us_per_msg!))
    return m === undefined ? [] : [{ p, m }]
  })
  const all = med(cost.map((c) => c.m))
  const nginxArticle = echo.find((r) => r.proxy === 'nginx' && r.variant === 'article')
  const findings: Finding[] = [
    {
      id: 'F8', title: 'WebSocket echo: proxy CPU per message within ±20% of the median',
      verdict: !all ? 'not measured' : cost.every((c) => Math.abs(c.m / all - 1) <= 0.2) ? 'held' : 'not held',
      figure: all ? `${cost.map((c) => `${c.p} ${c.m.toFixed(1)}`).join(', ')} µs/msg; median ${all.toFixed(1)}` : '',
    },
    {
      id: 'F8', title: 'nginx article config passes no WebSocket',
      // Only a refused upgrade counts: a proxy that did not start says nothing about WebSockets.
      verdict: !nginxArticle || !upgradeAnswered(nginxArticle) ? 'not measured' : nginxArticle.status === 'failed' ? 'held' : 'not held',
      figure: nginxArticle ? `${nginxArticle.status}${nginxArticle.reason ? `: ${nginxArticle.reason}` : ''}` : '',
    },
  ]
  const hold = rows.filter((r) => r.mode === 'hold')
  // One figure per proxy and variant over its repeats: the fewest kept, the median ping p99.
  const groups = [...new Set(hold.map((r) => `${r.proxy}|${r.variant}`))].map((k) => {
    const rs = hold.filter((r) => `${r.proxy}|${r.variant}` === k)
    const p99 = med(rs.flatMap((r) => (r.p99_ms === null ? [] : [r.p99_ms])))
    return { proxy: rs[0]!.proxy, variant: rs[0]!.variant, target: rs[0]!.conns_target, established: Math.min(...rs.map((r) => r.conns_established)), survived: Math.min(...rs.map((r) => r.survived ?? 0)), p99, reason: rs.find((r) => r.reason)?.reason ?? '' }
  })
  const envoy = groups.find((g) => g.proxy === 'envoy' && g.variant === 'ws')
  const others = groups.filter((g) => g !== envoy)
  findings.push(
    {
      id: 'F8', title: "WebSocket hold: Envoy's default stops at 1024 (circuit breaker)",
      verdict: !envoy ? 'not measured' : Math.abs(envoy.established - 1024) <= 5 ? 'held' : 'not held',
      figure: envoy ? `${envoy.established}/${envoy.target} established${envoy.reason ? ` (${envoy.reason})` : ''}` : '',
    },
    {
      id: 'F8', title: 'WebSocket hold: ws-raised and the others keep every connection; ping p99',
      verdict: others.length === 0 ? 'not measured' : others.every((g) => g.survived === g.target) ? 'held' : 'not held',
      figure: others.map((g) => `${g.proxy}${g.variant === 'ws' ? '' : ` ${g.variant}`} ${g.survived}/${g.target} p99 ${g.p99?.toFixed(1) ?? '-'} ms`).join(', '),
    },
  )
  return findings
}
