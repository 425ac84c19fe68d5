import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { PROFILES, type Profile } from '../catalog/profiles.ts'
import { catalogCellPlan, directCell, type CellPlan } from '../measure/cell.ts'
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
import { calibrateTax, formatTax, taxLauncher } from '../runtime/syscall-tax.ts'
import { acquireRunLock, lockPath } from '../run/lock.ts'

/*
 * Two conditions of the same closed-model cells, back to back in an order that alternates
 * (ABAB, then BABA), repeat by repeat, on the native runtime in one process holding the run
 * lock: without and with the same-instant reference (what it costs the cell beside it,
 * docs/method/reference.md), or, with taxNs, as is and under the system-call tax, the
 * reference on in both (which unit holds when the machine changes, at the closest interleaving).
 * Rows tell the conditions apart by their runtime column: `A` and `B`.
 */

export interface CostLine {
  cell: string
  /** Median cost (µs/req; the direct row: the backend's) in condition A and B, valid repeats. */
  without: number | null
  with: number | null
  ratio: number | null
  /** B / A of the cost in the same-instant reference's unit (proxy_cpu_per_reference), where both have it. */
  referenceRatio: number | null
  /** Median share of the proxy's core the reference took. */
  share: number | null
  n: [number, number]
}

const cost = (r: Measurement) => (r.proxy === 'direct' ? r.backend_cpu_us_per_req : r.proxy_cpu_us_per_req)

/** Per cell: B / A (rows tell them apart by their runtime column). */
export function costLines(rows: readonly Measurement[]): CostLine[] {
  const cells = [...new Set(rows.map((r) => `${r.proxy} ${r.variant}`))]
  return cells.map((cell) => {
    const valid = rows.filter((r) => `${r.proxy} ${r.variant}` === cell && r.status === 'valid' && (cost(r) ?? 0) > 0)
    const m = (xs: number[]) => (xs.length ? median(xs) : null)
    const of = (c: string, f: (r: Measurement) => number | null | undefined) =>
      m(
        valid
          .filter((r) => r.runtime === c)
          .flatMap((r) => {
            const v = f(r)
            return typeof v === 'number' && v > 0 ? [v] : []
          }),
      )
    const [a, b] = [of('A', cost), of('B', cost)]
    const [ra, rb] = [of('A', (r) => r.proxy_cpu_per_reference), of('B', (r) => r.proxy_cpu_per_reference)]
    const shares = valid.flatMap((r) => (typeof r.reference_cpu_share === 'number' ? [r.reference_cpu_share] : []))
    return {
      cell,
      without: a,
      with: b,
      ratio: a && b !== null ? b / a : null,
      referenceRatio: ra && rb !== null ? rb / ra : null,
      share: m(shares),
      n: [valid.filter((r) => r.runtime === 'A').length, valid.filter((r) => r.runtime === 'B').length],
    }
  })
}

export function formatCostLines(lines: readonly CostLine[], names: [string, string] = ['without', 'with the reference']): string {
  const f = (x: number | null, d = 2) => (x === null ? '-' : x.toFixed(d))
  const ratios = lines.flatMap((l) => (l.ratio === null ? [] : [l.ratio]))
  const refRatios = lines.flatMap((l) => (l.referenceRatio === null ? [] : [l.referenceRatio]))
  const direct = lines.find((l) => l.cell.startsWith('direct '))
  const directUnit = lines.filter((l) => l !== direct && l.ratio !== null && direct?.ratio).map((l) => l.ratio! / direct!.ratio!)
  const within = (xs: number[], t: number) => `${xs.filter((x) => Math.abs(x - 1) <= t).length}/${xs.length}`
  return [
    `cell | µs/req ${names[0]} | ${names[1]} | ratio | in the same-instant reference's unit | reference share of the core | n`,
    ...lines.map(
      (l) =>
        `${l.cell} | ${f(l.without, 1)} | ${f(l.with, 1)} | ${f(l.ratio, 3)} | ${f(l.referenceRatio, 3)} | ${l.share === null ? '-' : `${(l.share * 100).toFixed(1)}%`} | ${l.n.join('/')}`,
    ),
    `median ratio ${names[1]}/${names[0]} over ${ratios.length} cells: raw ${ratios.length ? median(ratios).toFixed(3) : '-'} (within ±15%: ${within(ratios, 0.15)})` +
      `, direct-row unit ${directUnit.length ? median(directUnit).toFixed(3) : '-'} (${within(directUnit, 0.15)})` +
      `, same-instant reference ${refRatios.length ? median(refRatios).toFixed(3) : '-'} (${within(refRatios, 0.15)})`,
  ].join('\n')
}

