/**
 * ratio: r = value(a) / value(b). Holds when r's whole interval lies in the band: min..max,
 * intersected with approx ± tolerance; above / below are strict bounds (a lead, "lower",
 * "faster": parity must not pass), combined with the others.
 */
import { z } from 'zod'
import type { Placement } from '../../core/intervals.ts'
import { evalNumber } from '../expr.ts'
import { combinePlaces, placeFig, placeOp, STATE, type Fig } from '../figure.ts'
import { PAIR_KIND, readPair, sameColumnsRule } from '../pair.ts'
import type { SchemaParts } from '../selectors.ts'
import { fmt, fmtFig, pct } from '../words.ts'
import type { CheckDef } from './check.ts'

const schema = (p: SchemaParts) =>
  z
    .object({
      kind: z.literal('ratio'),
      ...p.common,
      a: p.sel,
      b: p.sel,
      same: p.same.optional(),
      min: p.num.optional(),
      max: p.num.optional(),
      above: p.num.optional(),
      below: p.num.optional(),
      approx: p.num.optional(),
      tolerance: p.num.optional(),
    })
    .strict()

export type RatioCheck = z.infer<ReturnType<typeof schema>>

/** Where r lies against every bound of the check, the bounds in words, and the approx it centres on. */
function placeRatio(k: RatioCheck, fig: Fig, num: (v: number | string) => number): { places: Placement[]; wanted: string[]; reference?: number } {
  const { band, wanted, reference } = ratioBand(k, num)
  // above / below: strict bounds (a lead, "lower", "faster": parity must not pass).
  const above = k.above === undefined ? undefined : num(k.above)
  const below = k.below === undefined ? undefined : num(k.below)
  const places: Placement[] = []
  if (band.min !== undefined || band.max !== undefined) places.push(placeFig(fig, band))
  if (above !== undefined) {
    places.push(placeOp(fig, '>', above))
    wanted.push(`> ${fmt(above)}`)
  }
  if (below !== undefined) {
    places.push(placeOp(fig, '<', below))
    wanted.push(`< ${fmt(below)}`)
  }
  return { places, wanted, ...(reference !== undefined && { reference }) }
}

/** The band of the check: the intersection of min..max and approx ± tolerance, with each bound in words and the approx. */
function ratioBand(k: RatioCheck, num: (v: number | string) => number): { band: { min?: number; max?: number }; wanted: string[]; reference?: number } {
  const wanted: string[] = []
  const band: { min?: number; max?: number } = {}
  const min = k.min === undefined ? undefined : num(k.min)
  const max = k.max === undefined ? undefined : num(k.max)
  if (min !== undefined) band.min = min
  if (max !== undefined) band.max = max
  if (min !== undefined || max !== undefined) {
    wanted.push(min !== undefined && max !== undefined ? `${fmt(min)}..${fmt(max)}` : min !== undefined ? `>= ${fmt(min)}` : `<= ${fmt(max!)}`)
  }
  if (k.approx === undefined) return { band, wanted }
  const approx = num(k.approx)
  const tol = num(k.tolerance!)
  const [lo, hi] = [approx * (1 - tol), approx * (1 + tol)].sort((x, y) => x - y) as [number, number]
  band.min = Math.max(band.min ?? -Infinity, lo)
  band.max = Math.min(band.max ?? Infinity, hi)
  wanted.push(`${fmt(lo)}..${fmt(hi)} (≈ ${fmt(approx)} ±${pct(tol)})`)
  return { band, wanted, reference: approx }
}

export const ratio: CheckDef<RatioCheck, ReturnType<typeof schema>> = {
  kind: 'ratio',
  schema,
  ...PAIR_KIND,
  validate(k, issue) {
    if (k.min === undefined && k.max === undefined && k.above === undefined && k.below === undefined && k.approx === undefined)
      issue(['kind'], 'a ratio check needs min, max, above, below or approx')
    if (k.approx !== undefined && k.tolerance === undefined) issue(['approx'], 'approx needs a tolerance')
    if (k.approx === undefined && k.tolerance !== undefined) issue(['tolerance'], 'tolerance without approx (a ratio uses min/max, or approx + tolerance)')
    sameColumnsRule(k, issue)
  },
  units(k, item, ctx) {
    const pair = readPair(k, item, ctx)
    if ('state' in pair) return [pair]
    const { fig, detail, used } = pair
    const { places, wanted, reference } = placeRatio(k, fig, (v) => evalNumber(v, ctx.figures))
    const state = Number.isFinite(fig.value) ? STATE[combinePlaces(places)] : 'fails'
    return [{ state, text: `r = ${fmtFig(fig)} ${detail}; wanted ${wanted.join(' and ')}`, used, fig, ...(reference !== undefined && { reference }) }]
  },
}
