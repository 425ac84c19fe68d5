import type { TableName } from './tables.ts'

/**
 * What the precision of a cell is judged on, for the adaptive repeats (lib/run/adaptive.ts)
 * and the report's ±x%: the cost metric of each table; the direct row has no proxy, so its
 * cost is the backend's.
 */
export const PRECISION_METRIC: Record<TableName, string> = {
  measurements: 'proxy_cpu_us_per_req',
  handshakes: 'proxy_cpu_us_per_handshake',
  websocket: 'proxy_cpu_us_per_msg',
  tcp: 'proxy_cpu_us_per_conn',
}

export function precisionMetric(table: TableName, row: { proxy: string }): string {
  if (table === 'tcp' && (row as { mode?: string }).mode === 'stream') return 'proxy_cpu_us_per_mib'
  return table === 'measurements' && row.proxy === 'direct' ? 'backend_cpu_us_per_req' : PRECISION_METRIC[table]
}

/** The value a row contributes to its cell's precision (null: none). */
export function precisionValue(table: TableName | 'default-keys', row: object): number | null {
  // A fact, not a cost: nothing to make precise.
  if (table === 'default-keys') return null
  const v = (row as Record<string, unknown>)[precisionMetric(table, row as { proxy: string })]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** Reasons of a disturbed window start with this (lib/measure/validity.ts disturbedReason). */
export const DISTURBED_PREFIX = 'disturbed:'

/** A row made invalid because something else ran on the measured cores: re-measured, never a repeat. */
export const isDisturbed = (row: { status: string; reason: string }) => row.status === 'invalid' && row.reason.startsWith(DISTURBED_PREFIX)

/** A row invalid for nothing but a disturbed window (benches that count such rows on a busy machine). */
export const onlyDisturbed = (r: { status: string; reason: string }) =>
  r.status === 'invalid' && r.reason !== '' && r.reason.split('; ').every((x) => x.startsWith('disturbed'))
