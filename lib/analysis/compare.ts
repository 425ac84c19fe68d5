import type { Handshake, Measurement, WebSocketRow } from '../data/schema.ts'
import { mannWhitney, median } from '../core/stats.ts'
import { compareVersions } from '../catalog/stack.ts'
import { cellId, TABLE_SPECS, type TableName, type TableSpec } from './cells.ts'

/**
 * A run against a baseline run, benchstat style: per cell present in both, the medians of
 * the primary metric (CPU µs per request / handshake / message: comparable across
 * machines, unlike rates), the delta, and Mann-Whitney U's p. `~` when p >= α.
 */
export const ALPHA = 0.05

export interface Delta {
  table: TableName
  key: Record<string, string | number | null>
  metric: string
  base: { median: number; n: number } | null
  run: { median: number; n: number } | null
  /** (run - base) / base; null when a side has no valid row. */
  delta: number | null
  p: number | null
  significant: boolean
  warnings: string[]
}

type Rows = { measurements: Measurement[]; handshakes: Handshake[]; websocket: WebSocketRow[] }

/**
 * Cells are matched on every key column except the version: a re-run a year later meets
 * new releases. The same version pairs with itself; what is left pairs newest with newest,
 * and the row names both versions.
 */
export function compareRuns(base: Rows, run: Rows): Delta[] {
  const out: Delta[] = []
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    const spec = TABLE_SPECS[table]
    const b = cellValues(spec, base[table] as never)
    const r = cellValues(spec, run[table] as never)
    for (const [id, runVersions] of r) {
      const baseVersions = b.get(id)
      if (!baseVersions) continue
      for (const [bv, rv] of pairVersions([...baseVersions.keys()], [...runVersions.keys()])) {
        const old = baseVersions.get(bv)!
        const cur = runVersions.get(rv)!
        out.push(delta(table, spec.primary, { ...cur.key, version: bv === rv ? rv : `${bv} → ${rv}` }, old.xs, cur.xs))
      }
    }
  }
  const sortKey = (d: Delta) => [d.table, d.key.proxy, d.key.series, d.key.variant, d.key.key_type ?? d.key.mode ?? '', String(d.key.target_rps ?? d.key.conns_target ?? '').padStart(9, '0'), d.key.version].join('|')
  return out.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
}

type CellSamples = { key: Record<string, string | number | null>; xs: number[] }

/** cell id without the version → version → valid values of the primary metric. */
function cellValues(spec: TableSpec, rows: readonly Record<string, unknown>[]) {
  const keys = { ...spec, keys: spec.keys.filter((k) => k !== 'version') }
  const m = new Map<string, Map<string, CellSamples>>()
  for (const r of rows) {
    const byVersion = m.get(cellId(keys, r)) ?? new Map<string, CellSamples>()
    const version = String(r.version)
    const cell = byVersion.get(version) ?? { key: Object.fromEntries(spec.keys.map((k) => [k, (r[k] ?? null) as string | number | null])), xs: [] }
    const v = r[spec.primary]
    if (r.status === 'valid' && typeof v === 'number') cell.xs.push(v)
    byVersion.set(version, cell)
    m.set(cellId(keys, r), byVersion)
  }
  return m
}

export function pairVersions(base: readonly string[], run: readonly string[]): [string, string][] {
  const same = run.filter((v) => base.includes(v))
  const pairs: [string, string][] = same.map((v) => [v, v])
  const newest = (vs: string[]) => vs.sort(compareVersions).at(-1)
  const b = newest(base.filter((v) => !same.includes(v)))
  const r = newest(run.filter((v) => !same.includes(v)))
  if (b && r) pairs.push([b, r])
  return pairs
}

function delta(table: TableName, metric: string, key: CellSamples['key'], base: number[], run: number[]): Delta {
  const side = (xs: number[]) => (xs.length ? { median: median(xs), n: xs.length } : null)
  const bs = side(base)
  const rs = side(run)
  const test = bs && rs ? mannWhitney(base, run) : null
  return {
    table, key, metric, base: bs, run: rs,
    delta: bs && rs && bs.median !== 0 ? rs.median / bs.median - 1 : null,
    p: test?.p ?? null,
    significant: test !== null && test.p < ALPHA,
    warnings: [...(test?.warnings ?? []), ...(!bs ? ['baseline: no valid row'] : []), ...(!rs ? ['this run: no valid row'] : [])],
  }
}

/** `+12.3% (p=0.008 n=5+5)` or `~ (p=0.40 n=3+3)`, as benchstat prints it. */
export function formatDelta(d: Delta): string {
  if (d.delta === null) return '—'
  const n = `n=${d.base?.n ?? 0}+${d.run?.n ?? 0}`
  const p = d.p === null ? '' : `p=${d.p < 0.001 ? d.p.toExponential(0) : d.p.toFixed(3)} `
  if (!d.significant) return `~ (${p}${n})`
  return `${d.delta >= 0 ? '+' : ''}${(d.delta * 100).toFixed(1)}% (${p}${n})`
}
