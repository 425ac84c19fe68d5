import { join } from 'node:path'
import { stacksDir } from '../core/paths.ts'
import { LATENCY_FORMAT, type LatencySpectrum } from '../data/latency.ts'

/** The JSON line stacks/wrk/report.lua prints. */
export interface WrkReport {
  requests: number
  duration_us: number
  bytes: number
  errors: { connect: number; read: number; write: number; status: number; timeout: number }
  latency_us: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number }
}

export const WRK_SCRIPT = join(stacksDir, 'wrk', 'report.lua')

export function wrkArgv(o: { url: string; threads: number; connections: number; seconds: number }): string[] {
  return [
    'wrk',
    '-t',
    String(o.threads),
    '-c',
    String(Math.max(o.connections, o.threads)),
    '-d',
    `${Math.ceil(o.seconds)}s`,
    '--timeout',
    '5s',
    '-s',
    WRK_SCRIPT,
    o.url,
  ]
}

/** Finds the marked JSON line in wrk's output; null when wrk died before printing it. */
export function parseWrkOutput(text: string): WrkReport | null {
  const line = text.split('\n').find((l) => l.startsWith('PROXYBENCH_JSON '))
  return line ? (JSON.parse(line.slice('PROXYBENCH_JSON '.length)) as WrkReport) : null
}

export function wrkErrorCount(r: WrkReport): number {
  const e = r.errors
  return e.connect + e.read + e.write + e.status + e.timeout
}

/** The spectrum line of report.lua: levels and cumulative counts read from wrk's own histogram. */
interface WrkSpectrumLine {
  exact: boolean
  total_count: number | null
  max_us: number
  points: { percentile: number; value_us: number; count: number | null }[]
}

/**
 * The latency spectrum report.lua printed after its report; null when it printed none
 * (wrk died first) or only its own error (the summary line above it is unaffected).
 */
export function parseWrkSpectrum(text: string): LatencySpectrum | null {
  const line = text.split('\n').find((l) => l.startsWith('PROXYBENCH_SPECTRUM '))
  if (!line) return null
  const s = JSON.parse(line.slice('PROXYBENCH_SPECTRUM '.length)) as WrkSpectrumLine | { error: string }
  if ('error' in s) return null
  return {
    format: LATENCY_FORMAT,
    generator: 'wrk',
    measured_from: 'sent',
    exact: s.exact,
    total_count: s.total_count,
    max_us: s.max_us,
    points: s.points,
    hdr: null,
    // wrk's stats_correct adds samples for answers slower than twice the mean interval per connection.
    note: 'wrk adds corrective samples (its stats_correct) for answers slower than twice the mean interval per connection, so total_count exceeds the requests',
  }
}
