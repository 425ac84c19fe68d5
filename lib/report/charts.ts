import { CHART_WIDTH, estimateWidth, renderSpec, type VegaLiteSpec } from './chart-render.ts'
import { categoryValues, checkRows, finite, head, uniq, type CategoryRow, type CommonOptions } from './chart-base.ts'
import { timeValue, type DotChartOptions } from './point-charts.ts'

export {
  lineChart,
  percentileChart,
  type DotChartOptions,
  type LineChartOptions,
  type LinePoint,
  type PercentileChartOptions,
  type PercentileRow,
} from './point-charts.ts'

/* The article's chart kinds: each builds a vega-lite spec from plain rows and renders it (lib/report/chart-render.ts). */

/** One bar: a category, its value, and optionally a colour group and an interval. */
export type BarRow = CategoryRow

export interface BarChartOptions extends CommonOptions {
  valueTitle?: string
  groupTitle?: string
  /** Bars left to right from the category axis (long labels read better). */
  horizontal?: boolean
  /**
   * A second, narrow panel beside the bars, same categories and groups, its own axis (e.g. the
   * pool detector's backend connections per 1k requests next to the CPU per request).
   */
  side?: { rows: readonly BarRow[]; valueTitle: string; width?: number }
}

/**
 * Bars per category in the order given; with `group`, side by side bars coloured by
 * group (legend in first-seen order); with `lo`/`hi`, error bars.
 */
export async function barChart(rows: readonly BarRow[], opts: BarChartOptions = {}): Promise<string> {
  const { values, categories, groups, hasGroup } = categoryValues('barChart', rows)
  const hasErr = values.some((r) => r.lo !== undefined && r.hi !== undefined)
  const width = opts.width ?? CHART_WIDTH
  const h = !!opts.horizontal
  const cat = h ? 'y' : 'x'
  const val = h ? 'x' : 'y'
  const off = h ? 'yOffset' : 'xOffset'
  const perCat = Math.max(1, hasGroup ? groups.length : 1)
  const height = opts.height ?? (h ? Math.max(80, categories.length * perCat * 20 + categories.length * 8) : 280)
  // vertical bars: tilt labels when they would not fit their band
  const band = (width - 80) / Math.max(1, categories.length)
  const longest = Math.max(...categories.map((c) => estimateWidth({ fontSize: 11 }, c)))
  const angle = h || longest <= band - 4 ? 0 : -35
  const catEnc = {
    field: 'category',
    type: 'nominal',
    sort: categories,
    scale: { domain: categories, paddingInner: 0.2 },
    title: null,
    axis: { labelAngle: angle, labelLimit: 200 },
  }
  const valScale = { zero: true }
  const valEnc = { field: 'value', type: 'quantitative', title: opts.valueTitle ?? null, scale: valScale, axis: { format: opts.valueFormat, grid: true } }
  const groupEnc = hasGroup ? { field: 'group', type: 'nominal', sort: groups, scale: { domain: groups }, title: opts.groupTitle ?? null } : undefined
  const layers: object[] = [
    {
      mark: { type: 'bar', ...(hasGroup ? {} : { color: '#0072B2' }) },
      encoding: {
        [cat]: catEnc,
        [val]: valEnc,
        ...(groupEnc ? { color: groupEnc, [off]: { field: 'group', type: 'nominal', sort: groups, scale: { domain: groups } } } : {}),
      },
    },
  ]
  if (hasErr) layers.push(...intervalLayers({ h, cat, val, off, catEnc, valScale, groups, hasGroup, valueTitle: opts.valueTitle }))
  if (!opts.side || opts.side.rows.length === 0) {
    const spec = { ...head(opts, width), height, data: { values }, layer: layers }
    return renderSpec(spec as unknown as VegaLiteSpec)
  }
  return sideBySide(opts, opts.side, { width, height, values, layers, h, cat, val, off, catEnc, groupEnc, groups, hasGroup })
}

type BarAxes = { h: boolean; cat: string; val: string; off: string; catEnc: object; groups: string[]; hasGroup: boolean }

