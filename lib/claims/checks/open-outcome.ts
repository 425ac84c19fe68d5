/**
 * open_outcome: each cell matched by select (an open-model cell at one rate) shows `outcome`
 * (holds or collapses, lib/data/open-outcome.ts) in the majority of its repeats. Rows count
 * when valid or invalid only because requests failed (the collapse itself: rows: open, the
 * threshold checks' rule of the same name, lib/claims/cells.ts usedRows). A majority the
 * other way fails; repeats split evenly decide nothing. One unit per for_each item.
 */
import { z } from 'zod'
import { median } from '../../core/stats.ts'
import { shows, type OpenOutcome } from '../../data/open-outcome.ts'
import type { Measurement } from '../../data/schema.ts'
import { cellLabel, matchSelector, metricValue, usedRows, type CellGroup, type CellValue } from '../cells.ts'
import type { SchemaParts } from '../selectors.ts'
import { layer } from '../sides.ts'
import { withUnit } from '../words.ts'
import { missingUnit, type CheckDef, type State, type Unit } from './check.ts'

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
    const rows = usedRows(c, 'open') as readonly Measurement[]
    if (rows.length === 0) return { state: 'missing' as const, text: `${cellLabel(c)}: no valid rows, nor rows invalid only for failed requests` }
    const { state, figure } = openRowsOutcome(rows, outcome)
    return { state, text: `${c.key.key_type} at ${rows[0]!.target_rps ?? '?'} rps: ${figure}` }
  })
  const has = (s: Unit['state']) => per.some((p) => p.state === s)
  const state = has('fails') ? 'fails' : has('missing') ? 'missing' : has('undecided') ? 'undecided' : 'holds'
  // The cell's name is the for_each item's (the proxy); what is wanted is the claim's expect.
  return { state, text: per.map((p) => p.text).join(', '), used }
}

/**
 * What one open-model cell's rows (valid, or invalid only for failed requests: rows: open) show
 * of an outcome, by majority of its repeats, and its figure: the median failed share in the
 * ledger's failed_pct (errors and dropped iterations over every attempt) and the median peak
 * VUs. The one home of that figure, for this check and F6's lines (lib/findings/tls.ts).
 */
export function openRowsOutcome(rows: readonly Measurement[], outcome: OpenOutcome): { state: Exclude<State, 'missing'>; figure: string } {
  const yes = rows.filter(shows[outcome]).length
  const no = rows.length - yes
  const state = yes > no ? 'holds' : no > yes ? 'fails' : 'undecided'
  const failed = rows.map((r) => metricValue(r, 'failed_pct')).filter((v): v is number => v !== null)
  const share = failed.length ? withUnit(median(failed), 'failed_pct') : 'no failed_pct'
  return { state, figure: `${share}, ${median(rows.map((r) => r.max_vus ?? 0)).toFixed(0)} VUs${state === 'undecided' ? ', repeats split' : ''}` }
}
