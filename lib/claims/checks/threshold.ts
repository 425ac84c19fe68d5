/** threshold: v = value(select); holds when v <op> value on v's whole interval (op one of < <= > >= ==). */
import { z } from 'zod'
import { evalNumber } from '../expr.ts'
import { figureOf, placeOp, STATE } from '../figure.ts'
import type { SchemaParts } from '../selectors.ts'
import { layer, side } from '../sides.ts'
import { figWithUnit, fmt } from '../words.ts'
import { missingUnit, SELECT_KIND, sourceOf, type CheckDef } from './check.ts'

const schema = (p: SchemaParts) =>
  z.object({ kind: z.literal('threshold'), ...p.common, select: p.sel, op: z.enum(['<', '<=', '>', '>=', '==']), value: p.num }).strict()

export type ThresholdCheck = z.infer<ReturnType<typeof schema>>

export const threshold: CheckDef<ThresholdCheck, ReturnType<typeof schema>> = {
  kind: 'threshold',
  schema,
  ...SELECT_KIND,
  units(k, item, ctx) {
    const s = side(layer(k.select, item), sourceOf(k), ctx)
    if (s.missing.length) return [missingUnit(s.missing, s.values)]
    const want = evalNumber(k.value, ctx.figures)
    const fig = figureOf([s], ([x]) => x!)
    return [
      {
        state: STATE[placeOp(fig, k.op, want)],
        text: `${s.label}: ${figWithUnit(fig, s.metric)}; wanted ${k.op} ${fmt(want)}`,
        used: s.values,
        fig,
        reference: want,
      },
    ]
  },
}
