import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { PROFILES, type Profile } from '../catalog/profiles.ts'
import { catalogCell, directCell, type Cell } from '../measure/cell.ts'
import { measureClosed } from '../measure/closed.ts'
import type { ProxyName } from '../catalog/stack.ts'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { certsDir, stacksDir } from '../core/paths.ts'
import { interleavedOrder } from '../core/shuffle.ts'
import { median } from '../core/stats.ts'
import type { Measurement } from '../data/schema.ts'
import { appendRow, MEASUREMENTS, readTable } from '../data/tables.ts'
import { defaultCpuLayout } from '../roles/cpus.ts'
import { cleanupStale, NativeRuntime } from '../runtime/native.ts'
import { ensureCerts } from '../setup/certs.ts'
import { goSourceHash } from '../setup/gobuild.ts'
import { acquireRunLock, lockPath } from './lock.ts'

/*
 * What the same-instant reference costs the cell it runs beside (docs/method/reference.md):
 * the same closed-model cells with and without it, back to back in an order that alternates
 * (ABAB, then BABA), repeat by repeat, on the native runtime in one process holding the run lock.
 */

export interface CostLine {
  cell: string
  /** Median cost (µs/req; the direct row: the backend's) without and with the reference, valid repeats. */
  without: number | null
  with: number | null
  ratio: number | null
  /** Median share of the proxy's core the reference took. */
  share: number | null
  n: [number, number]
}

const cost = (r: Measurement) => (r.proxy === 'direct' ? r.backend_cpu_us_per_req : r.proxy_cpu_us_per_req)

/** Per cell: with / without the reference (rows tell them apart by reference_kind). */
export function costLines(rows: readonly Measurement[]): CostLine[] {
  const cells = [...new Set(rows.map((r) => `${r.proxy} ${r.variant}`))]
  return cells.map((cell) => {
    const valid = rows.filter((r) => `${r.proxy} ${r.variant}` === cell && r.status === 'valid' && (cost(r) ?? 0) > 0)
    const off = valid.filter((r) => !r.reference_kind).map((r) => cost(r)!)
    const on = valid.filter((r) => r.reference_kind && r.reference_kind !== 'failed').map((r) => cost(r)!)
    const shares = valid.flatMap((r) => (typeof r.reference_cpu_share === 'number' ? [r.reference_cpu_share] : []))
    const m = (xs: number[]) => (xs.length ? median(xs) : null)
    const [w, o] = [m(on), m(off)]
    return { cell, without: o, with: w, ratio: w !== null && o ? w / o : null, share: m(shares), n: [off.length, on.length] }
  })
}

export function formatCostLines(lines: readonly CostLine[]): string {
  const f = (x: number | null, d = 2) => (x === null ? '-' : x.toFixed(d))
  const ratios = lines.flatMap((l) => (l.ratio === null ? [] : [l.ratio]))
  return [
    'cell | µs/req without | with the reference | with/without | reference share of the core | n without/with',
    ...lines.map((l) => `${l.cell} | ${f(l.without, 1)} | ${f(l.with, 1)} | ${f(l.ratio, 3)} | ${l.share === null ? '-' : `${(l.share * 100).toFixed(1)}%`} | ${l.n.join('/')}`),
    `median with/without over ${ratios.length} cells: ${ratios.length ? median(ratios).toFixed(3) : '-'}`,
  ].join('\n')
}

export interface ReferenceCostOptions {
  proxies: readonly ProxyName[]
  variants: readonly string[]
  repeats: number
  out: string
  log: Logger
  seed?: number
}

export async function runReferenceCost(o: ReferenceCostOptions): Promise<{ rows: Measurement[]; lines: CostLine[] }> {
  const outDir = resolve(o.out)
  if (existsSync(join(outDir, MEASUREMENTS.file))) throw userError(outDir, 'already holds measurements', 'Choose another --out')
  const certs = await ensureCerts(certsDir, { force: false, log: o.log })
  const cpus = defaultCpuLayout()
  const base = PROFILES.quick!
  const profile: Profile = { name: 'reference-cost', repeats: o.repeats, warmupS: base.warmupS, durationS: base.durationS, tailS: base.tailS }
  const cells: Cell[] = [
    ...o.proxies.flatMap((proxy) => o.variants.map((variant) => catalogCell(proxy, { series: 'reference-cost', variant, connections: base.connections }))),
    { ...directCell(goSourceHash(join(stacksDir, 'backend')).slice(0, 16), base.connections), series: 'reference-cost' },
  ]
  // Waits while another run measures, then takes the lock itself.
  spawnSync('flock', [lockPath(), 'true'], { stdio: 'ignore' })
  const releaseLock = await acquireRunLock(outDir)
  const runtime = new NativeRuntime(`${basename(outDir)}-${process.pid}`)
  try {
    cleanupStale(o.log)
    const order = interleavedOrder(cells, o.repeats, o.seed ?? 1)
    for (const [i, { cell, repeat }] of order.entries()) {
      for (const withRef of i % 2 === 0 ? [false, true] : [true, false]) {
        o.log.progress(`[${i + 1}/${order.length}] ${cell.proxy} ${cell.variant} r${repeat} ${withRef ? 'with' : 'without'} the reference`)
        const row = await measureClosed(cell, repeat, { runtime, runId: basename(outDir), runDir: outDir, cpus, profile, certs, ...(withRef ? { reference: 'rtt' as const } : {}) })
        appendRow(outDir, MEASUREMENTS, row)
      }
    }
  } finally {
    await runtime.stopAll()
    await releaseLock()
  }
  const rows = readTable(outDir, MEASUREMENTS)
  return { rows, lines: costLines(rows) }
}
