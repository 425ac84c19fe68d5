import { join } from 'node:path'
import { stacksDir } from '../core/paths.ts'

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
  return ['wrk', '-t', String(o.threads), '-c', String(Math.max(o.connections, o.threads)), '-d', `${Math.ceil(o.seconds)}s`, '--timeout', '5s', '-s', WRK_SCRIPT, o.url]
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
