/** spread: over the cells of select, one value per proxy, s = max / min - 1; holds when s <= max. */
import { z } from 'zod'
import { evalNumber } from '../expr.ts'
import { figureOf, placeFig, STATE } from '../figure.ts'
import type { SchemaParts } from '../selectors.ts'
import { layer, perProxy } from '../sides.ts'
import { fmt, fmtFig, unitOf } from '../words.ts'
import { missingUnit, SELECT_KIND, sourceOf, type CheckDef } from './check.ts'

const schema = (p: SchemaParts) => z.object({ kind: z.literal('spread'), ...p.common, select: p.sel, max: p.num }).strict()

export type SpreadCheck = z.infer<ReturnType<typeof schema>>

export const spread: CheckDef<SpreadCheck, ReturnType<typeof schema>> = {
  kind: 'spread',
  schema,
  ...SELECT_KIND,
  units(k, item, ctx) {
    const sel = layer(k.select, item)
    const g = perProxy(sel, sourceOf(k), ctx)
    if (g.missing.length) return [missingUnit(g.missing, g.values)]
    if (g.groups.length < 2) return [missingUnit([`a spread needs at least 2 proxies, found ${g.groups.map((x) => x.proxy).join(', ') || 'none'}`], g.values)]
    const fig = figureOf(g.sides, (vs) => Math.max(...vs) / Math.min(...vs) - 1)
    const max = evalNumber(k.max, ctx.figures)
    const list = g.groups.map((x) => `${x.proxy} ${fmt(x.value)}`).join(', ')
    const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { max })] : 'fails'
    return [{ state, text: `s = ${fmtFig(fig)} (${list} ${unitOf(sel[0]!.metric ?? k.metric)}); wanted <= ${fmt(max)}`, used: g.values, fig, reference: max }]
  },
}
