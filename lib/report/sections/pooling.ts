import { newestCell } from '../../analysis/derived.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { Article, num } from '../markdown.ts'
import { cellColumns, closedPoolingCells, findingList, proxiedPoolingCells } from './common.ts'
import { precisionLine, withPrecision } from '../precision.ts'
import type { ArticleInput } from './input.ts'

/** Same configs, pool added, pool removed: the newest version of each proxy, its chart, the ratios and every cell. */
export function poolingSection(a: Article, { aggregates, findings, run }: ArticleInput): ChartRequest[] {
  const charts: ChartRequest[] = []
  const closedPooling = closedPoolingCells(aggregates)
  const poolRows = proxiedPoolingCells(aggregates)
  a.heading(2, 'The three pooling series')
  a.para('Same configs (each proxy as the article configured it), a backend pool added to everyone, the pool removed from everyone. Newest measured version of each proxy; all versions are in the detail table.')
  const proxies = [...new Set(poolRows.map((c) => String(c.key.proxy)))].sort()
  const main = proxies.map((p) => ({
    proxy: p,
    version: String(newestCell(poolRows, { proxy: p, variant: 'article' })?.key.version ?? newestCell(poolRows, { proxy: p })?.key.version ?? ''),
    same: newestCell(poolRows, { proxy: p, variant: 'article' }),
    added: newestCell(poolRows, { proxy: p, variant: 'pool-added' }),
    removed: newestCell(poolRows, { proxy: p, variant: 'pool-removed' }),
  }))
  a.table('pooling-series', [
    { title: 'proxy', value: (r) => r.proxy },
    { title: 'version', value: (r) => r.version },
    { title: 'same config µs/req', value: (r) => r.same?.summary?.median ?? null },
    { title: 'pool added µs/req', value: (r) => r.added?.summary?.median ?? null },
    { title: 'pool removed µs/req', value: (r) => r.removed?.summary?.median ?? null },
    { title: 'removed / added', value: (r) => (r.removed?.summary && r.added?.summary ? r.removed.summary.median / r.added.summary.median : null) },
    { title: 'same config conns/1k', value: (r) => r.same?.medians.backend_conns_per_1k_req ?? null },
    { title: 'same config rps', value: (r) => r.same?.medians.rps ?? null },
    { title: 'same config p99 ms', value: (r) => r.same?.medians.p99_ms ?? null },
  ], main)
  if (main.length) {
    charts.push({
      path: 'charts/pooling.svg', title: 'Proxy CPU µs per request, by series', kind: 'bar',
      rows: main.flatMap((r) => ([['same config', r.same], ['pool added', r.added], ['pool removed', r.removed]] as const).flatMap(([s, c]) =>
        c?.summary ? [{ category: r.proxy, group: s, value: c.summary.median, lo: c.summary.min, hi: c.summary.max }] : [])),
      options: { valueTitle: 'proxy CPU µs / request (median, min–max)' },
    })
    a.image('charts/pooling.svg', 'Proxy CPU per request by proxy and series')
  }
  findingList(a, findings, ['F1', 'F2', 'F3', 'pool', 'cv'])
  const direct = closedPooling.find((c) => c.key.proxy === 'direct')
  if (direct) a.para(`Floor without a proxy (generator → backend): ${num(direct.medians.rps)} rps, backend ${num(direct.medians.backend_cpu_us_per_req)} µs/req.`)
  a.table('ratios', [
    { title: 'ratio', value: (r) => r.name },
    { title: 'proxy', value: (r) => r.proxy },
    { title: 'version', value: (r) => r.version },
    { title: 'value', value: (r) => r.value },
    { title: 'numerator', value: (r) => r.numerator },
    { title: 'denominator', value: (r) => r.denominator },
    { title: 'across machines', value: (r) => (r.comparable ? 'yes' : 'no (rates)') },
  ], aggregates.ratios)
  a.heading(3, 'Every pooling cell')
  a.table('pooling-cells', [...withPrecision(cellColumns('CPU', 'µs/req')),
    { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req },
    { title: 'rps', value: (c) => c.medians.rps },
    { title: 'p99 ms', value: (c) => c.medians.p99_ms }], closedPooling)
  precisionLine(a, run?.manifest, closedPooling)
  return charts
}
