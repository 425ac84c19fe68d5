import { CHART_WIDTH, renderSpec, type VegaLiteSpec } from './chart-render.ts'
import { checkRows, head, uniq, type CommonOptions } from './chart-base.ts'

/* Chart kinds over a continuous axis: lines, latency percentiles (charts.ts has the rest). */

/** One point of a line: x a number, one line per series. */
export interface LinePoint {
  x: number
  y: number
  series: string
}

export interface LineChartOptions extends CommonOptions {
  xTitle?: string
  yTitle?: string
}

export function timeValue(x: number | string | Date): number {
  if (x instanceof Date) return x.getTime()
  if (typeof x === 'number') return x
  // an ISO date-time without an offset would be read in the host's zone: read it as UTC
  const s = /T\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(x) ? `${x}Z` : x
  const t = Date.parse(s)
  if (!Number.isFinite(t)) throw new Error(`charts: "${x}" is not a time`)
  return t
}

/** Lines per series (legend in first-seen order), each point marked. */
export async function lineChart(rows: readonly LinePoint[], opts: LineChartOptions = {}): Promise<string> {
  checkRows('lineChart', rows)
  const values = rows.map((r) => ({ x: r.x, y: r.y, series: String(r.series) }))
  const series = uniq(values.map((r) => r.series))
  const spec = {
    ...head(opts, opts.width ?? CHART_WIDTH),
    height: opts.height ?? 280,
    data: { values },
    mark: { type: 'line', point: true, strokeWidth: 2 },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: opts.xTitle ?? null, scale: { zero: false }, axis: { tickCount: 8 } },
      y: { field: 'y', type: 'quantitative', title: opts.yTitle ?? null, scale: { zero: true }, axis: { format: opts.valueFormat } },
      color: { field: 'series', type: 'nominal', sort: series, scale: { domain: series }, title: null },
      detail: { field: 'series', type: 'nominal' },
    },
  }
  return renderSpec(spec as unknown as VegaLiteSpec)
}

export interface DotChartOptions extends CommonOptions {
  valueTitle?: string
  groupTitle?: string
}

/** One row of a latency spectrum: the latency (ms) at a percentile (0..100). */
export interface PercentileRow {
  percentile: number
  value: number
  series: string
}

export interface PercentileChartOptions extends CommonOptions {
  yTitle?: string
  seriesTitle?: string
}

/** The last percentile drawn: 100% itself is at infinity on this axis. */
const MAX_PERCENTILE = 99.999

/**
 * HdrHistogram's percentile plot: x is 1/(1-p) on a log scale, labelled as percentiles
 * (90%, 99%, 99.9%, ...) so the tail gets as much room as the body; y is the latency,
 * log scale. One line per series (legend in first-seen order).
 */
export async function percentileChart(rows: readonly PercentileRow[], opts: PercentileChartOptions = {}): Promise<string> {
  checkRows('percentileChart', rows)
  const xMax = Math.round(1 / (1 - MAX_PERCENTILE / 100)) // 99.999 → 100000, not 99999.99…
  // A value of 0 has no place on a log axis; HDR's lowest value is 1 µs anyway.
  const values = rows
    .filter((r) => r.percentile <= MAX_PERCENTILE + 1e-9 && r.value > 0)
    .map((r) => ({ x: 1 / (1 - r.percentile / 100), y: r.value, series: String(r.series) }))
  checkRows('percentileChart (percentiles up to the last drawn)', values)
  const series = uniq(values.map((r) => r.series))
  // 0% (x = 1) would sit on top of 50%: the axis starts there unlabelled.
  const ticks = [2, 10, 100, 1000, 1e4, 1e5, 1e6].filter((t) => t <= xMax * 1.0001)
  const spec = {
    ...head(opts, opts.width ?? CHART_WIDTH),
    height: opts.height ?? 300,
    data: { values },
    mark: { type: 'line', strokeWidth: 2 },
    encoding: {
      x: {
        field: 'x',
        type: 'quantitative',
        title: 'percentile',
        scale: { type: 'log', domain: [1, xMax] },
        axis: { values: ticks, labelExpr: "format(100 - 100 / datum.value, '.3~f') + '%'", grid: true },
      },
      y: { field: 'y', type: 'quantitative', title: opts.yTitle ?? null, scale: { type: 'log' }, axis: { format: opts.valueFormat ?? '~g', grid: true } },
      // Cell labels are long: three to a legend row keeps the legend inside the chart's width.
      color: { field: 'series', type: 'nominal', sort: series, scale: { domain: series }, title: opts.seriesTitle ?? null, legend: { columns: 3 } },
      detail: { field: 'series', type: 'nominal' },
    },
  }
  return renderSpec(spec as unknown as VegaLiteSpec)
}
