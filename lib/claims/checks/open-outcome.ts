/**
 * open_outcome: each cell matched by select (an open-model cell at one rate) shows `outcome`
 * (holds or collapses, lib/data/open-outcome.ts) in the majority of its repeats. Rows count
 * when valid or invalid only because requests failed (the collapse itself). A majority the
 * other way fails; repeats split evenly decide nothing. One unit per for_each item.
 */
import { z } from 'zod'
import { median } from '../../core/stats.ts'
import { failShare, shows, validButForErrors, type OpenOutcome } from '../../data/open-outcome.ts'
import type { Measurement } from '../../data/schema.ts'
import { cellLabel, matchSelector, type CellGroup, type CellValue } from '../cells.ts'
import type { SchemaParts } from '../selectors.ts'
import { layer } from '../sides.ts'
import { missingUnit, type CheckDef, type Unit } from './check.ts'

const schema = (p: SchemaParts) => z.object({ kind: z.literal('open_outcome'), ...p.common, select: p.sel, outcome: z.enum(['holds', 'collapses']) }).strict()

export type OpenOutcomeCheck = z.infer<ReturnType<typeof schema>>

export const openOutcome: CheckDef<OpenOutcomeCheck, ReturnType<typeof schema>> = {
  kind: 'open_outcome',
  schema,
  sides: (k) => [{ path: ['select'], sel: k.select }],
  needsMetric: false,
  validate(k, issue) {
    if (k.table !== 'measurements') issue(['table'], 'open_outcome reads open-model rows of measurements.csv')
  },
  units(k, item, ctx) {
    const cells: CellGroup[] = []
    const missing: string[] = []
    for (const spec of layer(k.select, item)) {
      const m = matchSelector(ctx.cells.measurements, spec)
      missing.push(...m.missing)
      cells.push(...m.cells.filter((c) => !cells.includes(c)))
    }
    const used: CellValue[] = cells.map((cell) => ({ cell, metric: 'max_vus', value: null, n: cell.rows.length, excluded: 0, repeats: new Map(), rows: [] }))
    if (missing.length) return [missingUnit(missing, used)]
    return [outcomeUnit(cells, k.outcome, used)]
  },
}

/** Every cell's repeats by majority: any cell the other way fails, any split leaves it undecided. */
function outcomeUnit(cells: readonly CellGroup[], outcome: OpenOutcome, used: CellValue[]): Unit {
  const per = cells.map((c) => {
    const rows = (c.rows as readonly Measurement[]).filter(validButForErrors)
    const yes = rows.filter(shows[outcome]).length
    const no = rows.length - yes
    const state = rows.length === 0 ? ('missing' as const) : yes > no ? ('holds' as const) : no > yes ? ('fails' as const) : ('undecided' as const)
    const text =
      rows.length === 0
        ? `${cellLabel(c)}: no valid rows, nor rows invalid only for failed requests`
        : `${c.key.key_type} at ${rows[0]!.target_rps ?? '?'} rps: ${(median(rows.map(failShare)) * 100).toFixed(1)}% failed, ${median(rows.map((r) => r.max_vus ?? 0)).toFixed(0)} VUs${state === 'undecided' ? ', repeats split' : ''}`
    return { state, text }
  })
  const has = (s: Unit['state']) => per.some((p) => p.state === s)
  const state = has('fails') ? 'fails' : has('missing') ? 'missing' : has('undecided') ? 'undecided' : 'holds'
  // The cell's name is the for_each item's (the proxy); what is wanted is the claim's expect.
  return { state, text: per.map((p) => p.text).join(', '), used }
}
