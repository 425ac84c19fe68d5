import { existsSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import type { ProxyName } from '../catalog/stack.ts'
import { ensureCerts } from '../setup/certs.ts'
import { defaultCpuLayout, type CpuLayout } from '../roles/cpus.ts'
import { writeFileAtomic } from '../core/atomic.ts'
import type { Measurement } from '../data/schema.ts'
import { projectId } from '../data/grouping.ts'
import { appendRow, MEASUREMENTS, readTable } from '../data/tables.ts'
import { ensureDockerEngine } from '../setup/docker-engine.ts'
import { userError } from '../core/errors.ts'
import { ensureImages } from '../setup/images/ensure.ts'
import type { Logger } from '../core/log.ts'
import { measureClosed } from '../measure/closed.ts'
import { certsDir } from '../core/paths.ts'
import { acquireRunLock } from '../run/lock.ts'
import { cleanupStaleContainers } from '../runtime/docker/cleanup.ts'
import { DockerRuntime } from '../runtime/docker/runtime.ts'
import { cleanupStale, NativeRuntime } from '../runtime/native.ts'
import type { Runtime } from '../runtime/types.ts'
import { interleavedOrder } from '../core/shuffle.ts'
import { summarize } from '../core/stats.ts'
import { textTable } from '../core/text-table.ts'
import { benchPlan, checkBenchOptions, checkComponents } from './counts-overhead.ts'

/*
 * The same cell on native, Docker host network and Docker bridge network, repeat by
 * repeat in one process, so a drift of the machine hits all three alike. The rows are
 * measurements.csv rows whose `runtime` column names the mode.
 */

export const RATIO_RUNTIMES = ['native', 'docker-host', 'docker-bridge'] as const
export type RatioRuntime = (typeof RATIO_RUNTIMES)[number]
export const RATIO_VARIANTS = ['article', 'pool-added', 'pool-removed']
/** docker-host / native must fall in here for every cell (issue 4). */
export const HOST_TARGET = { min: 0.8, max: 1.25 }
export const RATIO_SERIES = 'runtime-ratio'

export interface RatioLine {
  proxy: string
  version: string
  variant: string
  /** Median proxy µs/req of the valid rows per runtime, and how many there were. */
  us: Partial<Record<RatioRuntime, number>>
  n: Record<RatioRuntime, number>
  host?: number
  bridge?: number
}

/** Per proxy and variant (sorted): medians per runtime and the ratios to native. */
export function ratioLines(rows: readonly Measurement[]): RatioLine[] {
  const cellKey = (r: Measurement) => projectId(r, ['proxy', 'version', 'variant'])
  const keys = [...new Set(rows.map(cellKey))].sort()
  return keys.map((k) => {
    const [proxy, version, variant] = k.split('|') as [string, string, string]
    const line: RatioLine = { proxy, version, variant, us: {}, n: { native: 0, 'docker-host': 0, 'docker-bridge': 0 } }
    for (const rt of RATIO_RUNTIMES) {
      const v = rows
        .filter((r) => cellKey(r) === k && r.runtime === rt && r.status === 'valid' && r.proxy_cpu_us_per_req !== null)
        .map((r) => r.proxy_cpu_us_per_req!)
      line.n[rt] = v.length
      if (v.length) line.us[rt] = summarize(v).median
    }
    const native = line.us.native
    if (native) {
      if (line.us['docker-host'] !== undefined) line.host = line.us['docker-host'] / native
      if (line.us['docker-bridge'] !== undefined) line.bridge = line.us['docker-bridge'] / native
    }
    return line
  })
}

export interface Spread {
  runtime: RatioRuntime
  medians: { proxy: string; us: number }[]
  median: number
  /** max / min - 1 */
  maxOverMin: number
  /** The largest |x / median - 1|: F3's "±% around the median". */
  aroundMedian: number
}

/** F3: how far apart the proxies' pool-removed medians are, per runtime (null under 2 proxies). */
export function spreads(lines: readonly RatioLine[], variant = 'pool-removed'): (Spread | null)[] {
  return RATIO_RUNTIMES.map((runtime) => {
    const medians = lines.filter((l) => l.variant === variant && l.us[runtime] !== undefined).map((l) => ({ proxy: l.proxy, us: l.us[runtime]! }))
    if (medians.length < 2) return null
    const xs = medians.map((m) => m.us)
    const median = summarize(xs).median
    return { runtime, medians, median, maxOverMin: Math.max(...xs) / Math.min(...xs) - 1, aroundMedian: Math.max(...xs.map((x) => Math.abs(x / median - 1))) }
  })
}

export const inTarget = (ratio: number | undefined) => ratio !== undefined && ratio >= HOST_TARGET.min && ratio <= HOST_TARGET.max

const f = (x: number | undefined, d = 1) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d))
const pct = (x: number) => `${(x * 100).toFixed(0)}%`

