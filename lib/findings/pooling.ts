import { reuseBand, reuseBandText } from '../catalog/reuse.ts'
import { compareVersions } from '../catalog/stack.ts'
import { bootstrapFigure, medianInterval, ownRepeats, relativeHalfWidth, repeatsOf, withPooledNoise, type Interval, type Repeats } from '../core/intervals.ts'
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
  }))
}

/** A proxy's CPU repeats of a variant, on its newest measured version. */
function get(cells: readonly PoolingCell[], proxy: string, variant: string): Repeats | undefined {
  const hits = cells.filter((c) => c.proxy === proxy && c.variant === variant && c.cpu.size > 0)
  return hits.sort((a, b) => compareVersions(a.version, b.version)).at(-1)?.cpu
}

const proxiesIn = (cells: readonly PoolingCell[]) => [...new Set(cells.map((c) => c.proxy).filter((p) => p !== 'direct'))].sort()

/**
 * The pooling series' lines that are not seed findings' verdicts (F1, F2, F4 and F7 are groups
 * of ledger claims: baselines/published/findings.yaml): F3's pit as a figure (info), and two
 * checks of the run itself, the pool detector against the documentation and the precision.
 */
export function poolingLines(rows: readonly Measurement[], expectReuse: Expect): Finding[] {
  const cells = poolingCells(rows)
  return [pitFigure(cells), detector(cells, expectReuse), precision(cells)]
}

/** F3's figure line for a run's rows (multihost compares it between runs). */
export const pitLine = (rows: readonly Measurement[]): Finding => pitFigure(poolingCells(rows))

/** F3: one pit for all without a pool? Reported, not a target: the ledger's pool-removed-pit checks the seed's ±10%. */
function pitFigure(cells: readonly PoolingCell[]): Finding {
  const removed = proxiesIn(cells).flatMap((p) => {
    const r = get(cells, p, 'pool-removed')
    return r ? [{ p, r }] : []
  })
  if (removed.length < 2) return { id: 'F3', title: 'pool removed: one pit for all?', verdict: 'not measured', figure: '' }
  const all = median(removed.map((x) => med(x.r)))
  const spread = bootstrapFigure(
    removed.map((x) => x.r),
    (ms) => Math.max(...ms.map((m) => Math.abs(m / median(ms) - 1))),
  )
  return {
    id: 'F3',
    title: 'pool removed: one pit for all? (seed: 110-132 µs, ±10%)',
    verdict: 'info',
    figure: `${removed.map((x) => `${x.p} ${fmt(med(x.r))}`).join(', ')} µs/req; ±${fmtIv(percent(spread), '%', 0)} around ${fmt(all)}`,
    intervals: [{ label: 'largest deviation from the median of pool-removed', interval: spread }],
  }
}

/** The measured pool detector agrees with the documentation: each documented cell's median conns/1k, decided on its interval. */
function detector(cells: readonly PoolingCell[], expectReuse: Expect): Finding {
  const checked = cells
    .filter((c) => c.proxy !== 'direct' && c.conns.size > 0)
    .flatMap((c) => {
      const expected = expectReuse(c.proxy, c.variant, c.version)
      if (expected === undefined) return []
      const iv = medianInterval(c.conns)
      return [{ ...c, iv, verdict: decide(iv, reuseBand(expected)) }]
    })
  const off = checked.filter((c) => c.verdict !== 'held')
  const cellName = (c: PoolingCell) => `${c.proxy} ${c.version} ${c.variant}`
  return {
    id: 'pool',
    title: `backend conns per 1k req: ${reuseBandText(true)} pooled, ${reuseBandText(false)} unpooled`,
    verdict: combine(checked.map((c) => c.verdict)),
    figure:
      off.length === 0
        ? `${checked.length} cells as documented`
        : off.map((c) => `${cellName(c)}: ${fmtIv(c.iv, '', 0)}${c.verdict === 'inconclusive' ? ' (undecided)' : ''}`).join(', '),
    intervals: off.map((c) => ({ label: `${cellName(c)} backend conns/1k`, interval: c.iv })),
  }
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
    // The half-width decides against the bound: it comes first, the cell's µs after it.
    figure: `±${fmt(worst.w * 100)}% half-width, worst: ${worst.c.proxy} ${worst.c.version} ${worst.c.variant} (${fmtIv(worst.iv, '', 1)} µs/req, n=${worst.iv.n}, ${fmt(worst.iv.level * 100, 0)}% coverage)`,
    intervals: [{ label: `${worst.c.proxy} ${worst.c.version} ${worst.c.variant} median proxy CPU/req`, interval: worst.iv }],
  }
}
