import { CHART_WIDTH, renderSpec, type VegaLiteSpec } from './chart-render.ts'
import { categoryValues, checkRows, head, uniq, type CategoryRow, type CommonOptions } from './chart-base.ts'

/* Chart kinds over a continuous axis or of single points: lines over time, dot plots, latency percentiles (charts.ts has the rest). */

/** One point of a line: x is a number, or a time (Date, epoch ms, or ISO string). */
export interface LinePoint {
  x: number | string | Date
  y: number
  series?: string
}

export interface LineChartOptions extends CommonOptions {
  /** 'quantitative' (default) or 'temporal' (times are shown in UTC, whatever the host's zone). */
  xType?: 'quantitative' | 'temporal'
  xTitle?: string
  yTitle?: string
  seriesTitle?: string
  logX?: boolean
  logY?: boolean
  /** Mark each point (default true). */
  points?: boolean
  /** d3-format (quantitative) or d3-time-format (temporal) for the x axis. */
  xFormat?: string
  /** Start the y axis at zero (default true unless logY). */
  zeroY?: boolean
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

/** Lines per series (legend in first-seen order), x numeric or time. */
export async function lineChart(rows: readonly LinePoint[], opts: LineChartOptions = {}): Promise<string> {
  checkRows('lineChart', rows)
  const temporal = opts.xType === 'temporal'
  const values = rows.map((r) => ({ x: temporal ? timeValue(r.x) : Number(r.x), y: r.y, series: r.series === undefined ? undefined : String(r.series) }))
  const series = uniq(values.filter((r) => r.series !== undefined).map((r) => r.series!))
  const width = opts.width ?? CHART_WIDTH
  const xEnc = temporal
    ? { field: 'x', type: 'temporal', title: opts.xTitle ?? null, scale: { type: 'utc' }, axis: { format: opts.xFormat, labelAngle: 0 } }
    : {
        field: 'x',
        type: 'quantitative',
        title: opts.xTitle ?? null,
        scale: opts.logX ? { type: 'log' } : { zero: false },
        axis: { format: opts.xFormat, tickCount: 8 },
      }
  const yEnc = {
    field: 'y',
    type: 'quantitative',
    title: opts.yTitle ?? null,
    scale: opts.logY ? { type: 'log' } : { zero: opts.zeroY ?? true },
    axis: { format: opts.valueFormat },
  }
  const colorEnc =
    series.length > 0 ? { color: { field: 'series', type: 'nominal', sort: series, scale: { domain: series }, title: opts.seriesTitle ?? null } } : {}
  const spec = {
    ...head(opts, width),
    height: opts.height ?? 280,
    data: { values },
    mark: { type: 'line', point: opts.points ?? true, strokeWidth: 2, ...(series.length > 0 ? {} : { color: '#0072B2' }) },
    encoding: { x: xEnc, y: yEnc, ...colorEnc, ...(series.length > 0 ? { detail: { field: 'series', type: 'nominal' } } : {}) },
  }
  return renderSpec(spec as unknown as VegaLiteSpec)
}

/** One dot (e.g. one repeat, or a mean with its CI in lo/hi). */
export type DotRow = CategoryRow

export interface DotChartOptions extends CommonOptions {
  categoryTitle?: string
  valueTitle?: string
  groupTitle?: string
  log?: boolean
  /** Start the value axis at zero (default false: dots show differences). */
  zero?: boolean
}

/**
 * A dot plot: categories down the side (order given), one dot per row, coloured by
 * group, with an interval line where lo/hi are given.
 */
export async function dotChart(rows: readonly DotRow[], opts: DotChartOptions = {}): Promise<string> {
  const { values, categories, groups, hasGroup } = categoryValues('dotChart', rows)
  const width = opts.width ?? CHART_WIDTH
  const height = opts.height ?? Math.max(80, categories.length * 26)
  const valScale = opts.log ? { type: 'log' } : { zero: opts.zero ?? false }
  const catEnc = {
    field: 'category',
    type: 'nominal',
    sort: categories,
    scale: { domain: categories },
    title: opts.categoryTitle ?? null,
    axis: { labelLimit: 220, grid: true },
  }
  const colorEnc = hasGroup ? { color: { field: 'group', type: 'nominal', sort: groups, scale: { domain: groups }, title: opts.groupTitle ?? null } } : {}
  const layers: object[] = []
  if (values.some((r) => r.lo !== undefined && r.hi !== undefined)) {
    layers.push({
      transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
      mark: { type: 'rule', strokeWidth: 2, opacity: 0.6, ...(hasGroup ? {} : { color: '#0072B2' }) },
      encoding: { y: catEnc, x: { field: 'lo', type: 'quantitative', scale: valScale, title: opts.valueTitle ?? null }, x2: { field: 'hi' }, ...colorEnc },
    })
  }
  layers.push({
    mark: { type: 'point', filled: true, size: 60, opacity: 0.9, ...(hasGroup ? {} : { color: '#0072B2' }) },
    encoding: {
      y: catEnc,
      x: { field: 'value', type: 'quantitative', scale: valScale, title: opts.valueTitle ?? null, axis: { format: opts.valueFormat } },
      ...colorEnc,
    },
  })
  const spec = { ...head(opts, width), height, data: { values }, layer: layers }
  return renderSpec(spec as unknown as VegaLiteSpec)
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
  /** The last percentile drawn (default 99.999): 100% itself is at infinity on this axis. */
  maxPercentile?: number
}

/**
 * HdrHistogram's percentile plot: x is 1/(1-p) on a log scale, labelled as percentiles
 * (90%, 99%, 99.9%, ...) so the tail gets as much room as the body; y is the latency,
 * log scale. One line per series (legend in first-seen order).
 */
export async function percentileChart(rows: readonly PercentileRow[], opts: PercentileChartOptions = {}): Promise<string> {
  checkRows('percentileChart', rows)
  const maxP = opts.maxPercentile ?? 99.999
  const xMax = Math.round(1 / (1 - maxP / 100)) // 99.999 → 100000, not 99999.99…
  // A value of 0 has no place on a log axis; HDR's lowest value is 1 µs anyway.
  const values = rows
    .filter((r) => r.percentile <= maxP + 1e-9 && r.value > 0)
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
