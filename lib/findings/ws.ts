import { bootstrapFigure, medianInterval, repeatsOf } from '../core/intervals.ts'
import { groupRows, keyId, noisyCells } from '../data/grouping.ts'
import { median } from '../core/stats.ts'
import type { WebSocketRow } from '../data/schema.ts'
import { byMajority, combine, decide, fmtIv } from './decide.ts'
import type { Finding } from './types.ts'

/**
 * Valid, or faulted only by refused upgrades (failed outright, or invalid for some failed
 * upgrades alone): the proxy answered the upgrade request. A proxy that did not start says
 * nothing about WebSockets.
 */
const validButForUpgrades = (r: WebSocketRow) =>
  r.status === 'valid' ||
  (r.status === 'failed' && r.reason.startsWith('upgrade failed')) ||
  (r.status === 'invalid' && r.reason.split('; ').every((s) => / upgrades failed /.test(s)))

/** F8: echo costs within ±20% (nginx article fails), hold: Envoy's cap and everyone else's survival. */
export function wsFindings(rows: readonly WebSocketRow[]): Finding[] {
  const echo = rows.filter((r) => r.mode === 'echo')
  const proxies = [...new Set(echo.map((r) => r.proxy))].sort()
  const cells = noisyCells(
    echo.filter((r) => r.variant === 'ws' && r.status === 'valid'),
    ['proxy'],
    (r) => r.proxy_cpu_us_per_msg,
  )
  const cost = proxies.flatMap((p) => (cells.get(keyId([p]))?.size ? [{ p, reps: cells.get(keyId([p]))! }] : []))
  // Each proxy over the median of all, every cell resampled together: a spread, not a pair.
  const all = cost.length >= 2 ? median(cost.map((c) => median([...c.reps.values()]))) : undefined
  const rel =
    all === undefined
      ? []
      : cost.map((c, i) => ({
          ...c,
          iv: bootstrapFigure(
            cost.map((x) => x.reps),
            (ms) => ms[i]! / median(ms),
          ),
        }))
  // A repeat counts as refused only when no upgrade succeeded; some refused upgrades still pass WebSockets.
  const nginxArticle = echo.filter((r) => r.proxy === 'nginx' && r.variant === 'article' && validButForUpgrades(r))
  const refused = nginxArticle.filter((r) => r.status === 'failed')
  const findings: Finding[] = [
    {
      id: 'F8',
      title: 'WebSocket echo: proxy CPU per message within ±20% of the median',
      verdict: combine(rel.map((c) => decide(c.iv, { min: 0.8, max: 1.2 }))),
      figure:
        all === undefined
          ? ''
          : `${rel.map((c) => `${c.p} ${median([...c.reps.values()]).toFixed(1)} (${fmtIv(c.iv, 'x')})`).join(', ')} µs/msg; median ${all.toFixed(1)}`,
      intervals: rel.map((c) => ({ label: `${c.p} ws echo / median of all`, interval: c.iv })),
    },
    {
      id: 'F8',
      title: 'nginx article config passes no WebSocket',
      // Every repeat counts (not the first found); an even split is inconclusive.
      verdict: byMajority(nginxArticle.map((r) => r.status === 'failed')),
      figure: nginxArticle.length === 0 ? '' : `${refused.length}/${nginxArticle.length} repeats refused${refused[0]?.reason ? `: ${refused[0].reason}` : ''}`,
    },
  ]
  // Hold: valid rows only; each repeat keeps its connections or not, and the median repeat decides.
  const hold = rows.filter((r) => r.mode === 'hold' && r.status === 'valid')
  const groups = groupRows(hold, ['proxy', 'variant']).map(({ rows: rs }) => {
    const p99s = rs.flatMap((r) => (r.p99_ms === null ? [] : [r.p99_ms]))
    return {
      proxy: rs[0]!.proxy,
      variant: rs[0]!.variant,
      target: rs[0]!.conns_target,
      rows: rs,
      established: median(rs.map((r) => r.conns_established)),
      survived: median(rs.map((r) => r.survived ?? 0)),
      p99: p99s.length ? median(p99s) : undefined,
      reason: rs.find((r) => r.reason)?.reason ?? '',
    }
  })
  const envoy = groups.find((g) => g.proxy === 'envoy' && g.variant === 'ws')
  const others = groups.filter((g) => g !== envoy)
  const fmtCount = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(1))
  findings.push(
    {
      id: 'F8',
      title: "WebSocket hold: Envoy's default stops at 1024 (circuit breaker)",
      verdict: byMajority(envoy?.rows.map((r) => Math.abs(r.conns_established - 1024) <= 5) ?? []),
      figure: envoy ? `${fmtCount(envoy.established)}/${envoy.target} established${envoy.reason ? ` (${envoy.reason})` : ''}` : '',
      ...(envoy
        ? { intervals: [{ label: 'envoy ws hold connections established', interval: medianInterval(repeatsOf(envoy.rows, (r) => r.conns_established)) }] }
        : {}),
    },
    {
      id: 'F8',
      title: 'WebSocket hold: ws-raised and the others keep every connection; ping p99',
      verdict: combine(others.map((g) => byMajority(g.rows.map((r) => r.survived === g.target)))),
      figure: others
        .map((g) => `${g.proxy}${g.variant === 'ws' ? '' : ` ${g.variant}`} ${fmtCount(g.survived)}/${g.target} p99 ${g.p99?.toFixed(1) ?? '-'} ms`)
        .join(', '),
    },
  )
  return findings
}
