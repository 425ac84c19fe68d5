import { readFileSync, rmSync } from 'node:fs'
import { loadgenSpectrum, writeLatencySpectrum, type LoadgenSpectrum } from '../data/latency.ts'
import { rawFile } from '../data/raw-files.ts'
import { cpuCount } from '../roles/cpus.ts'
import { parseLoadgenOutput } from '../roles/loadgen.ts'
import { openCounting, type RoleCounts } from '../runtime/counts.ts'
import type { RunningRole } from '../runtime/types.ts'
import type { CellContext } from './cell.ts'
import { readProcesses, withCulprits } from './culprits.ts'
import { readCpuTimes, windowDisturbance, type WindowDisturbance } from './disturbance.ts'

export interface GeneratorOutcome<T> {
  result: T | null
  /** CPU of each watched role over the generator's whole run. */
  cpuNs: Map<RunningRole, number>
  /** Kernel counts of the watched roles over the same span (counted: `count`, default the proxy; lib/runtime/counts.ts). */
  counts: Map<RunningRole, RoleCounts>
  generatorShare: number
  wallS: number
  exit: string | null
  /** Steal and foreign CPU on the measured role's cores, and foreign CPU on the load cores, over the run (null: /proc/stat unreadable). */
  disturbance: WindowDisturbance | null
}

/**
 * Runs a loadgen subcommand as the generator role, reading the watched roles' CPU just
 * before it starts and just after it exits: for loads that are all "window" (handshakes,
 * open model), with no ramp to cut off.
 */
/** What a generator run counts beyond the watched roles' CPU. */
export interface GeneratorOptions {
  /** Roles whose kernel counts are read (default: the proxy among the watched). */
  count?: RunningRole[]
}

export async function runGenerator<T>(
  ctx: CellContext,
  name: string,
  argv: string[],
  logFile: string,
  watch: RunningRole[],
  roles: RunningRole[],
  expectedS: number,
  o: GeneratorOptions = {},
): Promise<GeneratorOutcome<T>> {
  const { count = watch.filter((r) => r.spec.role === 'proxy') } = o
  rmSync(logFile, { force: true })
  // A spectrum left by an interrupted attempt must not pass for this one's.
  rmSync(rawFile(ctx.runDir, name, 'latency.json'), { force: true })
  // Every role already started (backend, proxy) is read too: the disturbance needs the CPU of all roles on the measured cores.
  const started = [...new Set([...watch, ...roles])]
  await ctx.windowGate?.beforeWindow(started.map((r) => r.pid))
  const counting = await openCounting(ctx.runtime, count, { perfCpus: ctx.cpus.generator, enabled: ctx.counts !== false })
  const [before] = await Promise.all([Promise.all(started.map((r) => ctx.runtime.cpuNs(r))), counting.begin()])
  const statBefore = readCpuTimes()
  const procsBefore = readProcesses()
  const t0 = process.hrtime.bigint()
  const generator = await ctx.runtime.start({ role: 'generator', name: `generator-${name}`, argv, cpus: ctx.cpus.generator, logFile })
  roles.push(generator)
  // A generator that hangs must not hang the run: stop it well after it should have ended.
  const limitS = expectedS * 1.5 + 30
  const timedOut = await Promise.race([generator.exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), limitS * 1000).unref())])
  if (timedOut) await ctx.runtime.stop(generator)
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9
  const statAfter = readCpuTimes()
  const procsAfter = readProcesses()
  const [after] = await Promise.all([Promise.all(started.map((r) => ctx.runtime.cpuNs(r))), counting.end()])
  const counts = await counting.read()
  const genNs = await ctx.runtime.cpuNs(generator)
  const used = new Map(started.map((r, i) => [r, after[i]! - before[i]!]))
  const died = watch.find((r) => r.exit)
  const result = parseLoadgenOutput<T>(readFileSync(logFile, 'utf8'))
  // open, handshake and ws-echo print their whole latency distribution: kept beside the log.
  const spectrum = (result as { latency_spectrum?: LoadgenSpectrum } | null)?.latency_spectrum
  if (spectrum) writeLatencySpectrum(ctx.runDir, name, loadgenSpectrum(argv[1] === 'h3' && argv.includes('-rate') ? 'h3 -rate' : argv[1]!, spectrum))
  return {
    result,
    cpuNs: new Map(watch.map((r) => [r, used.get(r)!])),
    counts,
    generatorShare: Math.round((genNs / 1e9 / (wallS * cpuCount(ctx.cpus.generator))) * 1e4) / 1e4,
    wallS,
    disturbance: withCulprits(
      windowDisturbance(
        statBefore,
        statAfter,
        { cpus: ctx.cpus, hasProxy: started.some((r) => r.spec.role === 'proxy'), severalHosts: !!ctx.runtime.generatorElsewhere },
        [...started.map((r) => ({ cpus: r.spec.cpus, ns: used.get(r)! })), { cpus: generator.spec.cpus, ns: genNs }],
      ),
      procsBefore,
      procsAfter,
      wallS,
      [...roles, generator].map((r) => r.pid),
    ),
    exit: timedOut
      ? `generator still running after ${Math.round(limitS)} s (expected ${expectedS} s): stopped`
      : died
        ? `${died.spec.role} exited during the run (code ${died.exit!.code ?? died.exit!.signal})`
        : !result
          ? `loadgen printed no summary (exit ${generator.exit?.code})`
          : null,
  }
}
