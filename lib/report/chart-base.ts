import { CHART_FONT } from './chart-render.ts'

/* What every chart kind shares (charts.ts, point-charts.ts): the look, the title block, row checks. */

export const baseConfig = {
  font: CHART_FONT,
  background: 'white',
  padding: 8,
  view: { stroke: null },
  axis: {
    labelFontSize: 11,
    titleFontSize: 12,
    titleFontWeight: 'normal',
    labelColor: '#333',
    titleColor: '#333',
    gridColor: '#e6e6e6',
    domainColor: '#888',
    tickColor: '#888',
  },
  legend: {
    orient: 'top',
    direction: 'horizontal',
    columns: 5,
    titleOrient: 'left',
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 'normal',
    labelLimit: 240,
  },
  title: { fontSize: 14, fontWeight: 'bold', anchor: 'start', color: '#1f2328', subtitleColor: '#59636e', subtitleFontSize: 11 },
  range: { category: ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#000000', '#999999', '#882255'] },
} as const

export interface CommonOptions {
  title?: string
  subtitle?: string
  /** Total SVG width in px (default CHART_WIDTH); the plot fits inside it. */
  width?: number
  /** Plot height in px (axes and legend come on top of it). */
  height?: number
  /** d3-format for the value axis, e.g. ".1f" or "~s". */
  valueFormat?: string
  /** Accessible description (aria-label of the SVG). */
  description?: string
}

export function head(opts: CommonOptions, width: number) {
  return {
    ...(opts.title ? { title: opts.subtitle ? { text: opts.title, subtitle: opts.subtitle } : { text: opts.title } } : {}),
    description: opts.description ?? opts.title ?? 'chart',
    width,
    autosize: { type: 'fit-x', contains: 'padding' },
    config: baseConfig,
  }
}

export const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n)

export function uniq(values: readonly string[]): string[] {
  return [...new Set(values)]
}

export function checkRows<T>(kind: string, rows: readonly T[]): void {
  if (!Array.isArray(rows) || rows.length === 0) throw new Error(`charts: ${kind} needs at least one row`)
}

/** A value per category (bar or dot), optionally grouped, with an interval's ends in the value's unit. */
export interface CategoryRow {
  category: string
  value: number
  group?: string
  /** Lower and upper end of an error bar (e.g. a 95% CI), same unit as value. */
  lo?: number
  hi?: number
}

/** The rows as the chart specs read them (non-finite ends dropped), categories and groups in first-seen order. */
export function categoryValues(kind: string, rows: readonly CategoryRow[]) {
  checkRows(kind, rows)
  const values = rows.map((r) => ({
    category: String(r.category),
    value: r.value,
    group: r.group === undefined ? undefined : String(r.group),
    lo: finite(r.lo) ? r.lo : undefined,
    hi: finite(r.hi) ? r.hi : undefined,
  }))
  const categories = uniq(values.map((r) => r.category))
  const groups = uniq(values.filter((r) => r.group !== undefined).map((r) => r.group!))
  return { values, categories, groups, hasGroup: groups.length > 0 }
}
