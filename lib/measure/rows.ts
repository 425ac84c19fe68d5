import type { Handshake, Measurement, WebSocketRow } from '../data/schema.ts'
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
    ...referenceColumns(null, null),
    ...fields,
  })
}

export function handshakeRow(cell: Cell, repeat: number, ctx: CellContext): RowFill<Handshake> {
  const started = new Date().toISOString()
  return (fields) => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, key_type: cell.keyType,
    connections: cell.connections, duration_s: ctx.profile.durationS, repeat, handshakes: 0, resumed: 0, errors: 0, rate: null, p50_ms: null, p99_ms: null,
    proxy_cpu_us_per_handshake: null, generator_cpu_share: null, proxy_cpu_share: null, status: 'valid', reason: '', runtime: ctx.runtime.kind, started_at: started,
    ...disturbanceColumns(null), ...referenceColumns(null, null),
    ...fields,
  })
}

export function websocketRow(cell: Cell, mode: 'echo' | 'hold', repeat: number, ctx: CellContext, durationS: number): RowFill<WebSocketRow> {
  const started = new Date().toISOString()
  return (fields) => ({
    run_id: ctx.runId, series: cell.series, proxy: cell.proxy, version: cell.version, variant: cell.variant, mode, conns_target: cell.connections, conns_established: 0,
    messages: 0, msg_rate: null, proxy_cpu_us_per_msg: null, p50_ms: null, p99_ms: null, status: 'valid', reason: '', repeat, duration_s: durationS,
    survived: null, refused: null, closed_early: null, max_ms: null, generator_cpu_share: null, runtime: ctx.runtime.kind, started_at: started,
    ...disturbanceColumns(null),
    ...fields,
  })
}

/** A start failure or failed verification as a row of the protocol's table. */
export const outcomes = <T extends { status: string; reason: string }>(row: RowFill<T>) => ({
  failed: (reason: string) => row({ status: 'failed', reason } as Partial<T>),
  invalid: (reason: string) => row({ status: 'invalid', reason } as Partial<T>),
})
