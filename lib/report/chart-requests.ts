import {
  barChart,
  changeChart,
  labelledLineChart,
  lineChart,
  percentileChart,
  type BarChartOptions,
  type BarRow,
  type ChangeRow,
  type DotChartOptions,
  type LabelledLineOptions,
  type LabelledPoint,
  type LineChartOptions,
  type LinePoint,
  type PercentileChartOptions,
  type PercentileRow,
} from './charts.ts'

/**
 * What the article asks to be drawn, as plain data; `renderChart` turns it into a static
 * SVG. Keeping the request apart keeps the article pure and testable.
 */
export type ChartRequest = { path: string; title: string } & (
  | { kind: 'bar'; rows: BarRow[]; options: BarChartOptions }
  | { kind: 'line'; rows: LinePoint[]; options: LineChartOptions }
  | { kind: 'percentile'; rows: PercentileRow[]; options: PercentileChartOptions }
  | { kind: 'labelled-line'; rows: LabelledPoint[]; options: LabelledLineOptions }
  | { kind: 'change'; rows: ChangeRow[]; options: DotChartOptions }
)

export function renderChart(c: ChartRequest): Promise<string> {
  const options = { ...c.options, title: c.title }
  switch (c.kind) {
    case 'bar':
      return barChart(c.rows, options)
    case 'line':
      return lineChart(c.rows, options)
    case 'percentile':
      return percentileChart(c.rows, options)
    case 'labelled-line':
      return labelledLineChart(c.rows, options)
    case 'change':
      return changeChart(c.rows, options)
  }
}

/** Each chart as a file of the site: its path and its SVG. */
export const renderCharts = (charts: readonly ChartRequest[]) => Promise.all(charts.map(async (c) => ({ path: c.path, content: await renderChart(c) })))
