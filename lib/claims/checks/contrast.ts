/**
 * contrast: the difference between products against the difference a change makes within
 * each. s = max/min - 1 over the spread cells (one value per proxy); per proxy e = a/b - 1;
 * x = s / min(e), infinite when some e <= 0. Holds when x <= max.
 */
import { z } from 'zod'
import { evalNumber } from '../expr.ts'
import { figureOf, placeFig, STATE } from '../figure.ts'
import { hasSeries, type SchemaParts, type SelectorSpec } from '../selectors.ts'
import { dedupe, layer, perProxy } from '../sides.ts'
import { fmt, fmtFig } from '../words.ts'
import { missingUnit, sourceOf, type CheckDef, type Ctx, type Unit } from './check.ts'

const schema = (p: SchemaParts) => z.object({ kind: z.literal('contrast'), ...p.common, spread: p.sel.optional(), a: p.sel, b: p.sel, max: p.num }).strict()

export type ContrastCheck = z.infer<ReturnType<typeof schema>>

export const contrast: CheckDef<ContrastCheck, ReturnType<typeof schema>> = {
  kind: 'contrast',
  schema,
  sides: (k) => [{ path: ['a'], sel: k.a }, { path: ['b'], sel: k.b }, ...(k.spread ? [{ path: ['spread'], sel: k.spread }] : [])],
  layered: true,
  pairs: true,
  needsMetric: true,
  validate(k, issue, o) {
    // Without its own spread selector the spread reads select (or the items): one of them names the series.
    const fromAbove = k.for_each?.every(hasSeries) || k.select?.every(hasSeries)
    if (o.runnable && !k.spread && !fromAbove) issue(['spread'], 'no series for the spread: name it in spread, in select or in every for_each item')
  },
  units(k, item, ctx) {
    return [contrastUnit(k, item, ctx)]
  },
}

/**
 * The spread over the change's least effect: s = max/min - 1 over the spread cells (one value per proxy: select < item < spread);
 * per proxy e = a/b - 1 (select < item < a/b). x = s / min(e); holds when x <= max. A proxy
 * whose effect is <= 0 (the change did not move it the claimed way) makes x infinite: fails.
 */
function contrastUnit(k: ContrastCheck, item: SelectorSpec | undefined, ctx: Ctx): Unit {
  const src = sourceOf(k)
  const sp = perProxy(layer(k.select, item, k.spread), src, ctx)
  const a = perProxy(layer(k.select, item, k.a, item?.a), src, ctx)
  const b = perProxy(layer(k.select, item, k.b, item?.b), src, ctx)
  const used = dedupe([...sp.values, ...a.values, ...b.values])
  if (sp.missing.length || a.missing.length || b.missing.length) return missingUnit([...sp.missing, ...a.missing, ...b.missing], used)
  if (sp.groups.length < 2) return missingUnit([`a spread needs at least 2 proxies, found ${sp.groups.map((x) => x.proxy).join(', ') || 'none'}`], used)
  const proxies = a.groups.map((x) => x.proxy).filter((p) => b.groups.some((y) => y.proxy === p))
  if (proxies.length === 0) return missingUnit(['no proxy has both sides of the effect'], used)
  const aSides = proxies.map((p) => a.sides.find((s) => s.label === p)!)
  const bSides = proxies.map((p) => b.sides.find((s) => s.label === p)!)
  const n = sp.sides.length
  const m = proxies.length
  const f = (xs: readonly number[]) => {
    const spread = Math.max(...xs.slice(0, n)) / Math.min(...xs.slice(0, n)) - 1
    const effects = proxies.map((_, j) => xs[n + j]! / xs[n + m + j]! - 1)
    const least = Math.min(...effects)
    return least > 0 ? spread / least : Infinity
  }
  const fig = figureOf([...sp.sides, ...aSides, ...bSides], f)
  const max = evalNumber(k.max, ctx.figures)
  const sFig = figureOf(sp.sides, (xs) => Math.max(...xs) / Math.min(...xs) - 1)
  const effects = proxies.map((p, j) => `${p} ${fmt(aSides[j]!.value! / bSides[j]!.value! - 1)}`).join(', ')
  const state = Number.isFinite(fig.value) ? STATE[placeFig(fig, { max })] : 'fails'
  return {
    state,
    text: `spread / least effect = ${fmtFig(fig)} (spread ${fmtFig(sFig)} over ${sp.groups.map((x) => x.proxy).join(', ')}; effect a/b - 1: ${effects}); wanted <= ${fmt(max)}`,
    used,
    fig,
    reference: max,
  }
}
