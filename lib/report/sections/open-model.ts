import type { ChartRequest } from '../chart-requests.ts'
import { type Article, pct } from '../markdown.ts'
import { findingList, k, statusText } from './common.ts'
import type { ArticleInput, OpenSeries } from './input.ts'

/** Closed ceilings, the open model at a fraction of them and the calibration steps; per-second charts when raw/ is there. */
export function openModelSection(a: Article, { aggregates, findings, openSeries }: ArticleInput): ChartRequest[] {
  const openCells = aggregates.cells.measurements.filter((c) => String(c.key.series).startsWith('tls-'))
  if (openCells.length === 0) return (a.skip('Open model and generator calibration', 'tls series'), [])
  a.heading(2, 'Open model and generator calibration')
  a.para(
    'Closed ceilings with EC-256 first; then the open model (constant arrival rate, one keep-alive connection per virtual user, a new user is a new handshake, capped) at a stated fraction of the slowest ceiling, where only the certificate changes; then HAProxy at steps of its own ceiling to see where the open model "fails" and how busy the proxy is then.',
  )
  // F6 below gives the figures; every ceiling, rate and status is for looking up.
  a.siteOnly('Every open-model and calibration cell', () => {
    a.table(
      'open-model',
      [
        { title: 'series', value: (c) => k(c, 'series') },
        { title: 'proxy', value: (c) => k(c, 'proxy') },
        { title: 'key type', value: (c) => k(c, 'key_type') },
        { title: 'model', value: (c) => k(c, 'model') },
        { title: 'target rps', value: (c) => k(c, 'target_rps') },
        { title: 'achieved rps', value: (c) => c.medians.rps },
        { title: 'errors %', value: (c) => c.medians.errors_pct },
        { title: 'dropped', value: (c) => c.medians.dropped },
        { title: 'max VUs', value: (c) => c.medians.max_vus },
        { title: 'p99 ms', value: (c) => c.medians.p99_ms },
        { title: 'proxy CPU share', value: (c) => (c.medians.proxy_cpu_share === null ? null : pct(c.medians.proxy_cpu_share, 0)) },
        { title: 'status', value: (c) => statusText(c) },
      ],
      openCells,
    )
  })
  if (!openChart(openSeries)) a.para('*Per-second series: not in this directory (raw/ absent; promoted baselines keep CSVs only).*')
  findingList(a, findings, ['F6'])
  return []
}

/** Open-model rate and VUs over time, one line per proxy and key type (repeat 1). */
export function openChart(series: readonly OpenSeries[]): { charts: ChartRequest[] } | null {
  const open = series.filter((s) => s.series === 'tls-open' && s.repeat === 1)
  if (open.length === 0) return null
  // A second without a response has no latency (the generator writes 0): no point, not a zero.
  const rows = (metric: 'rate' | 'vus' | 'p99_ms') =>
    open.flatMap((s) => s.points.filter((p) => metric !== 'p99_ms' || p.rate > 0).map((p) => ({ x: p.t, y: p[metric], series: `${s.proxy} ${s.key_type}` })))
  const target = open[0]!.target_rps
  return {
    charts: [
      {
        path: 'charts/open-rate.svg',
        title: `Open model at ${target} rps: achieved rate per second`,
        kind: 'line',
        rows: rows('rate'),
        options: { xTitle: 'second', yTitle: 'responses / s' },
      },
      {
        path: 'charts/open-vus.svg',
        title: 'Open model: virtual users (each new one is a new TLS handshake)',
        kind: 'line',
        rows: rows('vus'),
        options: { xTitle: 'second', yTitle: 'VUs' },
      },
      {
        path: 'charts/open-p99.svg',
        title: 'Open model: p99 latency per second',
        kind: 'line',
        rows: rows('p99_ms'),
        options: { xTitle: 'second', yTitle: 'p99 ms' },
      },
    ],
  }
}
