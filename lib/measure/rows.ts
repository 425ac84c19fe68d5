import type { Handshake, Measurement, WebSocketRow } from '../data/schema.ts'
import type { RoleCounts } from '../runtime/counts.ts'
import { cellScheme, type Cell, type CellContext } from './cell.ts'
import { disturbanceColumns } from './disturbance.ts'
import { referenceColumns } from './reference.ts'

/**
 * Rows as a protocol starts them: every column set, nothing measured yet. Each protocol
 * fills in what it measured; a failure fills in only status and reason.
 */
export type RowFill<T> = (fields: Partial<T>) => T

export function measurementRow(cell: Cell, repeat: number, ctx: CellContext, o: { model: 'closed' | 'open'; targetRps: number | null; durationS: number }): RowFill<Measurement> {
  const started = new Date().toISOString()
  return (fields) => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, key_type: cell.keyType,
    model: o.model, connections: cell.connections, target_rps: o.targetRps, duration_s: o.durationS, repeat,
    scheme: cellScheme(cell), path: cell.path ?? '/', body_bytes: cell.bodyBytes ?? null,
    requests: 0, errors: 0, rps: null, p50_ms: null, p90_ms: null, p99_ms: null, p999_ms: null, max_ms: null,
    proxy_cpu_us_per_req: null, backend_cpu_us_per_req: null, generator_cpu_share: null, backend_conns_per_1k_req: null,
    max_vus: null, dropped: null, status: 'valid', reason: '', proxy_cpu_share: null, runtime: ctx.runtime.kind, started_at: started, ...disturbanceColumns(null), slo: '',
    ...noCounts(), proxy_cpu_calibrated: null, calibration_unit: '',
    ...referenceColumns(null, null), udp_datagrams_per_req: null,
    ...fields,
  })
}

export function handshakeRow(cell: Cell, repeat: number, ctx: CellContext): RowFill<Handshake> {
  const started = new Date().toISOString()
  return (fields) => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, key_type: cell.keyType,
    connections: cell.connections, duration_s: ctx.profile.durationS, repeat, handshakes: 0, resumed: 0, errors: 0, rate: null, p50_ms: null, p99_ms: null,
    proxy_cpu_us_per_handshake: null, generator_cpu_share: null, proxy_cpu_share: null, status: 'valid', reason: '', runtime: ctx.runtime.kind, started_at: started,
    ...disturbanceColumns(null), ...noCounts(), ...referenceColumns(null, null), udp_datagrams_per_req: null, early_data: null,
    ...fields,
  })
}

export function websocketRow(cell: Cell, mode: 'echo' | 'hold', repeat: number, ctx: CellContext, durationS: number): RowFill<WebSocketRow> {
  const started = new Date().toISOString()
  return (fields) => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, mode, conns_target: cell.connections, conns_established: 0,
    messages: 0, msg_rate: null, proxy_cpu_us_per_msg: null, p50_ms: null, p99_ms: null, status: 'valid', reason: '', repeat, duration_s: durationS,
    survived: null, refused: null, closed_early: null, max_ms: null, generator_cpu_share: null, runtime: ctx.runtime.kind, started_at: started,
    ...disturbanceColumns(null), ...noCounts(),
    ...fields,
  })
}

/** The count columns of every row table (lib/data/schema.ts COUNT_COLUMNS). */
export interface CountColumns {
  proxy_syscalls_per_req: number | null
  proxy_ctxsw_per_req: number | null
  proxy_ctxsw_involuntary_per_req: number | null
  proxy_user_us_per_req: number | null
  proxy_sys_us_per_req: number | null
  counts_reason: string
}

export const noCounts = (reason = ''): CountColumns => ({
  proxy_syscalls_per_req: null, proxy_ctxsw_per_req: null, proxy_ctxsw_involuntary_per_req: null, proxy_user_us_per_req: null, proxy_sys_us_per_req: null, counts_reason: reason,
})

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
    counts_reason: c.userShare === null ? 'no user/system split in the role\'s cgroup' : '',
  }
}

/** A start failure or failed verification as a row of the protocol's table. */
export const outcomes = <T extends { status: string; reason: string }>(row: RowFill<T>) => ({
  failed: (reason: string) => row({ status: 'failed', reason } as Partial<T>),
  invalid: (reason: string) => row({ status: 'invalid', reason } as Partial<T>),
})
