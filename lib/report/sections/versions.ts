import type { CellSummary } from '../../analysis/cells.ts'
import { compareVersions } from '../../catalog/stack.ts'
import type { ChartRequest } from '../chart-requests.ts'
import type { Article } from '../markdown.ts'
import { cellColumns, closedPoolingCells, countCellColumns, findingList } from './common.ts'
import type { ArticleInput } from './input.ts'
import { projectId } from '../../data/grouping.ts'

/** Every proxy measured in more than one version, side by side, and its chart. */
export function versionsSection(a: Article, { aggregates, findings }: ArticleInput): ChartRequest[] {
  const versioned = versionCells(closedPoolingCells(aggregates))
  if (versioned.length === 0) return (a.skip('Versions', 'versions series: no proxy measured in two versions with one variant'), [])
  a.heading(2, 'Versions')
  a.para(
    "Every catalog version of each proxy with its article config and with a pool added (series `versions`, interleaved in one phase), and nginx's isolation variants on both sides of 1.29.7.",
  )
  // The picture draws every version; the table is for looking one up.
  a.siteOnly('Every versions cell', () => {
    a.table(
      'versions',
      // Its own windows, not the pooling series': the header says which selection the figure is (one cell, one number per selection).
      [
        ...cellColumns("CPU in the versions series' windows", 'µs/req'),
        { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req },
        ...countCellColumns('req'),
      ],
      versioned,
    )
  })
  findingList(a, findings, ['versions'])
  return []
}

/** Cells of proxies measured in more than one version with the same variant. */
export function versionCells(cells: readonly CellSummary[]): CellSummary[] {
  const group = (c: CellSummary) => projectId(c.key, ['series', 'proxy', 'variant'])
  const versions = new Map<string, Set<string>>()
  for (const c of cells) versions.set(group(c), (versions.get(group(c)) ?? new Set()).add(String(c.key.version)))
  return cells
    .filter((c) => (versions.get(group(c))?.size ?? 0) > 1)
    .sort((a, b) => group(a).localeCompare(group(b)) || compareVersions(String(a.key.version), String(b.key.version)))
}