/** Each bar's interval: a line with a cap at each end, in the bar's own slot when grouped. */
function intervalLayers(o: BarAxes & { valScale: object; valueTitle: string | undefined }): object[] {
  const { h, cat, val, off, catEnc, valScale, groups, hasGroup } = o
  const out: object[] = []
  const offset = hasGroup ? { [off]: { field: 'group', type: 'nominal', sort: groups, scale: { domain: groups } } } : {}
  const withInterval = { filter: 'isValid(datum.lo) && isValid(datum.hi)' }
  out.push({
    transform: [withInterval],
    mark: { type: 'rule', color: '#222', strokeWidth: 1.2 },
    encoding: {
      [cat]: catEnc,
      [val]: { field: 'lo', type: 'quantitative', scale: valScale, title: o.valueTitle ?? null },
      [`${val}2`]: { field: 'hi' },
      ...offset,
    },
  })
  for (const end of ['lo', 'hi']) {
    out.push({
      transform: [withInterval],
      mark: { type: 'tick', color: '#222', thickness: 1.2, size: 8, orient: h ? 'vertical' : 'horizontal' },
      encoding: { [cat]: catEnc, [val]: { field: end, type: 'quantitative', scale: valScale, title: o.valueTitle ?? null }, ...offset },
    })
  }
  return out
}

/** The bars with a second panel beside them (BarChartOptions.side), sharing the categories and colours. */
function sideBySide(
  opts: BarChartOptions,
  side: NonNullable<BarChartOptions['side']>,
  o: BarAxes & { width: number; height: number; values: object[]; layers: object[]; groupEnc: object | undefined },
): Promise<string> {
  const { width, height, values, layers, h, cat, val, off, catEnc, groupEnc, groups, hasGroup } = o
  // Two panels side by side: fixed widths (fit-x does not apply to a concatenation).
  const sideWidth = side.width ?? 150
  const sideValues = side.rows.map((r) => ({ category: String(r.category), value: r.value, group: r.group === undefined ? undefined : String(r.group) }))
  const sideVal = { field: 'value', type: 'quantitative', title: side.valueTitle, scale: { zero: true }, axis: { grid: true, tickCount: 3 } }
  const sideLayer = {
    width: sideWidth,
    height,
    data: { values: sideValues },
    mark: { type: 'bar', ...(hasGroup ? {} : { color: '#0072B2' }) },
    encoding: {
      [cat]: { ...catEnc, ...(h ? { axis: null } : {}) },
      [val]: sideVal,
      ...(groupEnc ? { color: groupEnc, [off]: { field: 'group', type: 'nominal', sort: groups, scale: { domain: groups } } } : {}),
    },
  }
  const { width: _w, autosize: _a, ...top } = head(opts, width)
  const mainWidth = Math.max(160, width - sideWidth - (h ? 170 : 110))
  const spec = {
    ...top,
    autosize: { type: 'pad' },
    spacing: 24,
    hconcat: [{ width: mainWidth, height, data: { values }, layer: layers }, sideLayer],
    resolve: { scale: { color: 'shared' } },
  }
  return renderSpec(spec as unknown as VegaLiteSpec)
}

/** One point of a labelled line: x a number or a time, its label (e.g. a version), an optional interval. */
export interface LabelledPoint {
  x: number | string | Date
  y: number
  series: string
  label?: string
  lo?: number
  hi?: number
  /** Drawn hollow (e.g. a figure transcribed from an article, not measured here). */
  hollow?: boolean
}

export interface LabelledLineOptions extends CommonOptions {
  xType?: 'quantitative' | 'temporal'
  xTitle?: string
  yTitle?: string
  seriesTitle?: string
  xFormat?: string
  /**
   * A panel per series, side by side (three to a row), one y scale: x is each point's label in
   * the order of its x (versions oldest to newest), so no label stands beside another series'.
   */
  panels?: boolean
}

/** Panels of a labelled-line chart in one row at most. */
const PANEL_COLUMNS = 3

