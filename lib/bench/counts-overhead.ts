import { isVariant } from '../catalog/variants.ts'
import { existsSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { PROFILES, type Profile } from '../catalog/profiles.ts'
import { templateVariants, type ProxyName } from '../catalog/stack.ts'
import { writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { certsDir } from '../core/paths.ts'
import { interleavedOrder } from '../core/shuffle.ts'
import { summarize } from '../core/stats.ts'
import { textTable } from '../core/text-table.ts'
import type { Measurement } from '../data/schema.ts'
import { projectId } from '../data/grouping.ts'
import { appendRow, MEASUREMENTS, readTable } from '../data/tables.ts'
import { catalogCellPlan, type CellContext, type CellPlan } from '../measure/cell.ts'
import { countingSubWindow, measureClosed } from '../measure/closed.ts'
import { exec } from '../core/exec.ts'
import { PERF_EVENTS } from '../runtime/counts.ts'
import { goBinaryPath } from '../setup/gobuild.ts'
import { disturbedReason, onlyDisturbed } from '../measure/validity.ts'
import { defaultCpuLayout } from '../roles/cpus.ts'
import { cleanupStaleContainers } from '../runtime/docker/cleanup.ts'
import { DockerRuntime } from '../runtime/docker/runtime.ts'
import { cleanupStale, NativeRuntime } from '../runtime/native.ts'
import type { Runtime } from '../runtime/types.ts'
import { ensureCerts } from '../setup/certs.ts'
import { usable } from '../setup/component.ts'
import { ensureDockerEngine } from '../setup/docker-engine.ts'
import { setup } from '../setup/doctor.ts'
import { ensureImages } from '../setup/images/ensure.ts'
import { acquireRunLock } from '../run/lock.ts'

/*
 * What counting costs the proxy (docs/method/counts.md#overhead): the same closed cell
 * measured with the kernel counters attached and without, back to back in a rotating
 * order, repeat by repeat, so a drift of the machine hits both alike. The paired ratio
 * counted / uncounted of proxy CPU µs/req is the overhead; the target is <= 1.02.
 */

export const OVERHEAD_SERIES = 'counts-overhead'
export const OVERHEAD_TARGET = 1.02
export const OVERHEAD_VARIANTS = ['article', 'pool-removed']

/** Whether a row was measured with counting switched off (its count reason says so). */
export const uncounted = (r: Pick<Measurement, 'counts_reason'>) => (r.counts_reason ?? '').startsWith('counting switched off')

export interface OverheadLine {
  proxy: string
  variant: string
  /** Paired ratios counted / uncounted of the valid pairs, one per repeat. */
  ratios: number[]
  countedUs: number | null
  uncountedUs: number | null
  syscallsPerReq: number | null
}

const cellKey = (r: Pick<Measurement, 'proxy' | 'version' | 'variant'>) => projectId(r, ['proxy', 'version', 'variant'])

/**
 * Per cell: the paired ratios (same repeat, both valid) and the medians of each arm.
 * `includeDisturbed`: rows invalid only for being disturbed count too (both arms of a pair
 * ran back to back, so a neighbour's load hits both; said in the printout).
 */
export function overheadLines(rows: readonly Measurement[], includeDisturbed = false): OverheadLine[] {
  const valid = rows.filter((r) => (r.status === 'valid' || (includeDisturbed && onlyDisturbed(r))) && r.proxy_cpu_us_per_req !== null)
  return [...new Set(rows.map(cellKey))].sort().map((k) => {
    const of = valid.filter((r) => cellKey(r) === k)
    const on = of.filter((r) => !uncounted(r))
    const off = of.filter(uncounted)
    const ratios = on.flatMap((a) => {
      const b = off.find((x) => x.repeat === a.repeat)
      return b ? [a.proxy_cpu_us_per_req! / b.proxy_cpu_us_per_req!] : []
    })
    const med = (xs: number[]) => (xs.length ? summarize(xs).median : null)
    const [proxy, , variant] = k.split('|') as [string, string, string]
    return {
      proxy,
      variant,
      ratios,
      countedUs: med(on.map((r) => r.proxy_cpu_us_per_req!)),
      uncountedUs: med(off.map((r) => r.proxy_cpu_us_per_req!)),
      syscallsPerReq: med(on.flatMap((r) => (r.proxy_syscalls_per_req == null ? [] : [r.proxy_syscalls_per_req]))),
    }
  })
}

const f = (x: number | null | undefined, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d))

/** The printed table: per cell both medians and the median paired ratio; then all pairs' median with its 95% interval. */
export function formatOverhead(lines: readonly OverheadLine[]): string {
  const head = ['proxy', 'variant', 'counted µs', 'uncounted µs', 'ratio (median of pairs)', 'pairs', 'syscalls/req']
  const body = lines.map((l) => [
    l.proxy,
    l.variant,
    f(l.countedUs),
    f(l.uncountedUs),
    l.ratios.length ? f(summarize(l.ratios).median, 3) : '-',
    String(l.ratios.length),
    f(l.syscallsPerReq, 3),
  ])
  const out = [textTable(head, body, 2), '']
  const all = lines.flatMap((l) => l.ratios)
  if (all.length === 0) return [...out, 'no valid pair: nothing to compare'].join('\n')
  const s = summarize(all)
  const verdict =
    s.ciLevel < 0.95
      ? `too few pairs for a 95% interval (${all.length})`
      : s.ci[1] <= OVERHEAD_TARGET
        ? `within the ${OVERHEAD_TARGET} target`
        : s.ci[0] > OVERHEAD_TARGET
          ? `above the ${OVERHEAD_TARGET} target`
          : `interval spans the ${OVERHEAD_TARGET} target: inconclusive`
  out.push(
    `all pairs: counted/uncounted proxy CPU median ${f(s.median, 3)}, ${Math.round(s.ciLevel * 100)}% interval of the median ${f(s.ci[0], 3)}..${f(s.ci[1], 3)} over ${all.length} pairs: ${verdict}`,
  )
  return out.join('\n')
}

/** What an attached counter adds to one system call, from `loadgen syscalls` plain and under perf stat, alternating. */
export interface PerCallCost {
  plainUs: number
  countedUs: number
  rounds: number
}

/** loadgen syscalls' JSON line: CPU µs per call; anything else is an error. */
export function parseSyscallLoop(stdout: string): number {
  let j: { kind?: unknown; us_per_op?: unknown } = {}
  try {
    j = JSON.parse(stdout.trim().split('\n').at(-1) ?? '')
  } catch {}
  if (j.kind !== 'syscalls' || typeof j.us_per_op !== 'number' || !Number.isFinite(j.us_per_op) || j.us_per_op <= 0)
    throw new Error(`loadgen syscalls: unexpected output ${stdout.trim().slice(0, 200)}`)
  return j.us_per_op
}

/** The loop's µs per call, plain and counted, the median of `rounds` alternating runs each on `cpuset`; null where a run failed. */
export async function measurePerCallCost(cpuset: string, rounds: number): Promise<PerCallCost | null> {
  const loop = ['taskset', '-c', cpuset, goBinaryPath('loadgen'), 'syscalls', '-n', '2000000']
  const plain: number[] = []
  const counted: number[] = []
  for (let i = 0; i < rounds; i++) {
    for (const withPerf of i % 2 === 0 ? [false, true] : [true, false]) {
      const argv = withPerf ? ['perf', 'stat', '-x,', '-o', '/dev/null', '-e', PERF_EVENTS.join(','), '--', ...loop] : loop
      const r = await exec(argv[0]!, argv.slice(1), { timeoutMs: 120_000 })
      if (r.code !== 0) return null
      ;(withPerf ? counted : plain).push(parseSyscallLoop(r.stdout))
    }
  }
  return { plainUs: summarize(plain).median, countedUs: summarize(counted).median, rounds }
}

/** The per-call cost as a line, and what it bounds for each cell at the closed model's sub-window share. */
export function formatPerCallCost(c: PerCallCost, lines: readonly OverheadLine[], subShare: number): string {
  const extra = c.countedUs - c.plainUs
  const bound = lines
    .filter((l) => l.syscallsPerReq !== null && l.uncountedUs)
    .map((l) => `${l.proxy} ${l.variant} ${((100 * l.syscallsPerReq! * extra * subShare) / l.uncountedUs!).toFixed(2)}%`)
  return (
    `attached counter: ${f(c.plainUs, 3)} → ${f(c.countedUs, 3)} µs per getppid (+${f(extra, 3)} µs, median of ${c.rounds} alternating runs each); ` +
    `at the closed model's ${Math.round(subShare * 100)}% sub-window that is calls/req × ${f(extra * subShare, 3)} µs: ${bound.join(', ') || 'no cell to price'} of proxy CPU`
  )
}

export interface OverheadOptions {
  proxies: readonly ProxyName[]
  variants: readonly string[]
  repeats: number
  durationS: number
  runtime: 'native' | 'docker'
  includeDisturbed?: boolean
  out: string
  log: Logger
  seed?: number
}

/** A bench's proxies, variants, repeats and window, checked: one line naming the flag when something is off (`eg`: the bench's defaults). */
export function checkBenchOptions(
  o: Pick<OverheadOptions, 'proxies' | 'variants' | 'repeats' | 'durationS'>,
  eg: { variants: readonly string[]; repeats: number } = { variants: OVERHEAD_VARIANTS, repeats: 6 },
): void {
  for (const p of o.proxies) {
    for (const v of o.variants)
      if (!templateVariants(p).includes(v))
        throw userError('--variants', `${p} has no variant "${v}"`, `Use variants every chosen proxy has, e.g. ${eg.variants.join(',')}`)
  }
  if (!Number.isInteger(o.repeats) || o.repeats < 1) throw userError('--repeats', `"${o.repeats}" is not a positive integer`, `E.g. --repeats ${eg.repeats}`)
  if (!(o.durationS >= 1) || !Number.isInteger(o.durationS))
    throw userError('--duration', `"${o.durationS}" is not a whole number of seconds >= 1`, 'E.g. --duration 3')
}

/** A bench's closed cells (each proxy's newest version, each variant) and its profile: the quick one's windows at its --repeats and --duration. */
export function benchPlan(o: Pick<OverheadOptions, 'proxies' | 'variants' | 'repeats' | 'durationS'>, series: string): { profile: Profile; cells: CellPlan[] } {
  const base = PROFILES.quick!
  return {
    profile: { name: series, repeats: o.repeats, warmupS: base.warmupS, durationS: o.durationS, tailS: base.tailS },
    cells: o.proxies.flatMap((proxy) =>
      o.variants.filter(isVariant).map((variant) => catalogCellPlan(proxy, { series, variant, connections: base.connections })),
    ),
  }
}

/** Measures every (proxy, variant) counted and uncounted, interleaved; appends each row to <out>/measurements.csv. */
export async function runCountsOverhead(o: OverheadOptions): Promise<{ outDir: string; rows: Measurement[]; table: string }> {
  const { log } = o
  checkBenchOptions(o)
  const outDir = resolve(o.out)
  if (existsSync(join(outDir, MEASUREMENTS.file))) throw userError(outDir, 'already holds measurements', 'Choose another --out')
  await checkComponents(o)
  const certs = await ensureCerts(certsDir, { force: false, log })
  const cpus = defaultCpuLayout()
  const { profile, cells } = benchPlan(o, OVERHEAD_SERIES)
  const releaseLock = await acquireRunLock(outDir)
  const runId = basename(outDir)
  let runtime: Runtime | undefined
  let perCall: PerCallCost | null = null
  try {
    cleanupStale(log)
    runtime = await startRuntime(o, runId)
    await measureArms(cells, { runtime, runId, runDir: outDir, cpus, profile, certs }, o)
    // Under the run lock, on the proxy's core, like the cells.
    log.progress('attached counter: loadgen syscalls plain and counted, 5 rounds each…')
    perCall = await measurePerCallCost(cpus.proxy, 5)
  } finally {
    await runtime?.stopAll()
    await releaseLock()
  }
  const rows = readTable(outDir, MEASUREMENTS)
  const table = overheadTable(rows, perCall, o)
  writeFileAtomic(join(outDir, 'overhead.txt'), table + '\n')
  return { outDir, rows, table }
}

/** The backend, the generators, the chosen proxies and `more` are built, or one line saying to run the setup. */
export async function checkComponents(o: Pick<OverheadOptions, 'proxies' | 'log'>, more: readonly string[] = []): Promise<void> {
  const components = await setup({ proxies: o.proxies, install: false, log: o.log, engine: false })
  const broken = components.find((c) => !usable(c) && ['backend', 'loadgen', 'wrk', ...more, ...o.proxies].includes(c.component))
  if (broken) throw userError(broken.component, broken.note ?? 'missing', 'Run: npx zx notebooks/00-setup.mjs')
}

/** The runtime of --runtime: native, or docker with its engine up, stale containers gone and the proxies' images built. */
async function startRuntime(o: OverheadOptions, runId: string): Promise<Runtime> {
  if (o.runtime !== 'docker') return new NativeRuntime(`${runId}-${process.pid}`)
  await ensureDockerEngine(o.log)
  await cleanupStaleContainers(o.log)
  const imgs = await ensureImages({ mode: 'offline', proxies: o.proxies, newestOnly: true, log: o.log })
  return new DockerRuntime(`${runId}-${process.pid}`, { images: imgs.records, network: 'host' })
}

/** Every repeat of every cell, counted and uncounted, in a seeded interleaved order; each row appended as it is measured. */
async function measureArms(cells: CellPlan[], ctx: Pick<CellContext, 'runtime' | 'runId' | 'runDir' | 'cpus' | 'profile' | 'certs'>, o: OverheadOptions) {
  const { log } = o
  const order = interleavedOrder(cells, o.repeats, o.seed ?? Math.floor(Math.random() * 2 ** 31))
  const t0 = Date.now()
  for (const [i, { cell, repeat }] of order.entries()) {
    // Which arm goes first alternates, so neither always follows the other.
    for (const counts of i % 2 === 0 ? [true, false] : [false, true]) {
      const arm = `${cell.proxy} ${cell.variant} r${repeat} ${counts ? 'counted' : 'uncounted'}`
      log.progress(`[${i + 1}/${order.length}] ${arm} · ${Math.round((Date.now() - t0) / 1000)} s`)
      const measured = await measureClosed(cell, repeat, { ...ctx, counts })
      // Judged as a run's phase judges it: a disturbed window says so (--include-disturbed pairs it all the same).
      const disturbed = measured.status === 'valid' ? disturbedReason(measured, 'proxy') : null
      const row = disturbed ? { ...measured, status: 'invalid' as const, reason: disturbed } : measured
      appendRow(ctx.runDir, MEASUREMENTS, row)
      if (row.status !== 'valid') log.warn(`${arm}: ${row.status}: ${row.reason}`)
    }
  }
}

/** The printed table: the overhead lines, how many disturbed rows were counted as valid, and the attached counter's cost per call. */
function overheadTable(rows: Measurement[], perCall: PerCallCost | null, o: OverheadOptions): string {
  const lines = overheadLines(rows, o.includeDisturbed)
  const sub = countingSubWindow(o.durationS)
  return (
    formatOverhead(lines) +
    (o.includeDisturbed ? `\n(rows invalid only for being disturbed counted as valid: ${rows.filter(onlyDisturbed).length} of ${rows.length})` : '') +
    `\n${perCall ? formatPerCallCost(perCall, lines, sub.lengthS / o.durationS) : 'attached counter: the loop did not run'}`
  )
}
