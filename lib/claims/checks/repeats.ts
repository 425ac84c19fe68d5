/**
 * repeats: the run's own repeat agreement. Per cell of select, d = max/min - 1 over its
 * repeats' values (the largest disagreement between two repeats of one cell, not an interval).
 * Holds when every cell's d <= max, fails when one cell's d > max; a cell with fewer than 2
 * repeats shows nothing (undecided).
 */
import { z } from 'zod'
import { cellLabel } from '../cells.ts'
import { evalNumber } from '../expr.ts'
import type { SchemaParts } from '../selectors.ts'
import { collect, layer } from '../sides.ts'
import { pct } from '../words.ts'
import { missingUnit, SELECT_KIND, sourceOf, type CheckDef, type State } from './check.ts'

const schema = (p: SchemaParts) => z.object({ kind: z.literal('repeats'), ...p.common, select: p.sel, max: p.num }).strict()

export type RepeatsCheck = z.infer<ReturnType<typeof schema>>

export const repeats: CheckDef<RepeatsCheck, ReturnType<typeof schema>> = {
  kind: 'repeats',
  schema,
  ...SELECT_KIND,
  units(k, item, ctx) {
    const max = evalNumber(k.max, ctx.figures)
    const { values, missing } = collect(layer(k.select, item), sourceOf(k), ctx)
    if (missing.length) return [missingUnit(missing, values)]
    const per = values.map((v) => {
      const xs = [...v.repeats.values()]
      return { v, n: xs.length, d: xs.length >= 2 ? Math.max(...xs) / Math.min(...xs) - 1 : null }
    })
    const decided = per.filter((x) => x.d !== null && Number.isFinite(x.d))
    const over = decided.filter((x) => x.d! > max)
    const worst = [...decided].sort((x, y) => y.d! - x.d!)[0]
    const one = per.filter((x) => x.d === null).length
    const state: State = over.length ? 'fails' : one ? 'undecided' : 'holds'
    const text =
      `${decided.length - over.length} of ${per.length} cells within ${pct(max)} between repeats${one ? ` (${one} with 1 repeat)` : ''}` +
      `${worst ? `; worst ${cellLabel(worst.v.cell)} ${pct(worst.d!)}` : ''}${over.length > 1 ? `, ${over.length} cells over` : ''}; wanted every cell <= ${pct(max)}`
    return [{ state, text, used: values }]
  },
}
