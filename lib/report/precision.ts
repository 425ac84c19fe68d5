import type { CellSummary } from '../analysis/cells.ts'
import type { Manifest } from '../data/schema.ts'
import { esc, num, type Article, type Column } from './markdown.ts'

/**
 * The precision each cell reached beside its median (docs/method/overview.md,
 * adaptive repeats): `12.3 ±2.1%`, the coverage shown where it is below 95%.
 */
export function plusMinus(c: CellSummary): string {
  if (c.ciHalfWidthPct === null) return ''
  const level = c.ciLevel !== null && c.ciLevel < 0.95 ? ` (${Math.round(c.ciLevel * 100)}%)` : ''
  return ` ±${c.ciHalfWidthPct.toFixed(1)}%${level}`
}

/** A cell table's median column shown with its ±x%; the CSV keeps the plain median (the half-width is in summary/). */
export const withPrecision = (columns: readonly Column<CellSummary>[]): Column<CellSummary>[] =>
  columns.map((col) =>
    /, median$|^µs\/msg$/.test(col.title) && !col.show ? { ...col, show: (c: CellSummary) => esc(num(col.value(c))) + esc(plusMinus(c)) } : col,
  )

/** A cell by its key's values: `pool-added nginx 1.31.3 pool-added closed 200`. */
const cellName = (c: CellSummary) =>
  Object.values(c.key)
    .filter((v) => v !== null && v !== '')
    .join(' ')

/** One line under a cell table: the run's target and how many cells reached it (with 95% coverage). */
export function precisionLine(a: Article, manifest: Pick<Manifest, 'profile_settings'> | undefined, cells: readonly CellSummary[]): void {
  const measured = cells.filter((c) => c.ciHalfWidthPct !== null)
  if (measured.length === 0) return
  const target = manifest?.profile_settings.precision
  const disturbed = cells.reduce((n, c) => n + c.disturbed, 0)
  const unstable = cells.filter((c) => c.unstable)
  const tail =
    (disturbed ? ` ${disturbed} disturbed ${disturbed === 1 ? 'window was' : 'windows were'} re-measured, not counted.` : '') +
    (unstable.length
      ? ` Unstable (repeats disagree beyond the run's noise; figures on them widened by their own spread): ${unstable.map((c) => esc(cellName(c))).join(', ')}.`
      : '')
  if (target === undefined) {
    a.para(`±x%: half-width of the CI of the median, relative to it (coverage in brackets where below 95%).${tail}`)
    return
  }
  const reached = measured.filter((c) => c.ciLevel !== null && c.ciLevel >= 0.95 && c.ciHalfWidthPct! <= 100 * target).length
  a.para(
    `±x%: half-width of the CI of the median, relative to it (coverage in brackets where below 95%). Target ±${esc((100 * target).toFixed(1))}%: reached by ${reached} of ${measured.length} cells.${tail}`,
  )
}
