import { summarize } from '../core/stats.ts'
import type { WebSocketRow } from '../data/schema.ts'
import type { Finding } from './types.ts'

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