/**
 * Lines per series with a dot per point, its label beside it and an interval where lo/hi
 * are given; hollow points stand apart (transcribed figures). Versions over release order,
 * a proxy's cost over time.
 */
export async function labelledLineChart(rows: readonly LabelledPoint[], opts: LabelledLineOptions = {}): Promise<string> {
  checkRows('labelledLineChart', rows)
  const temporal = opts.xType === 'temporal'
  const values = rows.map((r) => ({
    x: temporal ? timeValue(r.x) : Number(r.x),
    y: r.y,
    series: String(r.series),
    label: r.label ?? '',
    lo: finite(r.lo) ? r.lo : undefined,
    hi: finite(r.hi) ? r.hi : undefined,
    hollow: !!r.hollow,
  }))
  const series = uniq(values.map((r) => r.series))
  const width = opts.width ?? CHART_WIDTH
  if (opts.panels) return renderSpec(panelSpec(values, series, opts, width) as unknown as VegaLiteSpec)
  const xEnc = temporal
    ? {
        field: 'x',
        type: 'temporal',
        title: opts.xTitle ?? null,
        scale: { type: 'utc', padding: 24 },
        axis: { format: opts.xFormat, labelAngle: 0, tickCount: 6 },
      }
    : {
        field: 'x',
        type: 'quantitative',
        title: opts.xTitle ?? null,
        scale: { zero: false, padding: 24 },
        axis: { tickCount: 8, format: opts.xFormat, grid: false },
      }
  const yScale = { zero: true }
  const yEnc = { field: 'y', type: 'quantitative', title: opts.yTitle ?? null, scale: yScale, axis: { format: opts.valueFormat, grid: true } }
  const color = { field: 'series', type: 'nominal', sort: series, scale: { domain: series }, title: opts.seriesTitle ?? null }
  const layers: object[] = [
    {
      transform: [{ filter: '!datum.hollow' }],
      mark: { type: 'line', strokeWidth: 2 },
      encoding: { x: xEnc, y: yEnc, color, detail: { field: 'series', type: 'nominal' } },
    },
  ]
  if (values.some((r) => r.lo !== undefined && r.hi !== undefined)) {
    layers.push({
      transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
      mark: { type: 'rule', strokeWidth: 1.5, opacity: 0.7 },
      encoding: { x: xEnc, y: { field: 'lo', type: 'quantitative', scale: yScale, title: opts.yTitle ?? null }, y2: { field: 'hi' }, color },
    })
  }
  layers.push(
    { transform: [{ filter: '!datum.hollow' }], mark: { type: 'point', size: 50, filled: true, opacity: 1 }, encoding: { x: xEnc, y: yEnc, color } },
    {
      transform: [{ filter: 'datum.hollow' }],
      mark: { type: 'point', size: 70, shape: 'diamond', filled: false, fill: 'white', strokeWidth: 1.8, opacity: 1 },
      encoding: { x: xEnc, y: yEnc, color },
    },
    { mark: { type: 'text', align: 'left', dx: 6, dy: -7, fontSize: 9, color: '#333' }, encoding: { x: xEnc, y: yEnc, text: { field: 'label' } } },
  )
  const spec = { ...head(opts, width), height: opts.height ?? 240, data: { values }, layer: layers }
  return renderSpec(spec as unknown as VegaLiteSpec)
}

