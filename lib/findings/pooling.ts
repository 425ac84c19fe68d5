import { agreesWithDocs, POOLED_MAX_PER_1K, UNPOOLED_MIN_PER_1K } from '../catalog/reuse.ts'
import { compareVersions } from '../catalog/stack.ts'
import type { Measurement } from '../data/schema.ts'
import { summarize } from '../core/stats.ts'
import type { Finding } from './types.ts'


type Expect = (proxy: string, variant: string, version: string) => boolean | undefined

const fmt = (x: number, d = 1) => x.toFixed(d)

/** Median proxy CPU µs per request of each (proxy, version, variant), valid rows only. */
export function cellMedians(rows: readonly Measurement[], metric: keyof Measurement = 'proxy_cpu_us_per_req') {
  const groups = new Map<string, { proxy: string; version: string; variant: string; values: number[] }>()
  for (const r of rows) {
    const v = r[metric]
    if (r.status !== 'valid' || typeof v !== 'number') continue
    const key = `${r.proxy}|${r.version}|${r.variant}`
    const g = groups.get(key) ?? { proxy: r.proxy, version: r.version, variant: r.variant, values: [] }
    g.values.push(v)
    groups.set(key, g)
  }
  return [...groups.values()].map((g) => ({ ...g, summary: summarize(g.values) }))
}

type Medians = ReturnType<typeof cellMedians>

function get(m: Medians, proxy: string, variant: string, version?: string): number | undefined {
  const hits = m.filter((c) => c.proxy === proxy && c.variant === variant && (!version || c.version === version))
  // Without a version: the newest measured one.
  return hits.sort((a, b) => compareVersions(a.version, b.version)).at(-1)?.summary.median
}

const proxiesIn = (m: Medians) => [...new Set(m.map((c) => c.proxy).filter((p) => p !== 'direct'))].sort()