/** The printed table: µs/req per runtime, both ratios (host one marked against its target), then F3 per mode. */
export function formatRatioTable(lines: readonly RatioLine[]): string {
  const head = ['proxy', 'version', 'variant', 'native µs', 'host µs', 'bridge µs', 'host/native', 'bridge/native', 'n']
  const body = lines.map((l) => [
    l.proxy,
    l.version,
    l.variant,
    f(l.us.native),
    f(l.us['docker-host']),
    f(l.us['docker-bridge']),
    l.host === undefined ? '-' : `${f(l.host, 2)} ${inTarget(l.host) ? 'ok' : 'OUT'}`,
    f(l.bridge, 2),
    RATIO_RUNTIMES.map((r) => l.n[r]).join('/'),
  ])
  const out = [textTable(head, body, 3)]
  const hosts = lines.filter((l) => l.host !== undefined)
  out.push(
    '',
    `docker-host/native within ${HOST_TARGET.min}-${HOST_TARGET.max}: ${hosts.filter((l) => inTarget(l.host)).length}/${hosts.length} cells (n = valid repeats native/host/bridge)`,
  )
  out.push('', 'F3 spread of pool-removed medians across proxies:')
  for (const s of spreads(lines)) {
    if (!s) continue
    out.push(
      `  ${s.runtime.padEnd(13)} max/min-1 ${pct(s.maxOverMin).padStart(4)}, ±${pct(s.aroundMedian)} around ${f(s.median)} µs (${s.medians.map((m) => `${m.proxy} ${f(m.us)}`).join(', ')})`,
    )
  }
  return out.join('\n')
}

export interface RatioOptions {
  proxies: readonly ProxyName[]
  variants: readonly string[]
  repeats: number
  durationS: number
  out: string
  log: Logger
  cpus?: CpuLayout
  seed?: number
}

/**
 * Measures every (proxy, variant) on the three runtimes, interleaved: in each repeat the
 * cells in a seeded order, and for each cell the three runtimes back to back in an order
 * that rotates, so none is always first. Appends each row to <out>/measurements.csv.
 */
export async function runRuntimeRatio(o: RatioOptions): Promise<{ outDir: string; rows: Measurement[]; lines: RatioLine[]; table: string }> {
  const { log } = o
  checkBenchOptions(o, { variants: RATIO_VARIANTS, repeats: 3 })
  const outDir = resolve(o.out)
  if (existsSync(join(outDir, MEASUREMENTS.file))) throw userError(outDir, 'already holds measurements', 'Choose another --out')
  // Before setup and certificates: nothing may change them under another run, nor this one's under it.
  const releaseLock = await acquireRunLock(outDir)
  const runtimes: { label: RatioRuntime; runtime: Runtime }[] = []
  try {
    await checkComponents(o, ['openssl'])
    const certs = await ensureCerts(certsDir, { force: false, log })
    const cpus = o.cpus ?? defaultCpuLayout()
    const { profile, cells } = benchPlan(o, RATIO_SERIES)
    const runId = basename(outDir)
    const id = `${runId}-${process.pid}`
    await ensureDockerEngine(log)
    cleanupStale(log)
    await cleanupStaleContainers(log)
    const imgs = await ensureImages({ mode: 'offline', proxies: o.proxies, newestOnly: true, log })
    const bad = imgs.rows.find((r) => r.status === 'failed')
    if (bad) throw userError(`${bad.component} ${bad.version}`, bad.note ?? 'image failed', 'Run: npx zx notebooks/02-stacks.mjs --images offline')
    runtimes.push(
      { label: 'native', runtime: new NativeRuntime(`${id}-native`) },
      { label: 'docker-host', runtime: new DockerRuntime(`${id}-host`, { images: imgs.records, network: 'host' }) },
      { label: 'docker-bridge', runtime: new DockerRuntime(`${id}-bridge`, { images: imgs.records, network: 'bridge' }) },
    )
    const order = interleavedOrder(cells, o.repeats, o.seed ?? Math.floor(Math.random() * 2 ** 31))
    const t0 = Date.now()
    for (const [i, { cell, repeat }] of order.entries()) {
      for (let k = 0; k < runtimes.length; k++) {
        const { label, runtime } = runtimes[(i + k) % runtimes.length]!
        log.progress(
          `[${i * runtimes.length + k + 1}/${order.length * runtimes.length}] ${cell.proxy} ${cell.version} ${cell.variant} r${repeat} on ${label} · ${Math.round((Date.now() - t0) / 1000)} s`,
        )
        const row = await measureClosed(cell, repeat, { runtime, runId, runDir: join(outDir, label), cpus, profile, certs })
        row.runtime = label
        appendRow(outDir, MEASUREMENTS, row)
        if (row.status !== 'valid') log.warn(`${cell.proxy} ${cell.variant} r${repeat} on ${label}: ${row.status}: ${row.reason}`)
      }
    }
  } finally {
    for (const { runtime } of runtimes) await runtime.stopAll()
    await releaseLock()
  }
  const rows = readTable(outDir, MEASUREMENTS)
  const lines = ratioLines(rows)
  const table = formatRatioTable(lines)
  writeFileAtomic(join(outDir, 'ratio.txt'), table + '\n')
  return { outDir, rows, lines, table }
}
