/**
 * reuse: v = backend_conns_per_1k_req(select); holds when v's whole interval lies in the band of
 * lib/catalog/reuse.ts (reuseBand: pooled <= 100, not pooled >= 900), the one judge of the
 * pool detector's bounds that the finding "pool" uses too. The check names no number.
 */
import { z } from 'zod'
import { reuseBand, reuseBandText } from '../../catalog/reuse.ts'
import { figureOf, placeFig, STATE } from '../figure.ts'
import type { SchemaParts } from '../selectors.ts'
import { layer, side } from '../sides.ts'
import { figWithUnit } from '../words.ts'
import { missingUnit, SELECT_KIND, sourceOf, type CheckDef } from './check.ts'

/** The one metric a reuse check reads. */
const METRIC = 'backend_conns_per_1k_req'

const schema = (p: SchemaParts) => z.object({ kind: z.literal('reuse'), ...p.common, select: p.sel, pooled: z.boolean() }).strict()

export type ReuseCheck = z.infer<ReturnType<typeof schema>>

export const reuse: CheckDef<ReuseCheck, ReturnType<typeof schema>> = {
  kind: 'reuse',
  schema,
  ...SELECT_KIND,
  validate(k, issue) {
    if (k.table !== 'measurements') issue(['table'], 'a reuse check reads measurements.csv')
    if (k.metric !== METRIC) issue(['metric'], `a reuse check reads ${METRIC}`)
  },
  units(k, item, ctx) {
    const s = side(layer(k.select, item), sourceOf(k), ctx)
    if (s.missing.length) return [missingUnit(s.missing, s.values)]
    const fig = figureOf([s], ([x]) => x!)
    const band = reuseBand(k.pooled)
    return [
      {
        state: STATE[placeFig(fig, band)],
        text: `${s.label}: ${figWithUnit(fig, s.metric)}; wanted ${reuseBandText(k.pooled)}`,
        used: s.values,
        fig,
        reference: (band.max ?? band.min)!,
      },
    ]
  },
}
