/**
 * count: v = value(select); holds when |v - value| <= tolerance (absolute, default 0) on v's
 * whole interval. value conns_target: each cell against its own target.
 */
import { z } from 'zod'
import { cellLabel } from '../cells.ts'
import { evalNumber } from '../expr.ts'
import { figureOf, placeFig, STATE } from '../figure.ts'
import type { SchemaParts } from '../selectors.ts'
import { layer, side, type Side } from '../sides.ts'
import { figWithUnit, fmt, fmtFig, unitOf } from '../words.ts'
import { missingUnit, SELECT_KIND, sourceOf, type CheckDef, type State, type Unit } from './check.ts'

const schema = (p: SchemaParts) =>
  z.object({ kind: z.literal('count'), ...p.common, select: p.sel, value: z.union([z.literal('conns_target'), p.num]), tolerance: p.num.optional() }).strict()

export type CountCheck = z.infer<ReturnType<typeof schema>>

/** Each cell against its own target: fails if any cell is certainly off, undecided if any may be. */
function againstTargets(s: Side, tol: number): Unit {
  const per = s.values.map((v) => {
    const target = Number(v.cell.key.conns_target)
    const fig = figureOf([{ ...s, value: v.value, values: [v] }], ([x]) => x!)
    return { v, target, fig, state: STATE[placeFig(fig, { min: target - tol, max: target + tol })] }
  })
  const text = per.map((x) => `${cellLabel(x.v.cell)}: ${fmtFig(x.fig)} of ${fmt(x.target)} ${unitOf(s.metric)}`).join(', ')
  const one = per.length === 1 ? { fig: per[0]!.fig, reference: per[0]!.target } : {}
  const state: State = per.some((x) => x.state === 'fails') ? 'fails' : per.some((x) => x.state === 'undecided') ? 'undecided' : 'holds'
  return { state, text: `${text}; wanted the target ±${fmt(tol)}`, used: s.values, ...one }
}

export const count: CheckDef<CountCheck, ReturnType<typeof schema>> = {
  kind: 'count',
  schema,
  ...SELECT_KIND,
  validate(k, issue) {
    if (k.value === 'conns_target' && k.table !== 'websocket') issue(['value'], 'conns_target is a column of the websocket table only')
  },
  units(k, item, ctx) {
    const num = (v: number | string) => evalNumber(v, ctx.figures)
    const tol = k.tolerance === undefined ? 0 : num(k.tolerance)
    const s = side(layer(k.select, item), sourceOf(k), ctx)
    if (s.missing.length) return [missingUnit(s.missing, s.values)]
    if (k.value === 'conns_target') return [againstTargets(s, tol)]
    const want = num(k.value)
    const targets = [...new Set(s.values.map((v) => v.cell.key.conns_target).filter((t) => t !== undefined))]
    const fig = figureOf([s], ([x]) => x!)
    return [
      {
        state: STATE[placeFig(fig, { min: want - tol, max: want + tol })],
        text: `${s.label}: ${figWithUnit(fig, s.metric)}${targets.length ? ` (target ${targets.join('+')})` : ''}; wanted ${fmt(want)} ±${fmt(tol)}`,
        used: s.values,
        fig,
        reference: want,
      },
    ]
  },
}
