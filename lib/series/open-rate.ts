/**
 * Open-model rates from closed-model ceilings: the fractions the series measure at and how a
 * ceiling becomes a rate. The pooling series (pooling-open, same-own-rate) and the tls series
 * (tls-open, tls-open-half, tls-calibration) take their rates from here, over cells grouped
 * by lib/data/grouping.ts.
 */
import { summarize } from '../core/stats.ts'
import { groupRows, keyId, repeatIdOf, type CellId, type CellKey } from '../data/grouping.ts'
import type { Measurement } from '../data/schema.ts'
import { POOLING_ROWS } from '../data/series.ts'
import { MEASUREMENTS, readTable } from '../data/tables.ts'
import { pairCellId, thenTable } from '../data/then.ts'

/**
 * pooling-open: every pooling cell again at one fixed arrival rate, so that each proxy is
 * measured at the same load instead of at whatever rate it reaches in the closed model.
 * The rate is this fraction of the lowest closed-model ceiling among the proxied pooling
 * cells. HAProxy's dpbench measures at 50-80% of capacity; here the capacity is set by
 * the generator core, which the backend shares, and the Go open-model generator costs more
 * per request than wrk, so the low end: docs/method/load-models.md#fixed-rate-pooling-pooling-open-and-benchload-modelmjs has the measurements.
 * same-own-rate uses the same fraction of each article config's own ceiling (docs/ledger.md).
 */
export const POOLING_OPEN_FRACTION = 0.5

/**
 * The tls series' open-model rates, as fractions of HAProxy's EC-256 closed-model ceiling (the
 * one ceiling seed 000 states): the seed's own, 15,000 rps against HAProxy's 223,000 (figures
 * s000-open-model-rate, s000-calibration-closed-rps; test/series/open-rate.test.ts checks them),
 * series tls-open, which the claims read; and half the ceiling, series tls-open-half, where
 * on 2 cores even EC-256 may snowball to the VU cap (each new VU pays a handshake): recorded
 * as a result, not a fault (docs/ledger.md "Open model at two rates").
 */
export const SEED_OPEN_FRACTION = 15_000 / 223_000
export const HALF_OPEN_FRACTION = 0.5
export const OPEN_RATES = [
  { series: 'tls-open', fraction: SEED_OPEN_FRACTION, what: "the seed's fraction (15,000 of 223,000 rps)" },
  { series: 'tls-open-half', fraction: HALF_OPEN_FRACTION, what: 'half' },
] as const
/** tls-calibration's steps, as fractions of HAProxy's closed-model ceiling. */
export const CALIBRATION_STEPS = [0.05, 0.1, 0.2, 0.4, 0.7, 1]

/** A row's cell and round without its version: a pair's two sides share it. */
const pairSlot = (r: Measurement) => repeatIdOf(pairCellId('measurements', r), r.repeat)

/**
 * The run's rows as ceilings, for the rates of its later phases. A side measured at one instant
 * with its twin (--pair-at instant) shared the proxy's core: its rps is half a lone window's
 * when the two cost alike. Its ceiling is the shared window's, both sides' rps together, what
 * the core served; a side whose twin has no valid row of that round is no ceiling.
 */
export function withSharedCeilings(now: readonly Measurement[], then: readonly Measurement[]): Measurement[] {
  const twins = new Map(then.filter((r) => r.pair_window === 'instant' && r.status === 'valid' && r.rps).map((r) => [pairSlot(r), r.rps!]))
  return now.flatMap((r) => {
    if (r.pair_window !== 'instant') return [r]
    const twin = twins.get(pairSlot(r))
    return twin !== undefined && r.rps ? [{ ...r, rps: r.rps + twin }] : []
  })
}

/** The run's measurements as ceilings (withSharedCeilings), read from its directory. */
export const ceilingRows = (runDir: string): Measurement[] => withSharedCeilings(readTable(runDir, MEASUREMENTS), readTable(runDir, thenTable(MEASUREMENTS)))

/** A fraction of a closed-model ceiling as an open-model rate: whole hundreds, at least 100. */
export const rateAt = (fraction: number, ceilingRps: number): number => Math.max(100, Math.round((fraction * ceilingRps) / 100) * 100)

