import { blankRow } from '../data/columns/derive.ts'
import { COUNTS, ROW_FILES } from '../data/columns/table.ts'
import type { Handshake, Measurement, WebSocketRow } from '../data/schema.ts'
import type { RoleCounts } from '../runtime/counts.ts'
import { cellScheme, type CellPlan, type CellContext } from './cell.ts'

/**
 * Rows as a protocol starts them: every column with an empty value empty (the column
 * table's blank row), the cell's identity and zero counts set, nothing measured yet. Each
 * protocol fills in what it measured; a failure fills in only status and reason.
 */
export type RowFill<T> = (fields: Partial<T>) => T

/** What every row of a window starts with: its cell, its repeat and when it started. */
export const rowWindow = (cell: CellPlan, repeat: number, ctx: CellContext) => ({
  run_id: ctx.runId,
  series: cell.series,
  proxy: cell.proxy,
  version: cell.version,
  variant: cell.variant,
  repeat,
  status: 'valid' as const,
  reason: '',
  runtime: ctx.runtime.kind,
  started_at: new Date().toISOString(),
})

export function measurementRow(
  cell: CellPlan,
  repeat: number,
  ctx: CellContext,
  o: { model: 'closed' | 'open'; targetRps: number | null; durationS: number },
): RowFill<Measurement> {
  const start = {
    ...blankRow(ROW_FILES.measurements),
    ...rowWindow(cell, repeat, ctx),
    key_type: cell.keyType,
    model: o.model,
    connections: cell.connections,
    target_rps: o.targetRps,
    duration_s: o.durationS,
    scheme: cellScheme(cell),
    path: cell.path ?? '/',
    body_bytes: cell.bodyBytes ?? null,
    requests: 0,
    errors: 0,
  }
  return (fields) => ({ ...start, ...fields })
}

export function handshakeRow(cell: CellPlan, repeat: number, ctx: CellContext): RowFill<Handshake> {
  const start = {
    ...blankRow(ROW_FILES.handshakes),
    ...rowWindow(cell, repeat, ctx),
    key_type: cell.keyType,
    connections: cell.connections,
    duration_s: ctx.profile.durationS,
    handshakes: 0,
    resumed: 0,
    errors: 0,
  }
  return (fields) => ({ ...start, ...fields })
}

export function websocketRow(cell: CellPlan, mode: 'echo' | 'hold', repeat: number, ctx: CellContext, durationS: number): RowFill<WebSocketRow> {
  const start = {
    ...blankRow(ROW_FILES.websocket),
    ...rowWindow(cell, repeat, ctx),
    mode,
    conns_target: cell.connections,
    conns_established: 0,
    messages: 0,
    duration_s: durationS,
  }
  return (fields) => ({ ...start, ...fields })
}

/** The count columns of every row table (lib/data/columns/table.ts COUNTS). */
export type CountColumns = Pick<Measurement, (typeof COUNTS)[number]['name']>

export const noCounts = (reason = ''): CountColumns => ({ ...blankRow({ columns: COUNTS }), counts_reason: reason })

const round = (x: number, digits: number) => Number(x.toFixed(digits))

/**
 * A role's window counts per unit (request, handshake, message, connection, MiB):
 * `units` in the window and `cpuUsPerUnit`, the row's primary metric, which the user/system
 * share splits. Empty with the reason where nothing was counted.
 */
export function countColumns(c: RoleCounts | undefined, units: number, cpuUsPerUnit: number | null): CountColumns {
  if (!c) return noCounts('not counted')
  if (!c.ok) return noCounts(c.reason)
  if (!(units > 0)) return noCounts('no units in the window to count per')
  return {
    proxy_syscalls_per_req: round(c.syscalls / units, 4),
    proxy_ctxsw_per_req: round(c.contextSwitches / units, 4),
    proxy_ctxsw_involuntary_per_req: c.involuntarySwitches === null ? null : round(c.involuntarySwitches / units, 4),
    proxy_user_us_per_req: c.userShare === null || cpuUsPerUnit === null ? null : round(cpuUsPerUnit * c.userShare, 3),
    proxy_sys_us_per_req: c.userShare === null || cpuUsPerUnit === null ? null : round(cpuUsPerUnit * (1 - c.userShare), 3),
    counts_reason: c.userShare === null ? "no user/system split in the role's cgroup" : '',
  }
}

/** A start failure or failed verification as a row of the protocol's table. */
export const outcomes = <T extends { status: string; reason: string }>(row: RowFill<T>) => ({
  failed: (reason: string) => row({ status: 'failed', reason } as Partial<T>),
  invalid: (reason: string) => row({ status: 'invalid', reason } as Partial<T>),
})
