import { userError } from '../core/errors.ts'
import type { Measurement } from './schema.ts'

/**
 * A service-level objective over an open-model row, e.g. `p99<10ms,errors<0.1%`: every
 * term an upper bound. The capacity search (lib/series/capacity.ts) keeps the highest rate
 * whose row meets all of them; the report judges the same rows with the same terms.
 */
export interface SloTerm {
  metric: SloMetric
  /** `<` or `<=`. */
  strict: boolean
  /** Milliseconds for latencies, a fraction (0.001 = 0.1%) for errors. */
  limit: number
}

export interface Slo {
  /** The SLO as written, normalised (no spaces): what the rows' `slo` column records. */
  text: string
  terms: SloTerm[]
}

const LATENCY = { p50: 'p50_ms', p90: 'p90_ms', p99: 'p99_ms', 'p99.9': 'p999_ms', p999: 'p999_ms', max: 'max_ms' } as const
type LatencyMetric = keyof typeof LATENCY
export type SloMetric = LatencyMetric | 'errors'

/** Milliseconds per unit a latency bound may be written in. */
const TIME_UNITS: Record<string, number> = { us: 0.001, µs: 0.001, ms: 1, s: 1000 }

export const SLO_HELP = 'terms like p99<10ms, p50<=2ms, max<1s, errors<0.1% joined by commas (latencies: p50, p90, p99, p99.9, max in us, ms or s; errors in %)'

/** `--slo` (or a row's `slo` column) into terms; anything else is a one-line error naming the term and the fix. */
export function parseSlo(value: string, where = '--slo'): Slo {
  const text = value.replace(/\s+/g, '')
  const parts = text.split(',').filter(Boolean)
  if (parts.length === 0) throw userError(where, `"${value}" names no objective`, `Write ${SLO_HELP}`)
  const terms: SloTerm[] = []
  const seen = new Set<string>()
  for (const part of parts) {
    const { metric, op, rest } = termHead(part, where)
    // p99.9 and p999 are one column: one bound each.
    const column = metric === 'errors' ? metric : LATENCY[metric]
    if (seen.has(column)) throw userError(where, `"${metric}" bounded twice`, 'Keep one bound per metric')
    seen.add(column)
    const limit = termLimit(part, metric, op, rest, where)
    if (limit <= 0 && op === '<') throw userError(where, `"${part}" can never be met`, 'Give a bound above 0, or use <= 0')
    terms.push({ metric, strict: op === '<', limit })
  }
  return { text: parts.join(','), terms }
}

/** A term's metric and upper-bound operator, and the bound as written after it. */
function termHead(part: string, where: string): { metric: SloMetric; op: '<' | '<='; rest: string } {
  const m = /^([a-z0-9.]+)(<=|<|>=|>|=)(.*)$/i.exec(part)
  if (!m) throw userError(where, `cannot read "${part}"`, `Write ${SLO_HELP}`)
  const [, name, op, rest] = m as unknown as [string, string, string, string]
  const metric = name.toLowerCase()
  if (!(metric in LATENCY) && metric !== 'errors')
    throw userError(where, `unknown metric "${name}" in "${part}"`, `Use p50, p90, p99, p99.9, max or errors (${SLO_HELP})`)
  if (op !== '<' && op !== '<=') throw userError(where, `"${part}" is not an upper bound`, `An SLO term bounds from above: write ${metric}<… or ${metric}<=…`)
  return { metric: metric as SloMetric, op, rest }
}

/** The bound of a term in the terms' units: milliseconds for a latency, a fraction for errors. */
function termLimit(part: string, metric: SloMetric, op: string, rest: string, where: string): number {
  const n = /^(\d+(?:\.\d+)?)(.*)$/.exec(rest)
  if (!n) throw userError(where, `"${part}" has no number after ${op}`, metric === 'errors' ? 'Write e.g. errors<0.1%' : `Write e.g. ${metric}<10ms`)
  const amount = Number(n[1])
  const unit = n[2]!
  if (metric === 'errors') {
    if (unit !== '%') throw userError(where, `"${part}": errors are a share of requests`, `Write it in percent, e.g. errors<${amount}%`)
    if (amount > 100) throw userError(where, `"${part}": more than 100%`, 'Write a percentage from 0 to 100')
    return amount / 100
  }
  const ms = TIME_UNITS[unit]
  if (ms === undefined)
    throw userError(where, `"${part}" needs a time unit${unit ? `, not "${unit}"` : ''}`, `Write it in us, ms or s, e.g. ${metric}<${amount}ms`)
  return amount * ms
}

/** Errors as the SLO reads them: failed and dropped requests (neither got an answer) over all attempts. */
export function errorShare(r: Pick<Measurement, 'requests' | 'errors' | 'dropped'>): number | null {
  const bad = r.errors + (r.dropped ?? 0)
  const attempts = r.requests + bad
  return attempts > 0 ? bad / attempts : null
}

const fmtMs = (ms: number) =>
  ms >= 1000 ? `${Number((ms / 1000).toPrecision(3))} s` : ms < 1 ? `${Number((ms * 1000).toPrecision(3))} µs` : `${Number(ms.toPrecision(3))} ms`
const fmtShare = (x: number) => `${Number((x * 100).toPrecision(2))}%`

/** The terms a row misses, each in words (`p99 12.3 ms > 10 ms`); empty when it meets the SLO. A figure not measured misses. */
export function sloMisses(r: Measurement, slo: Slo): string[] {
  return slo.terms.flatMap((t) => {
    const value = t.metric === 'errors' ? errorShare(r) : r[LATENCY[t.metric]]
    const shown = (v: number) => (t.metric === 'errors' ? fmtShare(v) : fmtMs(v))
    if (value === null || value === undefined) return [`${t.metric} not measured`]
    const ok = t.strict ? value < t.limit : value <= t.limit
    return ok ? [] : [`${t.metric} ${shown(value)} ${t.strict ? '>=' : '>'} ${shown(t.limit)}`]
  })
}