/** The median rps of each group of `columns` among the rows, by group, valid rows with an rps only. */
function medianRps(rows: readonly Measurement[], columns: readonly string[]): { key: CellKey; ceiling: number }[] {
  return groupRows(
    rows.filter((r) => r.status === 'valid' && r.rps),
    columns,
  ).map((g) => ({ key: g.key, ceiling: summarize(g.rows.map((r) => r.rps!)).median }))
}

// ------------------------------------------------------------------ tls: HAProxy's EC-256 ceiling

/** Median closed-model rps of each proxy's EC-256 ceiling cell (valid rows only), by proxy. */
export function tlsCeilings(rows: readonly Measurement[]): Map<string, number> {
  return new Map(
    medianRps(
      rows.filter((r) => r.series === 'tls-ceiling' && r.key_type === 'ec256'),
      ['proxy'],
    ).map((c) => [String(c.key.proxy), c.ceiling]),
  )
}

/** The ceiling the open-model rates are fractions of: HAProxy's, as in the seed; without it in the run, the slowest proxy's. */
export function openReference(c: ReadonlyMap<string, number>): { proxy: string; ceiling: number } | null {
  const haproxy = c.get('haproxy')
  if (haproxy !== undefined) return { proxy: 'haproxy', ceiling: haproxy }
  const slowest = [...c].sort((a, b) => a[1] - b[1])[0]
  return slowest ? { proxy: slowest[0], ceiling: slowest[1] } : null
}

/** An open-model rate: a stated fraction of the reference ceiling, in hundreds. */
export function openRate(c: ReadonlyMap<string, number>, fraction: number = SEED_OPEN_FRACTION): number | null {
  const ref = openReference(c)
  return ref ? rateAt(fraction, ref.ceiling) : null
}

// ------------------------------------------------------------------ pooling: the pooling cells' ceilings

export interface PoolingCeiling {
  /** series, proxy, version, variant */
  key: CellKey
  /** Median closed-model rps of the valid rows. */
  ceiling: number
}

const POOLING_CELL = ['series', 'proxy', 'version', 'variant'] as const

/** A pooling cell in words, as the run's log names it: `series proxy version variant`. */
export const poolingCellName = (key: CellKey): string => POOLING_CELL.map((c) => String(key[c] ?? '')).join(' ')

/** Median closed-model rps of each proxied pooling cell, valid rows only (the direct row left out). */
export function poolingCeilings(rows: readonly Measurement[]): PoolingCeiling[] {
  return medianRps(
    rows.filter((r) => POOLING_ROWS.includes(r.series) && r.model === 'closed' && r.proxy !== 'direct'),
    POOLING_CELL,
  )
}

export interface OpenRateChoice {
  rate: number
  fraction: number
  /** The lowest ceiling (median rps) and the cell it belongs to (poolingCellName). */
  ceiling: number
  cellName: string
}

/** The pooling-open rate from the closed rows; null when no proxied cell has a valid ceiling. */
export function poolingOpenRate(rows: readonly Measurement[], fraction = POOLING_OPEN_FRACTION): OpenRateChoice | null {
  const lowest = [...poolingCeilings(rows)].sort((a, b) => a.ceiling - b.ceiling)[0]
  return lowest ? { rate: rateAt(fraction, lowest.ceiling), fraction, ceiling: lowest.ceiling, cellName: poolingCellName(lowest.key) } : null
}

/** The identity of a proxy's article config in ownOpenRates. */
export const ownRateId = (proxy: string, version: string): CellId => keyId([proxy, version])

/** Each proxy's rate for its article cell: the fraction of that cell's median closed rps (valid rows), in hundreds, by ownRateId. */
export function ownOpenRates(rows: readonly Measurement[], fraction = POOLING_OPEN_FRACTION): Map<CellId, { rate: number; ceiling: number }> {
  const out = new Map<CellId, { rate: number; ceiling: number }>()
  for (const { key, ceiling } of poolingCeilings(rows)) {
    if (key.series === 'same' && key.variant === 'article')
      out.set(ownRateId(String(key.proxy), String(key.version)), { rate: rateAt(fraction, ceiling), ceiling })
  }
  return out
}
