import { barChart, lineChart, percentileChart, type BarChartOptions, type BarRow, type LineChartOptions, type LinePoint, type PercentileChartOptions, type PercentileRow } from './charts.ts'

/**
 * What the article asks to be drawn, as plain data; `renderChart` turns it into a static
 * SVG. Keeping the request apart keeps the article pure and testable.
 */
export type ChartRequest = { path: string; title: string } & (
  | { kind: 'bar'; rows: BarRow[]; options: BarChartOptions }
  | { kind: 'line'; rows: LinePoint[]; options: LineChartOptions }
  | { kind: 'percentile'; rows: PercentileRow[]; options: PercentileChartOptions }
)

export function renderChart(c: ChartRequest): Promise<string> {
  const options = { ...c.options, title: c.title }
  switch (c.kind) {
    case 'bar': return barChart(c.rows, options)
    case 'line': return lineChart(c.rows, options)
    case 'percentile': return percentileChart(c.rows, options)
  }
}
