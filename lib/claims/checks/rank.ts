/**
 * rank: the cells of select, one value per proxy, ordered by metric (desc: largest first, or
 * asc). Either positions (allowed places per proxy, negative from the end; with lead, how far
 * the first or last is ahead) or same_order_as (the same order as under another metric). An
 * order is decided only between proxies whose intervals do not overlap.
 */
import { z } from 'zod'
import { evalNumber } from '../expr.ts'
import { apart, figureOf, placeFig, STATE } from '../figure.ts'
import { CLAIM_SERIES, hasSeries, KEY_COLUMNS, SELECTOR_PROXIES, seriesValuesRule, tableMetrics, type SchemaParts } from '../selectors.ts'
import { layer, perProxy, type ProxyGroup, type Side } from '../sides.ts'
import { fmt, fmtFig } from '../words.ts'
import { missingUnit, SELECT_KIND, sourceOf, type CheckDef, type Ctx, type Issue, type State, type Unit } from './check.ts'

const schema = (p: SchemaParts) =>
  z
    .object({
      kind: z.literal('rank'),
      ...p.common,
      select: p.sel,
      by: p.by,
      positions: z
        .record(
          z
            .array(
              z
                .number()
                .int()
                .refine((x) => x !== 0, 'places are 1-based; negative counts from the end'),
            )
            .min(1),
        )
        .optional(),
      same_order_as: z
        .object({ table: p.table, metric: z.string().min(1), rows: p.rows, select: p.sel, by: p.by })
        .strict()
        .optional(),
      lead: z
        .object({ proxy: z.string().min(1), min: p.num })
        .strict()
        .optional(),
    })
    .strict()

export type RankCheck = z.infer<ReturnType<typeof schema>>
type By = RankCheck['by']

export const rank: CheckDef<RankCheck, ReturnType<typeof schema>> = {
  kind: 'rank',
  schema,
  ...SELECT_KIND,
  validate: validateRank,
  units(k, item, ctx) {
    const sel = layer(k.select, item)
    const g = perProxy(sel, sourceOf(k), ctx)
    if (g.missing.length) return [missingUnit(g.missing, g.values)]
    const order = sortGroups(g.groups, k.by)
    const shown = `by ${sel[0]!.metric ?? k.metric} ${k.by}: ${showOrder(order, k.by)}`
    return [k.positions ? positionsUnit(k, k.positions, order, g, shown, ctx) : sameOrderUnit(k, order, g.values, shown, ctx)]
  },
}

function validateRank(k: RankCheck, issue: Issue, o: { runnable: boolean }): void {
  if ((k.positions === undefined) === (k.same_order_as === undefined)) issue(['kind'], 'a rank check needs exactly one of positions and same_order_as')
  if (k.positions) {
    for (const p of Object.keys(k.positions)) if (!SELECTOR_PROXIES.includes(p)) issue(['positions', p], `"${p}" is not a proxy`)
  }
  if (k.lead) {
    const places = k.positions?.[k.lead.proxy]
    if (places?.length !== 1 || (places[0] !== 1 && places[0] !== -1))
      issue(['lead', 'proxy'], `lead needs positions placing ${k.lead.proxy} alone at 1 (first) or -1 (last)`)
  }
  if (k.same_order_as) validateSameOrderAs(k.same_order_as, issue, o)
}

/** same_order_as: its metric; where the claim runs here, its selector columns and series. */
function validateSameOrderAs(ref: NonNullable<RankCheck['same_order_as']>, issue: Issue, o: { runnable: boolean }): void {
  if (!tableMetrics(ref.table).includes(ref.metric)) issue(['same_order_as', 'metric'], `"${ref.metric}" is not a metric of ${ref.table}`)
  if (!o.runnable) return
  for (const s of ref.select)
    for (const col of Object.keys(s.columns)) {
      if (!KEY_COLUMNS[ref.table].includes(col)) issue(['same_order_as', 'select', col], `"${col}" is not a selector column of ${ref.table}`)
    }
  // same_order_as reads its own cells: select and for_each do not apply to it, so it names its series itself.
  ref.select.forEach((spec, i) => {
    const path = ['same_order_as', 'select', ...(ref.select.length > 1 ? [i] : [])]
    if (!hasSeries(spec)) issue(path, `no series: name the series of the cells this order is read from (one of ${CLAIM_SERIES[ref.table].join(', ')})`)
    seriesValuesRule(path, spec, ref.table, issue)
  })
}

type Groups = { groups: ProxyGroup[]; sides: Side[]; values: Unit['used'] }