/** F1-F4, F7 and the pool detector over the pooling series (README "Series"). */
export function poolingFindings(rows: readonly Measurement[], expectReuse: Expect): Finding[] {
  const m = cellMedians(rows)
  const conns = cellMedians(rows, 'backend_conns_per_1k_req')
  const findings: Finding[] = []
  const proxies = proxiesIn(m)

  // F1: the ranking of the article configs follows their measured pooling: whenever
  // one proxy opens clearly fewer backend connections (> 50 per 1k less), it costs less.
  const same = proxies.flatMap((p) => {
    const cpu = get(m, p, 'article')
    const c = get(conns, p, 'article')
    return cpu === undefined || c === undefined ? [] : [{ p, cpu, conns: c }]
  }).sort((a, b) => a.cpu - b.cpu)
  const contradictions = same.flatMap((a) => same.filter((b) => a.conns + 50 < b.conns && a.cpu >= b.cpu).map((b) => `${a.p} pools more but costs more than ${b.p}`))
  findings.push({
    id: 'F1', title: 'same configs: ranking follows the default pool',
    verdict: new Set(same.map((s) => s.conns > 50)).size < 2 ? 'not measured' : contradictions.length === 0 ? 'held' : 'not held',
    figure: same.map((s) => `${s.p} ${fmt(s.cpu)} (${fmt(s.conns, 0)} conns/1k)`).join(' < ') + ' µs/req' + (contradictions.length ? `; ${contradictions.join(', ')}` : ''),
  })

  // F2: adding a pool helps everyone it was missing for; removing it hurts everyone.
  const ratios = proxies.flatMap((p) => {
    const added = get(m, p, 'pool-added')
    const removed = get(m, p, 'pool-removed')
    return added && removed ? [{ p, r: removed / added }] : []
  })
  const nginxArticle = get(m, 'nginx', 'article')
  const nginxRemoved = get(m, 'nginx', 'pool-removed')
  const nginxClose = nginxArticle && nginxRemoved ? Math.abs(nginxArticle / nginxRemoved - 1) <= 0.2 : undefined
  findings.push({
    id: 'F2', title: 'pool-removed / pool-added >= 1.7 for every proxy; nginx article ≈ pool-removed',
    verdict: ratios.length === 0 ? 'not measured' : ratios.every((x) => x.r >= 1.7) && nginxClose !== false ? 'held' : 'not held',
    figure: ratios.map((x) => `${x.p} ${fmt(x.r, 2)}x`).join(', ') + (nginxArticle && nginxRemoved ? `; nginx article/pool-removed ${fmt(nginxArticle / nginxRemoved, 2)}` : ''),
  })

  // F3: one pit for all without a pool? Reported, not a target.
  const removed = proxies.flatMap((p) => (get(m, p, 'pool-removed') !== undefined ? [{ p, v: get(m, p, 'pool-removed')! }] : []))
  if (removed.length >= 2) {
    const med = summarize(removed.map((x) => x.v)).median
    const spread = Math.max(...removed.map((x) => Math.abs(x.v / med - 1)))
    findings.push({ id: 'F3', title: 'pool removed: one pit for all? (seed: 110-132 µs, ±10%)', verdict: 'info', figure: `${removed.map((x) => `${x.p} ${fmt(x.v)}`).join(', ')} µs/req; ±${fmt(spread * 100, 0)}% around ${fmt(med)}` })
  } else findings.push({ id: 'F3', title: 'pool removed: one pit for all?', verdict: 'not measured', figure: '' })

  // F4: HAProxy http-reuse never keeps keep-alive; only http-server-close removes it.
  const hArticle = get(m, 'haproxy', 'article')
  const hNever = get(m, 'haproxy', 'reuse-never')
  const hClose = get(m, 'haproxy', 'server-close')
  findings.push(
    hArticle && hNever && hClose
      ? { id: 'F4', title: 'HAProxy reuse-never ≈ article (±20%); server-close >= 1.7x article', verdict: Math.abs(hNever / hArticle - 1) <= 0.2 && hClose / hArticle >= 1.7 ? 'held' : 'not held', figure: `reuse-never/article ${fmt(hNever / hArticle, 2)}, server-close/article ${fmt(hClose / hArticle, 2)}` }
      : { id: 'F4', title: 'HAProxy reuse-never vs server-close', verdict: 'not measured', figure: '' },
  )

  // F7: nginx >= 1.29.7: an upstream block alone restores reuse; literal proxy_pass does not.
  const nginxVersions = [...new Set(m.filter((c) => c.proxy === 'nginx' && c.variant === 'literal').map((c) => c.version))].sort(compareVersions)
  const f7 = nginxVersions.flatMap((v) => {
    const lit = get(m, 'nginx', 'literal', v)
    const up = get(m, 'nginx', 'upstream-default', v)
    return lit && up ? [{ v, r: up / lit }] : []
  })
  const after = f7.filter((x) => compareVersions(x.v, '1.29.7') >= 0)
  findings.push({
    id: 'F7', title: 'nginx >= 1.29.7: upstream-default <= 0.6 x literal',
    verdict: after.length === 0 ? 'not measured' : after.every((x) => x.r <= 0.6) ? 'held' : 'not held',
    figure: f7.map((x) => `${x.v}: upstream-default/literal ${fmt(x.r, 2)}`).join(', '),
  })

  // The measured pool detector agrees with the documentation.
  const detector = conns.filter((c) => c.proxy !== 'direct').map((c) => ({ ...c, expected: expectReuse(c.proxy, c.variant, c.version) }))
  const wrong = detector.filter((c) => c.expected !== undefined && !agreesWithDocs(c.expected, c.summary.median))
  findings.push({
    id: 'pool', title: `backend conns per 1k req: <= ${POOLED_MAX_PER_1K} pooled, >= ${UNPOOLED_MIN_PER_1K} unpooled`,
    verdict: detector.length === 0 ? 'not measured' : wrong.length === 0 ? 'held' : 'not held',
    figure: wrong.length === 0 ? `${detector.length} cells as documented` : wrong.map((c) => `${c.proxy} ${c.version} ${c.variant}: ${fmt(c.summary.median, 0)}`).join(', '),
  })

  // Precision: the worst coefficient of variation among valid cells.
  const multi = m.filter((c) => c.summary.n >= 2).sort((a, b) => b.summary.cv - a.summary.cv)
  const worst = multi[0]
  findings.push({
    id: 'cv', title: 'precision: CV of proxy CPU/req across repeats <= 5%',
    verdict: worst ? (worst.summary.cv <= 0.05 ? 'held' : 'not held') : 'not measured',
    figure: worst ? `worst ${worst.proxy} ${worst.version} ${worst.variant} ${fmt(worst.summary.cv * 100)}% (n=${worst.summary.n})` : '',
  })
  return findings
}
