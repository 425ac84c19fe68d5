import type { CellSummary } from '../../analysis/cells.ts'
import { compareVersions } from '../../catalog/stack.ts'
import { groupBy } from '../../data/grouping.ts'
import { changesFromPublished, type CellChange } from '../baseline-changes.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { ChangeRow } from '../charts.ts'
import { type Article, esc, num } from '../markdown.ts'
import { closedModelText, closedPoolingCells, figure, findingBadge } from './common.ts'
import type { ArticleInput, Finding } from './input.ts'
import { openChart } from './open-model.ts'
import { mainCells } from './pooling.ts'
import { versionCells } from './versions.ts'

/** The headings of the pictures, linked from the verdict table (answer.ts). */
export const PICTURES = {
  pooling: 'Pooling: CPU per request with the pool as shipped, added, removed',
  handshakes: 'TLS: CPU per full handshake by key type',
  open: 'Open model: the rate held per second',
  websocket: 'WebSocket hold: connections kept of the target',
  versions: 'Versions: CPU per request over release order',
  baseline: 'Against the baseline: change per cell',
} as const

/** A cell's median with its CI of the median as error bars (the CI's real coverage is below 95% under 6 repeats). */
const withCi = (c: CellSummary | undefined) =>
  c?.summary ? { value: c.summary.median, ...(c.summary.n >= 2 ? { lo: c.summary.ci[0], hi: c.summary.ci[1] } : {}), n: c.summary.n } : null
const CI_WORDS = 'median of the valid repeats; bars: its CI by order statistics (95% from 6 repeats, its real coverage below: 50% at 2)'

/** Verdict badges of the findings a picture shows. */
function verdicts(findings: readonly Finding[], ids: readonly string[]): string {
  const mine = findings.filter((f) => ids.includes(f.id))
  return mine.length ? ` *Verdicts:* ${mine.map((f) => `${esc(f.id)} ${findingBadge(f)}`).join(', ')}.` : ''
}

/**
 * One picture per claim, right after the verdict table: the headline pooling chart with the
 * pool detector beside it, handshakes, the open model, WebSocket hold, versions, and the
 * baseline's change per cell. Each says its unit and load model and links its CSV.
 */
export function picturesSection(a: Article, input: ArticleInput): ChartRequest[] {
  const charts: ChartRequest[] = []
  for (const picture of [poolingPicture, handshakesPicture, openPicture, websocketPicture, versionsPicture, baselinePicture]) picture(a, charts, input)
  return charts
}

/** The headline: proxy CPU per request per pooling series, the pool detector beside it. */
function poolingPicture(a: Article, charts: ChartRequest[], input: ArticleInput): void {
  const { aggregates, findings, run } = input
  const p = run.manifest.profile_settings
  const main = mainCells(aggregates)
  if (main.length) {
    a.heading(2, PICTURES.pooling)
    const series = (r: (typeof main)[number]) =>
      [
        ['same config', r.same],
        ['pool added', r.added],
        ['pool removed', r.removed],
      ] as const
    const rows = main.flatMap((r) =>
      series(r).flatMap(([s, c]) => {
        const v = withCi(c)
        return v
          ? [
              {
                category: `${r.proxy} ${r.version}`,
                group: s,
                value: v.value,
                lo: v.lo,
                hi: v.hi,
                n: v.n,
                conns_per_1k: c?.medians.backend_conns_per_1k_req ?? null,
              },
            ]
          : []
      }),
    )
    figure(
      a,
      charts,
      {
        path: 'charts/pooling.svg',
        title: 'Proxy CPU per request, and the pool detector',
        kind: 'bar',
        rows: rows.map(({ category, group, value, lo, hi }) => ({ category, group, value, lo, hi })),
        options: {
          horizontal: true,
          valueTitle: 'proxy CPU µs / request',
          groupTitle: 'series',
          side: {
            rows: rows.filter((r) => r.conns_per_1k !== null).map((r) => ({ category: r.category, group: r.group, value: r.conns_per_1k! })),
            valueTitle: 'backend conns / 1k req',
            width: 140,
          },
        },
      },
      'Proxy CPU per request by proxy and series, backend connections per 1000 requests beside',
      {
        unit: `proxy CPU µs per request, ${CI_WORDS}; right: backend connections accepted per 1000 requests (0: pooled, 1000: a connection per request)`,
        model: closedModelText(p),
        note: verdicts(findings, ['F1', 'F2', 'F3', 'pool']),
      },
      rows,
    )
  }
}

/** Proxy CPU per full TLS handshake by key type. */
function handshakesPicture(a: Article, charts: ChartRequest[], input: ArticleInput): void {
  const { aggregates, findings, run } = input
  const p = run.manifest.profile_settings
  const hs = aggregates.cells.handshakes.filter((c) => c.key.series === 'tls-handshake')
  if (hs.length) {
    a.heading(2, PICTURES.handshakes)
    const rows = hs.flatMap((c) => {
      const v = withCi(c)
      return v ? [{ category: `${c.key.proxy} ${c.key.version}`, group: String(c.key.key_type), value: v.value, lo: v.lo, hi: v.hi, n: v.n }] : []
    })
    figure(
      a,
      charts,
      {
        path: 'charts/handshakes.svg',
        title: 'Proxy CPU per full TLS handshake by key type',
        kind: 'bar',
        rows: rows.map(({ n: _, ...r }) => r),
        options: { horizontal: true, valueTitle: 'proxy CPU µs / handshake', groupTitle: 'key type' },
      },
      'Proxy CPU per full handshake by key type',
      {
        unit: `proxy CPU µs per full handshake, ${CI_WORDS}`,
        model: `a new TLS connection per request, one GET each, resumption off, ${p.duration_s} s windows`,
        note: verdicts(findings, ['F5']),
      },
      rows,
    )
  }
}

