import { POOLED_MAX_PER_1K, UNPOOLED_MIN_PER_1K } from '../catalog/reuse.ts'
import { compareVersions } from '../catalog/stack.ts'
import {
  bootstrapFigure,
  medianInterval,
  ratioInterval,
  ownRepeats,
  relativeHalfWidth,
  repeatsOf,
  withPooledNoise,
  type Interval,
  type Repeats,
} from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { groupRows } from '../data/grouping.ts'
import type { Measurement } from '../data/schema.ts'
import { combine, decide, fmtIv } from './decide.ts'
import { FINDINGS_MODEL } from './load.ts'
import type { FindingVerdict } from '../core/verdict.ts'
import type { Finding } from './types.ts'

type Expect = (proxy: string, variant: string, version: string) => boolean | undefined

const fmt = (x: number, d = 1) => x.toFixed(d)
const med = (r: Repeats) => median([...r.values()])

/** One (proxy, version, variant) of the findings' load model: its valid repeats of proxy CPU/req and backend conns/1k. */
export interface PoolingCell {
  proxy: string
  version: string
  variant: string
  cpu: Repeats
  conns: Repeats
  /** System calls per request (kernel counts, docs/method/counts.md); empty where not counted. */
  calls: Repeats
}

/** The cells of the findings' load model (FINDINGS_MODEL), valid rows only. */
export function poolingCells(rows: readonly Measurement[]): PoolingCell[] {
  const cells = groupRows(
    rows.filter((r) => r.status === 'valid' && r.model === FINDINGS_MODEL),
    ['proxy', 'version', 'variant'],
  ).map((g) => g.rows)
  // CPU cells share the window design, so they share the host's noise (core/intervals); conns is a count, not a cost.
  const cpu = withPooledNoise(cells.map((rs) => repeatsOf(rs, (r) => r.proxy_cpu_us_per_req)))
  return cells.map((rs, i) => ({
    proxy: rs[0]!.proxy,
    version: rs[0]!.version,
    variant: rs[0]!.variant,
    cpu: cpu[i]!,
    conns: repeatsOf(rs, (r) => r.backend_conns_per_1k_req),
    calls: repeatsOf(rs, (r) => r.proxy_syscalls_per_req),
  }))
}

type Metric = 'cpu' | 'conns' | 'calls'

function get(cells: readonly PoolingCell[], proxy: string, variant: string, metric: Metric = 'cpu', version?: string): Repeats | undefined {
  const hits = cells.filter((c) => c.proxy === proxy && c.variant === variant && (!version || c.version === version) && c[metric].size > 0)
  // Without a version: the newest measured one.
  return hits.sort((a, b) => compareVersions(a.version, b.version)).at(-1)?.[metric]
}

/** The counts behind a time: median system calls per request of each (label, cell), '' when none was counted. */
function callsText(cells: readonly PoolingCell[], what: string, parts: readonly { label: string; proxy: string; variant: string }[]): string {
  const got = parts.flatMap((x) => {
    const c = get(cells, x.proxy, x.variant, 'calls')
    return c ? [`${x.label} ${fmt(med(c), 2)}`] : []
  })
  return got.length ? `; ${what}: ${got.join(', ')}` : ''
}

const proxiesIn = (cells: readonly PoolingCell[]) => [...new Set(cells.map((c) => c.proxy).filter((p) => p !== 'direct'))].sort()