/** labelledLineChart's panels: a line per series in a panel of its own, its labels on its x axis. */
function panelSpec(
  values: readonly { x: number; y: number; series: string; label: string }[],
  series: readonly string[],
  opts: LabelledLineOptions,
  width: number,
) {
  const columns = Math.min(PANEL_COLUMNS, series.length)
  const panelWidth = Math.floor((width - 70) / columns) - 20
  // Labels tilt when the longest would not fit its step in the panel with the most points.
  const most = Math.max(...series.map((s) => values.filter((v) => v.series === s).length))
  const longest = Math.max(...values.map((v) => estimateWidth({ fontSize: 10 }, v.label)))
  const angle = longest <= panelWidth / most - 6 ? 0 : -40
  const x = { field: 'label', type: 'ordinal', sort: { field: 'x', op: 'min' }, title: opts.xTitle ?? null, axis: { labelAngle: angle, labelFontSize: 10 } }
  const y = { field: 'y', type: 'quantitative', title: opts.yTitle ?? null, scale: { zero: true }, axis: { format: opts.valueFormat, grid: true } }
  const color = { field: 'series', type: 'nominal', scale: { domain: series }, legend: null }
  const layer: object[] = [
    { mark: { type: 'line', strokeWidth: 2, point: { size: 50, filled: true } }, encoding: { x, y, color } },
    {
      transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
      mark: { type: 'rule', strokeWidth: 1.5, opacity: 0.7 },
      encoding: { x, y: { ...y, field: 'lo' }, y2: { field: 'hi' }, color },
    },
  ]
  const { width: _, autosize: __, ...top } = head(opts, width)
  return {
    ...top,
    data: { values },
    facet: { field: 'series', type: 'nominal', sort: series, title: null, header: { labelFontSize: 12 } },
    columns,
    spec: { width: panelWidth, height: opts.height ?? 110, layer },
    resolve: { scale: { x: 'independent' }, axis: { x: 'independent' } },
  }
}

/** One cell of a comparison: its change with an interval, and the change the between-run noise allows. */
export interface ChangeRow {
  category: string
  /** Change in %, e.g. +12.5. */
  value: number
  lo?: number
  hi?: number
  /** Half-width in % of the band the between-run noise covers around 0 (shaded); absent when not estimated. */
  noise?: number
  /** The verdict's words, the colour of the dot (e.g. "changed", "within noise"). */
  group: string
}

/**
 * A dot plot of changes per cell: a shaded band where a change is within the between-run
 * noise, a rule at 0, each dot with its interval, coloured by verdict.
 */
export async function changeChart(rows: readonly ChangeRow[], opts: DotChartOptions = {}): Promise<string> {
  checkRows('changeChart', rows)
  const values = rows.map((r) => ({
    category: String(r.category),
    value: r.value,
    lo: finite(r.lo) ? r.lo : undefined,
    hi: finite(r.hi) ? r.hi : undefined,
    nlo: finite(r.noise) ? -Math.abs(r.noise) : undefined,
    nhi: finite(r.noise) ? Math.abs(r.noise) : undefined,
    group: String(r.group),
  }))
  const categories = uniq(values.map((r) => r.category))
  const groups = uniq(values.map((r) => r.group))
  const width = opts.width ?? CHART_WIDTH
  const height = opts.height ?? Math.max(80, categories.length * 16)
  const catEnc = {
    field: 'category',
    type: 'nominal',
    sort: categories,
    scale: { domain: categories },
    title: null,
    axis: { labelLimit: 220, grid: false, labelFontSize: 10 },
  }
  const x = (field: string) => ({ field, type: 'quantitative', title: opts.valueTitle ?? null, axis: { format: opts.valueFormat, grid: true } })
  const color = { field: 'group', type: 'nominal', sort: groups, scale: { domain: groups }, title: opts.groupTitle ?? null }
  const layers: object[] = [
    {
      transform: [{ filter: 'isValid(datum.nlo)' }],
      mark: { type: 'bar', color: '#cfd8e3', opacity: 0.6, height: { band: 1 } },
      encoding: { y: catEnc, x: x('nlo'), x2: { field: 'nhi' } },
    },
    { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#555', strokeDash: [3, 3] }, encoding: { x: { field: 'zero', type: 'quantitative' } } },
    {
      transform: [{ filter: 'isValid(datum.lo) && isValid(datum.hi)' }],
      mark: { type: 'rule', strokeWidth: 1.5 },
      encoding: { y: catEnc, x: x('lo'), x2: { field: 'hi' }, color },
    },
    { mark: { type: 'point', filled: true, size: 40 }, encoding: { y: catEnc, x: x('value'), color } },
  ]
  const spec = { ...head(opts, width), height, data: { values }, layer: layers }
  return renderSpec(spec as unknown as VegaLiteSpec)
}
