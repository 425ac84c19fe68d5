import { poolingSeriesCells, type CellSummary } from '../../analysis/cells.ts'
import { newestCell } from '../../analysis/derived.ts'
import { OWN_RATE_SERIES, POOLING_ROWS } from '../../data/series.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, num } from '../markdown.ts'
import { cellColumns, countCellColumns, findingList, k, statusText } from './common.ts'
import { precisionLine, withPrecision } from '../precision.ts'
import type { ArticleInput } from './input.ts'
import type { Aggregates } from '../../analysis/summary.ts'

/** Per proxy its newest version's cell in each of the three series (the headline chart and table). */
function poolingMain(poolRows: readonly CellSummary[]) {
  const proxies = [...new Set(poolRows.map((c) => String(c.key.proxy)))].sort()
  return proxies.map((p) => ({
    proxy: p,
    version: String(newestCell(poolRows, { proxy: p, variant: 'article' })?.key.version ?? newestCell(poolRows, { proxy: p })?.key.version ?? ''),
    same: newestCell(poolRows, { proxy: p, variant: 'article' }),
    added: newestCell(poolRows, { proxy: p, variant: 'pool-added' }),
    removed: newestCell(poolRows, { proxy: p, variant: 'pool-removed' }),
  }))
}

/** The pooling series' cells through a proxy (never the versions series' re-measurement, nor the bare backend). */
const proxiedPoolingSeriesCells = (aggregates: Aggregates) => poolingSeriesCells(aggregates.cells.measurements).filter((c) => c.key.proxy !== 'direct')

/** Each proxy's three pooling cells: what the answer, the headline picture and the pooling table show, one number per cell. */
export const mainCells = (aggregates: Aggregates) => poolingMain(proxiedPoolingSeriesCells(aggregates))

