import type { CellSummary } from '../../analysis/cells.ts'
import { compareVersions } from '../../catalog/stack.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { cellColumns, closedPoolingCells, countCellColumns, findingList } from './common.ts'
import type { ArticleInput } from './input.ts'

/** Every proxy measured in more than one version, side by side, and its chart. */
export function versionsSection(a: Article, { aggregates, findings }: ArticleInput): ChartRequest[] {
  const charts: ChartRequest[] = []
  a.heading(2, 'Versions')
  const versioned = versionCells(closedPoolingCells(aggregates))
  if (versioned.length === 0) a.para('*Not measured in this run (versions series): no proxy was measured in two versions with the same variant.*')
  else {
    a.para('Every catalog version of each proxy with its article config and with a pool added (series `versions`, interleaved in one phase), and nginx\'s isolation variants on both sides of 1.29.7.')
    a.table('versions', [...cellColumns('CPU', 'µs/req'), { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req }, ...countCellColumns('req')], versioned)
    const series = versioned.filter((c) => c.key.series === 'versions' && c.summary)
    if (series.length) {
      charts.push({
        path: 'charts/versions.svg', title: 'Proxy CPU µs per request by version', kind: 'bar',
        rows: series.map((c) => ({ category: `${c.key.proxy} ${c.key.version}`, group: String(c.key.variant), value: c.summary!.median, lo: c.summary!.min, hi: c.summary!.max })),
        options: { valueTitle: 'proxy CPU µs / request (median, min–max)' },
      })
      a.image('charts/versions.svg', 'Proxy CPU per request by version')
    }
  }
  findingList(a, findings, ['versions'])
  return charts
}

/** Cells of proxies measured in more than one version with the same variant. */
function versionCells(cells: readonly CellSummary[]): CellSummary[] {
  const group = (c: CellSummary) => `${c.key.series}|${c.key.proxy}|${c.key.variant}`
  const versions = new Map<string, Set<string>>()
  for (const c of cells) versions.set(group(c), (versions.get(group(c)) ?? new Set()).add(String(c.key.version)))
  return cells.filter((c) => (versions.get(group(c))?.size ?? 0) > 1)
    .sort((a, b) => group(a).localeCompare(group(b)) || compareVersions(String(a.key.version), String(b.key.version)))
}
