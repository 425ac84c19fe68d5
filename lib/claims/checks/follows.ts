/**
 * follows: a ranking follows a mechanism. Over the cells of select (one per proxy), every pair
 * whose `order_by` medians differ by more than `gap` (one proxy opens clearly more backend
 * connections than another) is a unit: r = metric(more) / metric(fewer), holding when r's whole
 * interval is >= min (the less pooled proxy costs at least as much). A cell without a value of
 * either metric has no place in the order: it is named in the text and left out of the pairs;
 * fewer than two cells with values, or no pair apart by the gap, is not measured.
 */
import { z } from 'zod'
import { cellLabel, type CellValue } from '../cells.ts'
import { evalNumber } from '../expr.ts'
import { figureOf, placeFig, STATE } from '../figure.ts'
import { tableMetrics, type SchemaParts } from '../selectors.ts'
import { collect, layer, type Side } from '../sides.ts'
import { fmt, fmtFig, unitOf } from '../words.ts'
import { missingUnit, SELECT_KIND, sourceOf, type CheckDef, type Unit } from './check.ts'

const schema = (p: SchemaParts) =>
  z.object({ kind: z.literal('follows'), ...p.common, select: p.sel, order_by: z.string().min(1), gap: p.num, min: p.num }).strict()

export type FollowsCheck = z.infer<ReturnType<typeof schema>>

const proxyOf = (v: CellValue) => String(v.cell.key.proxy)
const sideOf = (v: CellValue, metric: string | undefined): Side => ({ value: v.value, label: proxyOf(v), metric, values: [v], agg: 'median', missing: [] })

export const follows: CheckDef<FollowsCheck, ReturnType<typeof schema>> = {
  kind: 'follows',
  schema,
  ...SELECT_KIND,
  validate(k, issue) {
    if (!tableMetrics(k.table).includes(k.order_by))
      issue(['order_by'], `"${k.order_by}" is not a metric of ${k.table} (one of ${tableMetrics(k.table).join(', ')})`)
  },
  units(k, item, ctx) {
    const sel = layer(k.select, item)
    const src = sourceOf(k)
    const cost = collect(sel, src, ctx)
    const by = collect(sel, { ...src, metric: k.order_by }, ctx)
    const byOf = (v: CellValue) => by.values.find((b) => b.cell === v.cell)?.value ?? null
    const placed = cost.values.filter((v) => v.value !== null && byOf(v) !== null).sort((x, y) => x.value! - y.value!)
    const left = cost.values.filter((v) => !placed.includes(v)).map((v) => `${cellLabel(v.cell)}: no value, left out`)
    const gap = evalNumber(k.gap, ctx.figures)
    const min = evalNumber(k.min, ctx.figures)
    const metric = sel[0]!.metric ?? k.metric
    const order = `${placed.map((v) => `${proxyOf(v)} ${fmt(v.value!)} (${fmt(byOf(v)!)} ${unitOf(k.order_by)})`).join(' < ')} ${unitOf(metric)}`
    const note = left.length ? ` (${left.join('; ')})` : ''
    if (placed.length < 2) return [missingUnit([...cost.missing, `an order needs at least 2 cells with values, found ${placed.length}`], cost.values)]
    const pairs = placed.flatMap((fewer) => placed.filter((more) => byOf(fewer)! + gap < byOf(more)!).map((more) => ({ fewer, more })))
    if (pairs.length === 0) return [missingUnit([`no two cells ${fmt(gap)} ${unitOf(k.order_by)} apart: ${order}${note}`], cost.values)]
    return pairs.map(({ fewer, more }, i): Unit => {
      const fig = figureOf([sideOf(more, metric), sideOf(fewer, metric)], ([a, b]) => a! / b!)
      const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { min })] : 'fails'
      const label = `${proxyOf(more)}/${proxyOf(fewer)}`
      const text = `${i === 0 ? `${order}${note}; ` : ''}${label}: r = ${fmtFig(fig)}; wanted >= ${fmt(min)}`
      return { state, text, label, used: [more, fewer], fig, reference: min }
    })
  },
}