/** Same configs, pool removed: the newest version of each proxy, its chart, the ratios and every cell. */
export function poolingSection(a: Article, { aggregates, findings, run }: ArticleInput): ChartRequest[] {
  // Every figure of this section, like F1-F4, from the pooling series' own rows: never the versions series' re-measurement of the same cell.
  const closedPooling = poolingSeriesCells(aggregates.cells.measurements)
  const poolRows = proxiedPoolingSeriesCells(aggregates)
  a.heading(2, 'The three pooling series')
  a.para(
    `Same configs (each proxy as the article configured it), a backend pool added to everyone, the pool removed from everyone. Newest measured version of each proxy; every cell is in the detail table. Drawn from the pooling series' rows (series ${POOLING_ROWS.map((s) => `\`${s}\``).join(', ')}), the rows the findings read; the versions series measures article and pool-added again on every version, in its own phase, and its figures are in the versions section.`,
  )
  const main = mainCells(aggregates)
  a.table(
    'pooling-series',
    [
      { title: 'proxy', value: (r) => r.proxy },
      { title: 'version', value: (r) => r.version },
      { title: 'same config µs/req', value: (r) => r.same?.summary?.median ?? null },
      { title: 'pool added µs/req', value: (r) => r.added?.summary?.median ?? null },
      { title: 'pool removed µs/req', value: (r) => r.removed?.summary?.median ?? null },
      { title: 'removed / added', value: (r) => (r.removed?.summary && r.added?.summary ? r.removed.summary.median / r.added.summary.median : null) },
      { title: 'same config conns/1k', value: (r) => r.same?.medians.backend_conns_per_1k_req ?? null },
      { title: 'same config rps', value: (r) => r.same?.medians.rps ?? null },
      { title: 'same config p99 ms', value: (r) => r.same?.medians.p99_ms ?? null },
    ],
    main,
  )
  findingList(a, findings, ['F1', 'F2', 'F3', 'pool', 'cv'])
  const direct = closedPooling.find((c) => c.key.proxy === 'direct')
  if (direct)
    a.para(`Floor without a proxy (generator → backend): ${num(direct.medians.rps)} rps, backend ${num(direct.medians.backend_cpu_us_per_req)} µs/req.`)
  // The table above and the findings carry the series; every ratio and cell is for looking up.
  a.siteOnly('Every ratio of the run, and every pooling cell with its CI, CV, valid repeats and status', () => {
    a.table(
      'ratios',
      [
        { title: 'ratio', value: (r) => r.name },
        { title: 'proxy', value: (r) => r.proxy },
        { title: 'version', value: (r) => r.version },
        { title: 'value', value: (r) => r.value },
        { title: 'numerator', value: (r) => r.numerator },
        { title: 'denominator', value: (r) => r.denominator },
        { title: 'across machines', value: (r) => (r.comparable ? 'yes' : 'no (rates)') },
      ],
      aggregates.ratios,
    )
    a.heading(3, 'Every pooling cell')
    a.table(
      'pooling-cells',
      [
        ...withPrecision(cellColumns('CPU', 'µs/req')),
        { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req },
        { title: 'rps', value: (c) => c.medians.rps },
        { title: 'p99 ms', value: (c) => c.medians.p99_ms },
        ...countCellColumns('req', false),
      ],
      closedPooling,
    )
    precisionLine(a, run?.manifest, closedPooling)
  })
  // Beside the closed model's table above: the open model's cells are for looking up.
  a.siteOnly('The pooling cells in the open model: at one fixed rate, and each at half its own ceiling', () =>
    fixedRateTable(a, aggregates.cells.measurements, poolRows),
  )
  return []
}

/** Each article config in the open model at half its own closed ceiling (series same-own-rate): does it hold a load relative to itself? */
function ownRateTable(a: Article, measurements: readonly CellSummary[], closed: readonly CellSummary[]) {
  const own = measurements.filter((c) => c.key.series === OWN_RATE_SERIES)
  if (own.length === 0) return
  const ceiling = (o: CellSummary) =>
    closed.find((c) => c.key.series === 'same' && c.key.proxy === o.key.proxy && c.key.version === o.key.version && c.key.variant === o.key.variant)
  a.heading(3, 'Each at half its own ceiling (fixed rate)')
  a.para(
    "The article configs in the open model, each at 50% of its own closed-model rps (series `same-own-rate`): whether a proxy holds a load set by its own capacity, not by the slowest cell's (claim s001-haproxy-holds-50k reads HAProxy's).",
  )
  a.table(
    'pooling-own-rate',
    [
      { title: 'proxy', value: (c) => k(c, 'proxy') },
      { title: 'version', value: (c) => k(c, 'version') },
      { title: 'closed rps', value: (c) => ceiling(c)?.medians.rps ?? null },
      { title: 'target rps', value: (c) => k(c, 'target_rps') },
      { title: 'achieved rps', value: (c) => c.medians.rps },
      { title: 'errors %', value: (c) => c.medians.errors_pct },
      { title: 'dropped', value: (c) => c.medians.dropped },
      { title: 'µs/req', value: (c) => c.summary?.median ?? null },
      { title: 'status', value: (c) => statusText(c) },
    ],
    own,
  )
}

/**
 * The pooling-open phase beside the closed model: every proxy at one arrival rate, so the
 * figure does not depend on how far each proxy could be pushed. Absent in runs without it.
 */
function fixedRateTable(a: Article, measurements: readonly CellSummary[], closed: readonly CellSummary[]) {
  ownRateTable(a, measurements, closed)
  const open = measurements.filter(
    (c) => c.key.model === 'open' && POOLING_ROWS.includes(String(c.key.series)) && c.key.series !== OWN_RATE_SERIES && c.key.proxy !== 'direct',
  )
  if (open.length === 0) return
  const same = (x: CellSummary, y: CellSummary) => ['series', 'proxy', 'version', 'variant', 'key_type'].every((k) => x.key[k] === y.key[k])
  for (const rate of [...new Set(open.map((c) => Number(c.key.target_rps)))].sort((x, y) => x - y)) {
    a.heading(3, `At ${num(rate)} rps (fixed rate)`)
    a.para(
      `The same cells in the open model at one rate for every proxy (a fraction of the lowest closed-model ceiling; docs/method/load-models.md#fixed-rate-pooling-pooling-open-and-benchload-modelmjs). A proxy far from its own ceiling pays more per request: fewer requests share each wake-up.`,
    )
    a.table(
      'pooling-fixed-rate',
      [
        { title: 'series', value: (r) => k(r.open, 'series') },
        { title: 'proxy', value: (r) => k(r.open, 'proxy') },
        { title: 'version', value: (r) => k(r.open, 'version') },
        { title: 'variant', value: (r) => k(r.open, 'variant') },
        { title: 'closed µs/req', value: (r) => r.closed?.summary?.median ?? null },
        { title: `at ${num(rate)} rps µs/req`, value: (r) => r.open.summary?.median ?? null },
        { title: 'fixed / closed', value: (r) => (r.open.summary && r.closed?.summary ? r.open.summary.median / r.closed.summary.median : null) },
        { title: 'closed rps', value: (r) => r.closed?.medians.rps ?? null },
        { title: 'valid/n', value: (r) => `${r.open.counts.valid}/${r.open.rows}` },
        { title: 'status', value: (r) => statusText(r.open) },
      ],
      open.filter((c) => Number(c.key.target_rps) === rate).map((o) => ({ open: o, closed: closed.find((c) => same(c, o)) })),
    )
  }
}
