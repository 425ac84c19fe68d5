import { medianInterval, ratioInterval, type Interval, type Repeats } from '../core/intervals.ts'
import { median } from '../core/stats.ts'

/* What the summaries of the protocol series (h2 and resumption, h3, l4) read from a cell's rows, written once. */

/** The rows whose figures count. */
export const validRows = <R extends { status: string }>(rows: readonly R[]): R[] => rows.filter((r) => r.status === 'valid')

/** A cell's median over its repeats with its interval; null for a cell without a valid repeat. */
export const repeatsInterval = (repeats: Repeats): Interval | null => (repeats.size ? medianInterval(repeats) : null)

/** One cell over another, paired by repeat (the interleaved rounds); null when either has no valid repeat. */
export const pairedRatio = (cell: Repeats, reference: Repeats): Interval | null => (cell.size && reference.size ? ratioInterval(cell, reference) : null)

/** The median of the values given (a row without the column gives null or undefined); null when there is none. */
export function medianOfGiven(xs: readonly (number | null | undefined)[]): number | null {
  const given = xs.filter((x): x is number => typeof x === 'number')
  return given.length ? median(given) : null
}

/** Why the rows that are not valid are not, each reason once. */
export const notValidReasons = <R extends { status: string; reason: string }>(rows: readonly R[]): string[] => [
  ...new Set(rows.filter((r) => r.status !== 'valid').map((r) => `${r.status}: ${r.reason}`)),
]

/** A cell's row counts as the summaries show them: valid of all, and the other rows' reasons. */
export const rowCounts = <R extends { status: string; reason: string }>(rows: readonly R[]) => ({
  valid: validRows(rows).length,
  rows: rows.length,
  reasons: notValidReasons(rows),
})
