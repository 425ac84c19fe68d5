import { exec, lastLine } from '../core/exec.ts'
import { goBinaryPath } from '../setup/gobuild.ts'
import type { CpuLayout } from '../roles/cpus.ts'

/*
 * A reference measured at the same instant (docs/method/reference.md): during a window, a
 * fixed workload on the proxy's cores at a small fixed rate (a loopback TCP ping-pong
 * between two processes, loadgen rtt -rate), its CPU per round trip read over that same
 * window from its own processes' counters. A row's cost divided by its own window's
 * reading cancels what moved the whole machine during that window (another tenant, a
 * kernel that taxes system calls), where a calibration taken once per run cannot.
 * It runs natively under taskset for either runtime (the kernel is the host's in both),
 * under the run's launcher when there is one (the system-call tax).
 */

/** The reference measured beside every window (--reference): rtt, or none. */
export const REFERENCE_KINDS = ['none', 'rtt'] as const
export type ReferenceKind = (typeof REFERENCE_KINDS)[number]

/** Round trips per second of the rtt reference: small beside a proxy under load; fixed before any data was seen. */
export const REFERENCE_RATE = 1000

export interface ReferenceReading {
  /** What ran, e.g. `rtt@1000/s`. */
  kind: string
  /** CPU µs per round trip, both processes, user + system, over the window. */
  cpuUsPerOp: number
  ops: number
  /** Its CPU over the window as a fraction of one core: what it took from the cell's core. */
  cpuShare: number
  /** Its CPU in the window (ns), for the window's disturbance (it is a bench process, not a foreign one). */
  cpuNs: number
}

export interface RunningReference {
  /** The reading after its window, or why there is none (one line). */
  reading(): Promise<ReferenceReading | { error: string }>
}

export interface ReferenceContext {
  reference?: ReferenceKind
  /** argv before the reference's (the system-call tax's launcher); empty: none. */
  launcher?: readonly string[]
  cpus: CpuLayout
}

/** loadgen rtt's JSON line as a reading. */
export function parseReferenceOutput(stdout: string, kind: string): ReferenceReading {
  const j = JSON.parse(stdout.trim().split('\n').at(-1) || '{}') as { round_trips?: number; cpu_us_per_rt?: number; duration_s?: number }
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0
  if (!ok(j.round_trips) || !ok(j.cpu_us_per_rt) || !ok(j.duration_s)) throw new Error(`unexpected output ${stdout.trim().slice(0, 120)}`)
  const cpuUs = j.cpu_us_per_rt * j.round_trips
  return { kind, cpuUsPerOp: j.cpu_us_per_rt, ops: j.round_trips, cpuShare: cpuUs / 1e6 / j.duration_s, cpuNs: cpuUs * 1e3 }
}

export const referenceArgv = (o: { warmupS: number; durationS: number; rate: number }): string[] => [
  goBinaryPath('loadgen'),
  'rtt',
  '-d',
  `${o.durationS}s`,
  '-warmup',
  `${o.warmupS}s`,
  '-size',
  '1',
  '-rate',
  String(o.rate),
]

/**
 * Starts the reference now: `warmupS` of round trips, then its measured window of
 * `durationS`, which the caller lines up with the cell's. Null when the run has none.
 */
export function startReference(ctx: ReferenceContext, o: { warmupS: number; durationS: number }): RunningReference | null {
  if (!ctx.reference || ctx.reference === 'none') return null
  const kind = `rtt@${REFERENCE_RATE}/s`
  const argv = [...(ctx.launcher ?? []), ...referenceArgv({ ...o, rate: REFERENCE_RATE })]
  const done = exec('taskset', ['-c', ctx.cpus.proxy, ...argv], { timeoutMs: (o.warmupS + o.durationS + 30) * 1000 })
  return {
    async reading() {
      const r = await done
      if (r.code !== 0) return { error: `reference ${kind} exited ${r.code}: ${lastLine(r.stderr)}` }
      try {
        return parseReferenceOutput(r.stdout, kind)
      } catch (e) {
        return { error: `reference ${kind}: ${(e as Error).message}` }
      }
    },
  }
}

export interface ReferenceColumns {
  reference_kind: string
  reference_cpu_us_per_op: number | null
  reference_cpu_share: number | null
  proxy_cpu_per_reference: number | null
}

const round = (x: number, digits: number) => Number(x.toFixed(digits))

/** A row's reference columns: the reading, and the row's cost in its unit (null where either is missing). */
export function referenceColumns(reading: ReferenceReading | { error: string } | null, proxyCost: number | null): ReferenceColumns {
  if (!reading || 'error' in reading)
    return { reference_kind: reading ? 'failed' : '', reference_cpu_us_per_op: null, reference_cpu_share: null, proxy_cpu_per_reference: null }
  return {
    reference_kind: reading.kind,
    reference_cpu_us_per_op: round(reading.cpuUsPerOp, 3),
    reference_cpu_share: round(reading.cpuShare, 4),
    proxy_cpu_per_reference: proxyCost === null ? null : round(proxyCost / reading.cpuUsPerOp, 4),
  }
}

/** The note a row's reason gets when its reference gave no reading (the row itself stays as measured). */
export const referenceNote = (reading: ReferenceReading | { error: string } | null): string | null => (reading && 'error' in reading ? reading.error : null)

/** The reference as a bench process of the window: its CPU on the proxy's cores is not foreign. */
export const referenceUse = (reading: ReferenceReading | { error: string } | null, cpus: CpuLayout) =>
  reading && !('error' in reading) ? [{ cpus: cpus.proxy, ns: reading.cpuNs }] : []
