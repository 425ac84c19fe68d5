/** equal: holds when |value(a) / value(b) - 1| <= tolerance, on the ratio's whole interval. */
import { z } from 'zod'
import { evalNumber } from '../expr.ts'
import { placeFig, STATE } from '../figure.ts'
import { PAIR_KIND, readPair, sameColumnsRule } from '../pair.ts'
import type { SchemaParts } from '../selectors.ts'
import { fmt, fmtFig, pct } from '../words.ts'
import type { CheckDef } from './check.ts'

const schema = (p: SchemaParts) => z.object({ kind: z.literal('equal'), ...p.common, a: p.sel, b: p.sel, same: p.same.optional(), tolerance: p.num }).strict()

export type EqualCheck = z.infer<ReturnType<typeof schema>>

export const equal: CheckDef<EqualCheck, ReturnType<typeof schema>> = {
  kind: 'equal',
  schema,
  ...PAIR_KIND,
  validate(k, issue) {
    sameColumnsRule(k, issue)
  },
  units(k, item, ctx) {
    const pair = readPair(k, item, ctx)
    if ('state' in pair) return [pair]
    const { fig, detail, used } = pair
    const tol = evalNumber(k.tolerance, ctx.figures)
    const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { min: 1 - tol, max: 1 + tol })] : 'fails'
    return [{ state, text: `a/b = ${fmtFig(fig)} ${detail}; wanted ${fmt(1 - tol)}..${fmt(1 + tol)} (±${pct(tol)})`, used, fig, reference: 1 }]
  },
}
