import { barChart, lineChart, type BarChartOptions, type BarRow, type LineChartOptions, type LinePoint } from './charts.ts'

/**
 * What the article asks to be drawn, as plain data; `renderChart` turns it into a static
 * SVG. Keeping the request apart keeps the article pure and testable.
 */
export type ChartRequest = { path: string; title: string } & (
  | { kind: 'bar'; rows: BarRow[]; options: BarChartOptions }
  | { kind: 'line'; rows: LinePoint[]; options: LineChartOptions }
)

export function renderChart(c: ChartRequest): Promise<string> {
  const options = { ...c.options, title: c.title }
  return c.kind === 'bar' ? barChart(c.rows, options) : lineChart(c.rows, options)
}