/** F1-F4, F7, the pool detector and the precision of the run over the pooling series (docs/series/README.md). */
export function poolingFindings(rows: readonly Measurement[], expectReuse: Expect): Finding[] {
  const cells = poolingCells(rows)
  const findings: Finding[] = []
  const proxies = proxiesIn(cells)

  // F1: the ranking of the article configs follows their measured pooling: whenever one
  // proxy opens clearly fewer backend connections (> 50 per 1k less), it costs less. A pair
  // contradicts only when its CPU ratio is decided.
  const same = proxies
    .flatMap((p) => {
      const cpu = get(cells, p, 'article')
      const conns = get(cells, p, 'article', 'conns')
      return cpu === undefined || conns === undefined ? [] : [{ p, cpu, c: med(cpu), conns: med(conns) }]
    })
    .sort((a, b) => a.c - b.c)
  const pairs = same.flatMap((a) =>
    same
      .filter((b) => a.conns + 50 < b.conns)
      .map((b) => {
        const iv = ratioInterval(b.cpu, a.cpu)
        return { a: a.p, b: b.p, iv, verdict: decide(iv, { min: 1 }) }
      }),
  )
  const contradictions = pairs.filter((x) => x.verdict === 'not held').map((x) => `${x.a} pools more but costs more than ${x.b}`)
  findings.push({
    id: 'F1',
    title: 'same configs: ranking follows the default pool',
    verdict: new Set(same.map((s) => s.conns > 50)).size < 2 ? 'not measured' : combine(pairs.map((x) => x.verdict)),
    figure:
      same.map((s) => `${s.p} ${fmt(s.c)} (${fmt(s.conns, 0)} conns/1k)`).join(' < ') +
      ' µs/req' +
      (pairs.length ? `; less pooled / more pooled: ${pairs.map((x) => `${x.b}/${x.a} ${fmtIv(x.iv)}`).join(', ')}` : '') +
      (contradictions.length ? `; ${contradictions.join(', ')}` : ''),
    intervals: pairs.map((x) => ({ label: `${x.b}/${x.a} proxy CPU/req`, interval: x.iv })),
  })

  // F2: adding a pool helps everyone it was missing for; removing it hurts everyone.
  const ratios = proxies.flatMap((p) => {
    const added = get(cells, p, 'pool-added')
    const removed = get(cells, p, 'pool-removed')
    if (!added || !removed) return []
    const iv = ratioInterval(removed, added)
    return [{ p, iv, verdict: decide(iv, { min: 1.7 }) }]
  })
  const nginxArticle = get(cells, 'nginx', 'article')
  const nginxRemoved = get(cells, 'nginx', 'pool-removed')
  const nginxClose = nginxArticle && nginxRemoved ? ratioInterval(nginxArticle, nginxRemoved) : undefined
  findings.push({
    id: 'F2',
    title: 'pool-removed / pool-added >= 1.7 for every proxy; nginx article ≈ pool-removed',
    verdict:
      ratios.length === 0 ? 'not measured' : combine([...ratios.map((x) => x.verdict), ...(nginxClose ? [decide(nginxClose, { min: 0.8, max: 1.2 })] : [])]),
    figure:
      ratios.map((x) => `${x.p} ${fmtIv(x.iv, 'x')}`).join(', ') +
      (nginxClose ? `; nginx article/pool-removed ${fmtIv(nginxClose)}` : '') +
      callsText(
        cells,
        'syscalls/req pool-added → pool-removed',
        ratios.flatMap((x) => {
          const a = get(cells, x.p, 'pool-added', 'calls')
          const b = get(cells, x.p, 'pool-removed', 'calls')
          return a && b ? [{ label: `${x.p} ${fmt(med(a), 2)} →`, proxy: x.p, variant: 'pool-removed' }] : []
        }),
      ),
    intervals: [
      ...ratios.map((x) => ({ label: `${x.p} pool-removed/pool-added`, interval: x.iv })),
      ...(nginxClose ? [{ label: 'nginx article/pool-removed', interval: nginxClose }] : []),
    ],
  })

  // F3: one pit for all without a pool? Reported, not a target.
  const removed = proxies.flatMap((p) => {
    const r = get(cells, p, 'pool-removed')
    return r ? [{ p, r }] : []
  })
  if (removed.length >= 2) {
    const all = median(removed.map((x) => med(x.r)))
    const spread = bootstrapFigure(
      removed.map((x) => x.r),
      (ms) => Math.max(...ms.map((m) => Math.abs(m / median(ms) - 1))),
    )
    findings.push({
      id: 'F3',
      title: 'pool removed: one pit for all? (seed: 110-132 µs, ±10%)',
      verdict: 'info',
      figure: `${removed.map((x) => `${x.p} ${fmt(med(x.r))}`).join(', ')} µs/req; ±${fmtIv(percent(spread), '%', 0)} around ${fmt(all)}`,
      intervals: [{ label: 'largest deviation from the median of pool-removed', interval: spread }],
    })
  } else findings.push({ id: 'F3', title: 'pool removed: one pit for all?', verdict: 'not measured', figure: '' })

  // F4: HAProxy http-reuse never keeps keep-alive; only http-server-close removes it.
  const hArticle = get(cells, 'haproxy', 'article')
  const hNever = get(cells, 'haproxy', 'reuse-never')
  const hClose = get(cells, 'haproxy', 'server-close')
  if (hArticle && hNever && hClose) {
    const never = ratioInterval(hNever, hArticle)
    const close = ratioInterval(hClose, hArticle)
    findings.push({
      id: 'F4',
      title: 'HAProxy reuse-never ≈ article (±20%); server-close >= 1.7x article',
      verdict: combine([decide(never, { min: 0.8, max: 1.2 }), decide(close, { min: 1.7 })]),
      figure:
        `reuse-never/article ${fmtIv(never)}, server-close/article ${fmtIv(close)}` +
        callsText(
          cells,
          'syscalls/req',
          ['article', 'reuse-never', 'server-close'].map((v) => ({ label: v, proxy: 'haproxy', variant: v })),
        ),
      intervals: [
        { label: 'haproxy reuse-never/article', interval: never },
        { label: 'haproxy server-close/article', interval: close },
      ],
    })
  } else findings.push({ id: 'F4', title: 'HAProxy reuse-never vs server-close', verdict: 'not measured', figure: '' })

  // F7: nginx >= 1.29.7: an upstream block alone restores reuse; literal proxy_pass does not.
  const nginxVersions = [...new Set(cells.filter((c) => c.proxy === 'nginx' && c.variant === 'literal').map((c) => c.version))].sort(compareVersions)
  const f7 = nginxVersions.flatMap((v) => {
    const lit = get(cells, 'nginx', 'literal', 'cpu', v)
    const up = get(cells, 'nginx', 'upstream-default', 'cpu', v)
    return lit && up ? [{ v, iv: ratioInterval(up, lit) }] : []
  })
  const after = f7.filter((x) => compareVersions(x.v, '1.29.7') >= 0)
  findings.push({
    id: 'F7',
    title: 'nginx >= 1.29.7: upstream-default <= 0.6 x literal',
    verdict: combine(after.map((x) => decide(x.iv, { max: 0.6 }))),
    figure: f7.map((x) => `${x.v}: upstream-default/literal ${fmtIv(x.iv)}`).join(', '),
    intervals: f7.map((x) => ({ label: `nginx ${x.v} upstream-default/literal`, interval: x.iv })),
  })

  // The measured pool detector agrees with the documentation: each documented cell's median conns/1k, decided on its interval.
  const detector = cells
    .filter((c) => c.proxy !== 'direct' && c.conns.size > 0)
    .flatMap((c) => {
      const expected = expectReuse(c.proxy, c.variant, c.version)
      if (expected === undefined) return []
      const iv = medianInterval(c.conns)
      return [{ ...c, iv, verdict: decide(iv, expected ? { max: POOLED_MAX_PER_1K } : { min: UNPOOLED_MIN_PER_1K }) }]
    })
  const off = detector.filter((c) => c.verdict !== 'held')
  const cellName = (c: PoolingCell) => `${c.proxy} ${c.version} ${c.variant}`
  findings.push({
    id: 'pool',
    title: `backend conns per 1k req: <= ${POOLED_MAX_PER_1K} pooled, >= ${UNPOOLED_MIN_PER_1K} unpooled`,
    verdict: combine(detector.map((c) => c.verdict)),
    figure:
      off.length === 0
        ? `${detector.length} cells as documented`
        : off.map((c) => `${cellName(c)}: ${fmtIv(c.iv, '', 0)}${c.verdict === 'inconclusive' ? ' (undecided)' : ''}`).join(', '),
    intervals: off.map((c) => ({ label: `${cellName(c)} backend conns/1k`, interval: c.iv })),
  })

  findings.push(precision(cells))
  return findings
}