export interface ReferenceCostOptions {
  proxies: readonly ProxyName[]
  variants: readonly string[]
  repeats: number
  out: string
  log: Logger
  seed?: number
  /** Compare as is (A) with a system-call tax of this many ns (B), the reference on in both; absent: without (A) and with (B) the reference. */
  taxNs?: number
}

export async function runReferenceCost(o: ReferenceCostOptions): Promise<{ rows: Measurement[]; lines: CostLine[] }> {
  const outDir = resolve(o.out)
  if (existsSync(join(outDir, MEASUREMENTS.file))) throw userError(outDir, 'already holds measurements', 'Choose another --out')
  const certs = await ensureCerts(certsDir, { force: false, log: o.log })
  const cpus = defaultCpuLayout()
  const base = PROFILES.quick!
  const profile: Profile = { name: 'reference-cost', repeats: o.repeats, warmupS: base.warmupS, durationS: base.durationS, tailS: base.tailS }
  const cells: CellPlan[] = [
    ...o.proxies.flatMap((proxy) => o.variants.map((variant) => catalogCellPlan(proxy, { series: 'reference-cost', variant, connections: base.connections }))),
    { ...directCell(goSourceHash(join(stacksDir, 'backend')).slice(0, 16), base.connections), series: 'reference-cost' },
  ]
  // Waits while another run measures, then takes the lock itself.
  spawnSync('flock', [lockPath(), 'true'], { stdio: 'ignore' })
  const releaseLock = await acquireRunLock(outDir)
  const tax = o.taxNs === undefined ? undefined : await calibrateTax(o.taxNs, cpus.proxy)
  if (tax) o.log.info(formatTax(tax))
  const launcher = tax ? taxLauncher(tax) : []
  const conditions = [
    { label: 'A', runtime: new NativeRuntime(`${basename(outDir)}-${process.pid}-a`), reference: tax ? ('rtt' as const) : undefined, launcher: [] as string[] },
    { label: 'B', runtime: new NativeRuntime(`${basename(outDir)}-${process.pid}-b`, { launcher }), reference: 'rtt' as const, launcher },
  ]
  try {
    cleanupStale(o.log)
    const order = interleavedOrder(cells, o.repeats, o.seed ?? 1)
    for (const [i, { cell, repeat }] of order.entries()) {
      for (const c of i % 2 === 0 ? conditions : [...conditions].reverse()) {
        o.log.progress(`[${i + 1}/${order.length}] ${cell.proxy} ${cell.variant} r${repeat} ${c.label}`)
        const row = await measureClosed(cell, repeat, {
          runtime: c.runtime,
          runId: basename(outDir),
          runDir: join(outDir, c.label),
          cpus,
          profile,
          certs,
          launcher: c.launcher,
          ...(c.reference ? { reference: c.reference } : {}),
        })
        appendRow(outDir, MEASUREMENTS, { ...row, runtime: c.label })
      }
    }
  } finally {
    for (const c of conditions) await c.runtime.stopAll()
    await releaseLock()
  }
  const rows = readTable(outDir, MEASUREMENTS)
  return { rows, lines: costLines(rows) }
}
