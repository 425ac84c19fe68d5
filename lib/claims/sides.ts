/**
 * The sides of a check: selectors layered (select < for_each item < a/b), the cells they
 * match with each cell's value, and one value per side or per proxy (several cells
 * aggregated with the selector's agg). A constant side is a number expression.
 */
import { compareVersions } from '../catalog/stack.ts'
import type { Repeats } from '../core/intervals.ts'
import { aggregate, cellLabel, cellValue, familyRepeats, matchSelector, requestWords, shownSeries, type CellGroup, type CellValue } from './cells.ts'
import type { Ctx, Source } from './checks/check.ts'
import { evalNumber } from './expr.ts'
import { figureOf, type Fig } from './figure.ts'
import type { Agg, ClaimTable, RowRule, Selector, SelectorSpec } from './selectors.ts'

/** familyRepeats of a table, metric and rows, computed once per evaluation. */
export function noisyRepeats(ctx: Ctx, table: ClaimTable, metric: string, rows: RowRule): Map<CellGroup, Repeats> {
  const key = `${table}|${metric}|${rows}`
  if (!ctx.noisy.has(key)) ctx.noisy.set(key, familyRepeats(ctx.cells[table], metric, rows))
  return ctx.noisy.get(key)!
}

/** Each cell once (per metric), in first-seen order. */
export function dedupe(values: CellValue[]): CellValue[] {
  const seen = new Set<string>()
  return values.filter((v) => {
    const id = `${v.cell.table}|${JSON.stringify(v.cell.key)}|${v.metric}`
    if (seen.has(id)) return false
    seen.add(id)
    return true
  })
}

/** `over` on top of `base`: its columns and special keys win; a constant side stays as it is. */
function mergeSpec(base: SelectorSpec, over: SelectorSpec): SelectorSpec {
  if (over.value !== undefined) return over
  return {
    columns: { ...base.columns, ...over.columns },
    ...((over.agg ?? base.agg) && { agg: over.agg ?? base.agg }),
    ...((over.pick ?? base.pick) && { pick: over.pick ?? base.pick }),
    ...((over.metric ?? base.metric) && { metric: over.metric ?? base.metric }),
  }
}

/** Layers selectors (lists are unions: every combination): select < for_each item < a/b. */
export function layer(...layers: (Selector | SelectorSpec | undefined)[]): Selector {
  let acc: Selector = [{ columns: {} }]
  for (const l of layers) {
    if (l === undefined) continue
    const list = Array.isArray(l) ? l : [l]
    if (list.some((s) => s.value !== undefined)) return list
    acc = acc.flatMap((a) => list.map((b) => mergeSpec(a, b)))
  }
  return acc
}

export interface Side {
  value: number | null
  label: string
  metric: string | undefined
  /** The cells aggregated with `agg` into `value`; none for a constant side. */
  values: CellValue[]
  agg: Agg
  missing: string[]
}

function noValue(v: CellValue, rows: RowRule): string {
  const statuses = countStatuses(v.cell)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ')
  if (rows === 'all' || v.excluded < v.cell.rows.length) return `${cellLabel(v.cell)} has no ${v.metric} value`
  return `${cellLabel(v.cell)} has no valid rows${rows === 'open' ? ', nor rows invalid only for failed requests' : ''} (${statuses})`
}

/** The cells a selector (a union of maps) matches, each with its value; absent and valueless cells as `missing`. */
export function collect(sel: Selector, src: Source, ctx: Ctx): { values: CellValue[]; missing: string[] } {
  const seen = new Set<CellGroup>()
  const values: CellValue[] = []
  const missing: string[] = []
  for (const spec of sel) {
    const m = matchSelector(ctx.cells[src.table], spec)
    missing.push(...m.missing)
    const metric = spec.metric ?? src.metric!
    for (const c of m.cells) {
      if (seen.has(c)) continue
      seen.add(c)
      values.push({ ...cellValue(c, metric, src.rows), repeats: noisyRepeats(ctx, src.table, metric, src.rows).get(c)! })
    }
  }
  for (const v of values) if (v.value === null) missing.push(noValue(v, src.rows))
  return { values, missing }
}

export const aggOf = (sel: Selector): Agg => sel.find((s) => s.agg)?.agg ?? 'median'

export function side(sel: Selector, src: Source, ctx: Ctx): Side {
  const constant = sel.length === 1 ? sel[0]!.value : undefined
  if (constant !== undefined) {
    return {
      value: evalNumber(constant, ctx.figures),
      label: typeof constant === 'number' ? 'constant' : 'published',
      metric: undefined,
      values: [],
      agg: 'median',
      missing: [],
    }
  }
  const { values, missing } = collect(sel, src, ctx)
  const agg = aggOf(sel)
  return {
    value: missing.length ? null : aggregate(values, agg),
    label: sideLabel(values, sel, agg),
    metric: sel[0]!.metric ?? src.metric,
    values,
    agg,
    missing,
  }
}