/** positions: a proxy's possible places are past every proxy decided ahead of it and before every one decided behind it. */
function positionsUnit(k: RankCheck, positions: Record<string, number[]>, order: ProxyGroup[], g: Groups, shown: string, ctx: Ctx): Unit {
  const n = order.length
  const absent = Object.keys(positions).filter((p) => !order.some((x) => x.proxy === p))
  if (absent.length)
    return missingUnit(
      absent.map((p) => `no cell for ${p}`),
      g.values,
    )
  const per = Object.entries(positions).map(([p, places]) => {
    const me = order.find((x) => x.proxy === p)!
    const others = order.filter((x) => x !== me)
    const ahead = others.filter((x) => apart(x.fig, me.fig) && (k.by === 'desc' ? x.value > me.value : x.value < me.value)).length
    const behind = others.filter((x) => apart(x.fig, me.fig) && (k.by === 'desc' ? x.value < me.value : x.value > me.value)).length
    const [first, last] = [ahead + 1, n - behind]
    const allowed = places.map((pl) => (pl > 0 ? pl : n + 1 + pl))
    const can = new Set(allowed.filter((a) => a >= first && a <= last))
    const state: State = can.size === 0 ? 'fails' : can.size === last - first + 1 ? 'holds' : 'undecided'
    // Between `first` and `last` the order is not decided (the ≈ in the order shows where).
    const at = first === last ? placeWord(first, n) : `${placeWord(first, n)} ${last - first === 1 ? 'or' : 'to'} ${placeWord(last, n)}`
    return { state, text: `${p} ${state === 'fails' ? 'is' : 'could be'} ${at}, wanted ${places.map((pl) => placeWord(pl, n)).join(' or ')}` }
  })
  const num = (v: number | string) => evalNumber(v, ctx.figures)
  if (k.lead) per.push(leadUnit(k.lead.proxy, num(k.lead.min), positions[k.lead.proxy]![0]!, k.by, g.groups, g.sides))
  const off = per.filter((x) => x.state !== 'holds')
  const state: State = per.some((x) => x.state === 'fails') ? 'fails' : off.length ? 'undecided' : 'holds'
  const wanted = Object.entries(positions)
    .map(([p, places]) => `${p} ${places.map((pl) => placeWord(pl, n)).join('/')}`)
    .join(', ')
  const leadWanted = k.lead ? `, ${k.lead.proxy} ahead of the next by x >= ${fmt(num(k.lead.min))}` : ''
  return { state, text: `${shown}${off.length ? ` (${off.map((x) => x.text).join('; ')})` : ''}; wanted ${wanted}${leadWanted}`, used: g.values }
}

/**
 * same_order_as: holds when both orders are fully decided and equal; fails when some pair is
 * decided in opposite orders; else (overlapping neighbours, nothing decided against) undecided.
 */
function sameOrderUnit(k: RankCheck, order: ProxyGroup[], values: Unit['used'], shown: string, ctx: Ctx): Unit {
  const ref = k.same_order_as!
  const proxies = order.map((x) => x.proxy)
  const refSel = layer(ref.select, { columns: { proxy: proxies } })
  const rg = perProxy(refSel, { table: ref.table, metric: ref.metric, rows: ref.rows }, ctx)
  const used = [...values, ...rg.values]
  if (rg.missing.length) return missingUnit(rg.missing, used)
  const refOrder = sortGroups(rg.groups, ref.by)
  const refShown = `by ${ref.metric} ${ref.by}: ${showOrder(refOrder, ref.by)}`
  const ahead = (o: ProxyGroup[], by: By, p: string, q: string): boolean | null => {
    const [x, y] = [o.find((g) => g.proxy === p)!, o.find((g) => g.proxy === q)!]
    return apart(x.fig, y.fig) ? (by === 'desc' ? x.value > y.value : x.value < y.value) : null
  }
  const pairs = proxies.flatMap((p, i) => proxies.slice(i + 1).map((q) => [ahead(order, k.by, p, q), ahead(refOrder, ref.by, p, q)] as const))
  const state: State = pairs.some(([x, y]) => x !== null && y !== null && x !== y)
    ? 'fails'
    : pairs.every(([x, y]) => x !== null && y !== null)
      ? 'holds'
      : 'undecided'
  const note = state === 'fails' ? ' (a different order)' : state === 'undecided' ? ' (not decided: overlapping intervals)' : ''
  return { state, text: `${shown}; ${refShown}${note}`, used }
}

/**
 * rank's lead: how far the proxy placed first (last) is ahead of the next one, x = its value /
 * the largest other value (desc, place 1) or the smallest other / its value (asc, place 1);
 * mirrored for place -1. Holds when x's whole interval is >= min.
 */
function leadUnit(proxy: string, min: number, place: number, by: By, groups: ProxyGroup[], sides: Side[]): { state: Exclude<State, 'missing'>; text: string } {
  const i = groups.findIndex((g) => g.proxy === proxy)
  if (i < 0 || groups.length < 2) return { state: 'undecided', text: `no other proxy to lead` }
  // Is the proxy's value meant to be the largest? desc + first, or asc + last.
  const largest = (by === 'desc') === (place === 1)
  const f = (xs: readonly number[]) => {
    const others = xs.filter((_, j) => j !== i)
    return largest ? xs[i]! / Math.max(...others) : Math.min(...others) / xs[i]!
  }
  const fig = figureOf(sides, f)
  const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { min })] : 'fails'
  return { state, text: `${proxy} ${largest ? '/ the next largest' : ': the next smallest /'} = ${fmtFig(fig)}, wanted >= ${fmt(min)}` }
}

/** An order in words, each value with its interval; `≈` between neighbours whose intervals overlap. */
function showOrder(order: readonly ProxyGroup[], by: 'asc' | 'desc'): string {
  return order.map((x, i) => `${i === 0 ? '' : apart(order[i - 1]!.fig, x.fig) ? (by === 'desc' ? ' > ' : ' < ') : ' ≈ '}${x.proxy} ${fmtFig(x.fig)}`).join('')
}

function sortGroups<T extends { proxy: string; value: number }>(groups: T[], by: 'asc' | 'desc'): T[] {
  return [...groups].sort((x, y) => (by === 'desc' ? y.value - x.value : x.value - y.value) || x.proxy.localeCompare(y.proxy))
}

function placeWord(place: number, n: number): string {
  const p = place > 0 ? place : n + 1 + place
  if (place === -1 || p === n) return place > 0 ? `${ordinal(p)} (last)` : 'last'
  return ordinal(p)
}

const ordinal = (p: number) =>
  `${p}${p % 10 === 1 && p % 100 !== 11 ? 'st' : p % 10 === 2 && p % 100 !== 12 ? 'nd' : p % 10 === 3 && p % 100 !== 13 ? 'rd' : 'th'}`