/** A fraction's interval in percent, for the figure text. */
const percent = (iv: Interval): Interval => ({
  ...iv,
  value: iv.value * 100,
  lo: iv.lo * 100,
  hi: iv.hi * 100,
  ...(iv.disagree && { disagree: { lo: iv.disagree.lo * 100, hi: iv.disagree.hi * 100 } }),
})

/**
 * Precision of the run (not of a proxy): the widest interval of a cell's median proxy
 * CPU/req, relative to the median. Only held or not held: there is no bound to straddle.
 */
function precision(cells: readonly PoolingCell[]): Finding {
  const title = 'precision: worst CI half-width of the median of proxy CPU/req <= 3%'
  const widths = cells
    .filter((c) => c.cpu.size >= 2)
    .map((c) => {
      const iv = medianInterval(ownRepeats(c.cpu))
      return { c, iv, w: relativeHalfWidth(iv) }
    })
    .sort((a, b) => b.w - a.w)
  const worst = widths[0]
  if (!worst) return { id: 'cv', title, verdict: 'not measured', figure: '' }
  const verdict: FindingVerdict = worst.w <= 0.03 ? 'held' : 'not held'
  return {
    id: 'cv',
    title,
    verdict,
    figure: `worst ${worst.c.proxy} ${worst.c.version} ${worst.c.variant} ±${fmt(worst.w * 100)}%: ${fmtIv(worst.iv, '', 1)} µs/req (n=${worst.iv.n}, ${fmt(worst.iv.level * 100, 0)}% coverage)`,
    intervals: [{ label: `${worst.c.proxy} ${worst.c.version} ${worst.c.variant} median proxy CPU/req`, interval: worst.iv }],
  }
}