/** The open model: the rate held per second. */
function openPicture(a: Article, charts: ChartRequest[], input: ArticleInput): void {
  const { findings, openSeries } = input
  const open = openChart(openSeries)
  if (open) {
    a.heading(2, PICTURES.open)
    const rate = open.charts[0]!
    figure(
      a,
      charts,
      rate,
      rate.title,
      {
        unit: 'responses per second, one line per proxy and key type (repeat 1)',
        model: 'open model: a fixed arrival rate, one keep-alive connection per virtual user, a new user is a new handshake, users capped',
        note: verdicts(findings, ['F6']),
      },
      rate.rows as unknown as Record<string, number | string>[],
    )
  }
}

/** WebSocket hold: connections established of the target. */
function websocketPicture(a: Article, charts: ChartRequest[], input: ArticleInput): void {
  const { aggregates, findings } = input
  const hold = aggregates.cells.websocket.filter((c) => c.key.mode === 'hold')
  if (hold.length) {
    a.heading(2, PICTURES.websocket)
    const target = hold[0]!.key.conns_target
    const rows = hold.map((c) => ({ category: `${c.key.proxy} ${c.key.variant}`, value: c.medians.conns_established ?? 0, target: c.key.conns_target }))
    figure(
      a,
      charts,
      {
        path: 'charts/websocket-hold.svg',
        title: 'WebSocket connections established of the target',
        kind: 'bar',
        rows: rows.map(({ category, value }) => ({ category, value })),
        options: { horizontal: true, valueTitle: `connections established (target ${target})` },
      },
      'WebSocket hold: connections established',
      {
        unit: 'WebSocket connections established and held, median of the repeats',
        model: `${num(Number(target))} connections opened and held open, pinged`,
        note: verdicts(findings, ['F8']),
      },
      rows,
    )
  }
}

/** Proxy CPU per request over each proxy's release order. */
function versionsPicture(a: Article, charts: ChartRequest[], input: ArticleInput): void {
  const { aggregates, findings, run } = input
  const p = run.manifest.profile_settings
  const versioned = versionCells(closedPoolingCells(aggregates)).filter((c) => c.key.series === 'versions' && c.key.variant === 'article' && c.summary)
  if (versioned.length) {
    a.heading(2, PICTURES.versions)
    const byProxy = groupBy(versioned, (c) => [c.key.proxy])
    const rows = [...byProxy].flatMap(([proxy, cells]) =>
      cells
        .sort((x, y) => compareVersions(String(x.key.version), String(y.key.version)))
        .map((c, i) => {
          const v = withCi(c)!
          return { x: i + 1, y: v.value, lo: v.lo, hi: v.hi, series: proxy, label: String(c.key.version), n: v.n }
        }),
    )
    figure(
      a,
      charts,
      {
        path: 'charts/versions.svg',
        title: 'Proxy CPU per request by version, oldest to newest',
        kind: 'labelled-line',
        rows: rows.map(({ n: _, ...r }) => r),
        // A panel per proxy: each axis names its own versions, oldest to newest.
        options: { yTitle: 'proxy CPU µs / request', panels: true },
      },
      'Proxy CPU per request by version, in release order',
      {
        unit: `proxy CPU µs per request with the article config, ${CI_WORDS}; a panel per proxy, its versions oldest to newest`,
        model: `${closedModelText(p)} (series versions)`,
        note: verdicts(findings, ['versions', 'F7']),
      },
      rows.map((r) => ({ proxy: r.series, version: r.label, release_order: r.x, median: r.y, lo: r.lo ?? null, hi: r.hi ?? null, n: r.n })),
    )
  }
}

/**
 * A published baseline's change per figure. A run baseline has none: it is compared by the
 * pairs of a run made --like it (docs/method/comparison.md).
 */
function baselinePicture(a: Article, charts: ChartRequest[], input: ArticleInput): void {
  const { baseline } = input
  if (baseline?.kind !== 'published') return
  a.heading(2, PICTURES.baseline)
  changePlot(
    a,
    charts,
    changesFromPublished(baseline.deltas),
    'this run against the published figure, %',
    'as each published figure was measured (the claims ledger names it)',
  )
}

/** The baseline's dot plot: each figure's change, coloured by its verdict. */
export function changePlot(a: Article, charts: ChartRequest[], changes: readonly CellChange[], unit: string, model: string): void {
  const rows: ChangeRow[] = changes.map((c) => ({ category: c.cell, value: c.change * 100, group: c.verdict }))
  figure(
    a,
    charts,
    {
      path: 'charts/baseline.svg',
      title: 'Change per cell against the baseline',
      kind: 'change',
      rows,
      options: { valueTitle: 'change %', groupTitle: 'verdict' },
    },
    'Change per cell against the baseline',
    { unit: `${unit}; a dot per figure`, model },
    changes.map((c) => ({ cell: c.cell, change: c.change, verdict: c.verdict })),
  )
}