/**
 * `same` of a ratio or equal check: side a's value of each column, as a selector layer for
 * side b (b at the connections a was measured at, whatever the profile's count). A string
 * when a's cells disagree on a column; undefined when there is nothing to add.
 */
export function sameAs(a: Side, columns: readonly string[] | undefined): SelectorSpec | string | undefined {
  if (!columns || a.values.length === 0) return undefined
  const want: Record<string, string | number> = {}
  for (const col of columns) {
    const seen = [...new Set(a.values.map((v) => v.cell.key[col] ?? null))]
    if (seen.length > 1) return `side a's cells differ in ${col} (${seen.join(', ')}): same: [${col}] needs one value`
    // A null column (no body size) matches a null cell column by its text, as matchSelector compares.
    want[col] = seen[0] === null || seen[0] === undefined ? 'null' : seen[0]!
  }
  return { columns: want }
}

export interface ProxyGroup {
  proxy: string
  value: number
  fig: Fig
}

/** One value per proxy (several cells of a proxy are aggregated with the selector's agg), with its interval. */
export function perProxy(sel: Selector, src: Source, ctx: Ctx): { groups: ProxyGroup[]; sides: Side[]; values: CellValue[]; missing: string[] } {
  const { values, missing } = collect(sel, src, ctx)
  const agg = aggOf(sel)
  const proxies = [...new Set(values.map((v) => String(v.cell.key.proxy)))]
  const sides: Side[] = missing.length
    ? []
    : proxies.map((proxy) => {
        const own = values.filter((v) => v.cell.key.proxy === proxy)
        return { value: aggregate(own, agg), label: proxy, metric: sel[0]!.metric ?? src.metric, values: own, agg, missing: [] }
      })
  const groups = sides.map((s) => ({ proxy: s.label, value: s.value!, fig: figureOf([s], ([x]) => x!) }))
  return { groups, sides, values, missing }
}

/** A side in words: proxy, version (when selected on), variant and what else sets its cells apart. */
function sideLabel(values: CellValue[], sel: Selector, agg: Agg): string {
  if (values.length === 0) return 'nothing'
  const cells = values.map((v) => v.cell)
  const distinct = (col: string) => [
    ...new Set(
      cells
        .map((c) => c.key[col])
        .filter((x) => x !== undefined && x !== null)
        .map(String),
    ),
  ]
  const keyTypes = distinct('key_type')
  const proxies = distinct('proxy')
  const versionsOf = (p: string) => [...new Set(cells.filter((c) => c.key.proxy === p).map((c) => String(c.key.version)))].sort(compareVersions)
  // Versions only where they tell something: selected on, or several of one proxy.
  const showVersions = sel.some((s) => s.columns.version !== undefined) || proxies.some((p) => versionsOf(p).length > 1)
  const parts = [showVersions ? proxies.map((p) => `${p} ${versionsOf(p).join('+')}`).join(' + ') : proxies.join('+')]
  parts.push(distinct('variant').join('+'))
  // Series only where the variant does not tell it (then all of them, pool-added+tls-ceiling).
  if (cells.some((c) => shownSeries(c) !== null)) parts.push(distinct('series').join('+'))
  if (keyTypes.length && (cells[0]!.table === 'handshakes' || keyTypes.some((k) => k !== 'ec256'))) parts.push(keyTypes.join('+'))
  parts.push(distinct('mode').join('+'))
  if (distinct('model').includes('open'))
    parts.push(
      `open@${distinct('target_rps')
        .sort((x, y) => Number(x) - Number(y))
        .join('+')}`,
    )
  parts.push([...new Set(cells.flatMap((c) => requestWords(c.key)))].join('+'))
  // Connections only where a selector names them (scenarios at 1000, a side paired on a's count).
  if (sel.some((s) => s.columns.connections !== undefined)) parts.push(`${distinct('connections').join('+')} conns`)
  const label = parts.filter(Boolean).join(' ')
  return cells.length > 1 ? `${label} (${agg} of ${cells.length} cells)` : label
}

/** How many rows of a cell have each status, in first-seen order. */
export function countStatuses(c: CellGroup): [string, number][] {
  const counts = new Map<string, number>()
  for (const r of c.rows) counts.set(r.status, (counts.get(r.status) ?? 0) + 1)
  return [...counts]
}
