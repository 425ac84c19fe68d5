/**
 * status: cells, a list of {select, status: [allowed cell statuses], reason}; holds when every
 * cell matched by each selector has an allowed status (and, with reason, every row of it a
 * reason the regular expression matches). One unit per entry.
 */
import { z } from 'zod'
import { cellLabel, matchSelector, statusTie, type CellGroup, type CellValue } from '../cells.ts'
import type { Selector, SchemaParts } from '../selectors.ts'
import { countStatuses, layer } from '../sides.ts'
import { missingUnit, sourceOf, type CheckDef, type Ctx, type Source, type Unit } from './check.ts'

const schema = (p: SchemaParts) =>
  z
    .object({
      kind: z.literal('status'),
      ...p.common,
      cells: z.array(z.object({ select: p.sel, status: p.statuses, reason: p.reason.optional() }).strict()).min(1),
    })
    .strict()

export type StatusCheck = z.infer<ReturnType<typeof schema>>

export const status: CheckDef<StatusCheck, ReturnType<typeof schema>> = {
  kind: 'status',
  schema,
  sides: (k) => k.cells.map((x, i) => ({ path: ['cells', i, 'select'], sel: x.select })),
  layered: true,
  needsMetric: false,
  units(k, item, ctx) {
    return k.cells.map((entry) => statusUnit(layer(k.select, item, entry.select), entry.status, entry.reason, sourceOf(k), ctx))
  },
}

/**
 * Every matched cell has an allowed status (and, with `reason`, every row of it a reason the
 * regex matches). A disallowed status refutes the claim; an allowed status whose rows give
 * another reason (a proxy that did not start, not the refusal claimed) tested nothing, so the
 * unit is not measured, as a missing cell is. A cell whose most common statuses tie between an
 * allowed and a disallowed one (1 valid, 1 failed) decides nothing: the unit is undecided.
 */
function statusUnit(sel: Selector, allowed: readonly string[], reason: string | undefined, src: Source, ctx: Ctx): Unit {
  const cells: CellGroup[] = []
  const missing: string[] = []
  for (const spec of sel) {
    const m = matchSelector(ctx.cells[src.table], spec)
    missing.push(...m.missing)
    for (const c of m.cells) if (!cells.includes(c)) cells.push(c)
  }
  const used: CellValue[] = cells.map((cell) => ({ cell, metric: 'status', value: null, n: cell.rows.length, excluded: 0, repeats: new Map(), rows: [] }))
  // A tie counts as each of its statuses: wrong only if all are, undecided if some are.
  const statuses = (c: CellGroup) => statusTie(c.rows) ?? [c.status]
  const wrong = cells.filter((c) => statuses(c).every((st) => !allowed.includes(st)))
  const tied = cells.filter((c) => statuses(c).some((st) => !allowed.includes(st)) && statuses(c).some((st) => allowed.includes(st)))
  const re = reason === undefined ? undefined : new RegExp(reason)
  const shown = cells.map((c) => `${cellLabel(c)}: ${c.status}${statusCounts(c)}${re ? reasonsOf(c) : ''}`)
  const wanted = `wanted ${allowed.join(' or ')}${re ? ` with every reason matching /${reason}/` : ''}`
  // A measured cell with a status the claim rules out refutes it even when another cell is absent.
  if (wrong.length) return { state: 'fails', text: `${shown.join(', ')}${missing.length ? ` (${missing.join('; ')})` : ''}; ${wanted}`, used }
  const otherCause = re ? cells.filter((c) => c.rows.some((r) => !re.test(r.reason))) : []
  for (const c of otherCause) {
    const n = c.rows.filter((r) => !re!.test(r.reason)).length
    missing.push(`${cellLabel(c)}: ${n} of ${c.rows.length} rows give a reason not matching /${reason}/${reasonsOf(c)}`)
  }
  if (missing.length) return missingUnit(missing, used)
  return { state: tied.length ? 'undecided' : 'holds', text: `${shown.join(', ')}; ${wanted}`, used }
}

/** The distinct reasons of a cell's rows, for the report: ` ("upgrade failed: HTTP 400 × 200")`. */
function reasonsOf(c: CellGroup): string {
  const rs = [...new Set(c.rows.map((r) => r.reason))].map((r) => (r === '' ? 'no reason' : JSON.stringify(r)))
  return ` (${rs.join(', ')})`
}

/** ` (1 valid, 1 failed: a tie)` where a cell mixes statuses. */
function statusCounts(c: CellGroup): string {
  const by = countStatuses(c)
  return by.length > 1 ? ` (${by.map(([s, n]) => `${n} ${s}`).join(', ')}${statusTie(c.rows) ? ': a tie' : ''})` : ''
}
