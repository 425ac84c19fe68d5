import { median } from '../core/stats.ts'
import type { Calibration, Handshake, Manifest, Measurement, WebSocketRow } from '../data/schema.ts'
import { groupRows, type CellKey } from '../data/grouping.ts'
import { TABLE_SPECS, type TableName } from './cells.ts'
import type { Delta } from './compare.ts'

/**
 * Calibrated units: a proxy figure divided by a reference measured in the same run, on the
 * same kernel. Two machines of one kind (same CPU model, other kernel build and
 * mitigations) measured proxies ~2.2x apart in raw µs; a reference that moves with them
 * cancels the machine out. Candidates:
 * - `direct`: the run's `direct` row, the bare backend's CPU µs per request (same loopback
 *   path, same kernel; recorded by every pooling run, baselines before calibration too);
 * - `loopback`: the calibration's TCP loopback round trip, CPU µs (manifest.calibration);
 * - `ecdsa_p256_sign`, `rsa4096_sign`: openssl speed, µs per sign (manifest.calibration).
 */
export const REFERENCES = ['direct', 'loopback', 'ecdsa_p256_sign', 'rsa4096_sign'] as const
export type ReferenceName = (typeof REFERENCES)[number]
export type References = Record<ReferenceName, number | null>

export const REFERENCE_LABELS: Record<ReferenceName, string> = {
  direct: 'direct row (backend CPU µs/req)',
  loopback: 'loopback round trip (CPU µs)',
  ecdsa_p256_sign: 'ECDSA P-256 sign (µs)',
  rsa4096_sign: 'RSA-4096 sign (µs)',
}

/**
 * The reference each table is judged on across machines (docs/method/comparison.md#calibrated-unit, from
 * bench/calibration.mjs): the direct row is the only reference the committed baselines
 * have, it moved with the proxies between machines of this kind (2.3x against 2.2x), and
 * against the 2026-11-30 baseline it brought the median cell ratio closer to 1. Handshakes
 * moved less (~1.7x) than the direct row and more than openssl (10-20%): no reference
 * cancels that within ±15%, so across machines handshakes are best read as within-run
 * ratios (RSA-4096 / EC-256); the direct row is shown for them all the same.
 */
export const CALIBRATION_REFERENCE: Record<TableName, ReferenceName> = {
  measurements: 'direct',
  handshakes: 'direct',
  websocket: 'direct',
  // L4 forwarding is system calls and copies, no HTTP parsing: the loopback round trip is its nearest reference.
  tcp: 'loopback',
}

interface RunLike {
  measurements: Measurement[]
  handshakes: Handshake[]
  websocket: WebSocketRow[]
  manifest: Pick<Manifest, 'calibration'>
}

/** The rows whose backend cost is the `direct` reference: the bare backend in the closed model. */
export const isDirectReference = (r: { series: string; model?: string | null }) => r.series === 'direct' && r.model === 'closed'

/** The run's references; null where the run has none (no direct row, no calibration recorded or no manifest read). */
export function runReferences(run: Pick<RunLike, 'measurements'> & Partial<Pick<RunLike, 'manifest'>>): References {
  const direct = run.measurements
    .filter((r) => isDirectReference(r) && r.status === 'valid' && r.backend_cpu_us_per_req !== null && r.backend_cpu_us_per_req > 0)
    .map((r) => r.backend_cpu_us_per_req!)
  const c: Calibration | null = run.manifest?.calibration ?? null
  return {
    direct: direct.length ? median(direct) : null,
    loopback: c?.loopback_rtt_us ?? null,
    ecdsa_p256_sign: c?.ecdsa_p256_sign_us ?? null,
    rsa4096_sign: c?.rsa4096_sign_us ?? null,
  }
}

/** value / reference for each reference (null where either is missing). */
export function calibrate(value: number | null, refs: References): References {
  return Object.fromEntries(REFERENCES.map((n) => [n, value !== null && refs[n] ? value / refs[n]! : null])) as References
}

export interface CalibratedCell {
  table: TableName
  key: CellKey
  /** Median of the primary metric over valid rows (µs); null when none. */
  raw: number | null
  calibrated: References
}

/** Per cell of every table: the raw median and its value in each reference's unit. */
export function calibratedCells(run: RunLike): CalibratedCell[] {
  const refs = runReferences(run)
  const out: CalibratedCell[] = []
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    const spec = TABLE_SPECS[table]
    for (const { key, rows } of groupRows(run[table] as readonly Record<string, unknown>[], spec.keys)) {
      const xs = rows.flatMap((r) => {
        const v = r[spec.primary]
        return r.status === 'valid' && typeof v === 'number' ? [v] : []
      })
      const raw = xs.length ? median(xs) : null
      out.push({ table, key, raw, calibrated: calibrate(raw, refs) })
    }
  }
  return out
}

export interface Spread {
  cells: number
  median: number
  min: number
  max: number
}

export interface Agreement {
  table: TableName
  reference: ReferenceName
  /** Per-cell ratio this run / baseline of the raw medians. */
  raw: Spread | null
  /** The same ratio of calibrated values; null when a side has no such reference. */
  calibrated: Spread | null
  /** Reference this run / baseline. */
  referenceRatio: number | null
}

const spread = (xs: number[]): Spread | null => (xs.length ? { cells: xs.length, median: median(xs), min: Math.min(...xs), max: Math.max(...xs) } : null)

/**
 * How well each reference cancels the machine: for the cells both runs measured (the
 * deltas of compareRuns), the ratio run/baseline of raw and of calibrated medians. The
 * better reference puts the calibrated ratios closer to 1, with less spread.
 */
export function referenceAgreement(deltas: readonly Delta[], base: References, run: References): Agreement[] {
  const out: Agreement[] = []
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    const rawRatios = deltas.filter((d) => d.table === table && d.base && d.run && d.base.median > 0).map((d) => d.run!.median / d.base!.median)
    if (rawRatios.length === 0) continue
    for (const reference of REFERENCES) {
      const b = base[reference]
      const r = run[reference]
      const refRatio = b && r ? r / b : null
      out.push({
        table,
        reference,
        raw: spread(rawRatios),
        calibrated: refRatio === null ? null : spread(rawRatios.map((x) => x / refRatio)),
        referenceRatio: refRatio,
      })
    }
  }
  return out
}

/** Largest distance from 1 of a spread, as a fraction (0.12 = within ±12%). */
export const worstDeviation = (s: Spread) => Math.max(Math.abs(s.min - 1), Math.abs(s.max - 1))

const r3 = (x: number) => Number(x.toPrecision(3)).toString()
const showSpread = (s: Spread | null) => (s ? `${r3(s.median)} [${r3(s.min)}..${r3(s.max)}]` : 'no calibration recorded')

/** The agreement as a Markdown table (bench/calibration.mjs prints it). */
export function agreementTable(rows: readonly Agreement[]): string {
  const lines = [
    '| table | reference | reference ratio | raw ratio, median [min..max] | calibrated ratio, median [min..max] | worst cell vs 1 |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (a) =>
        `| ${a.table} | ${a.reference} | ${a.referenceRatio === null ? '—' : r3(a.referenceRatio)} | ${showSpread(a.raw)} (${a.raw?.cells ?? 0} cells) | ${showSpread(a.calibrated)} | ${a.calibrated ? `±${(worstDeviation(a.calibrated) * 100).toFixed(0)}%` : '—'} |`,
    ),
  ]
  return lines.join('\n') + '\n'
}
