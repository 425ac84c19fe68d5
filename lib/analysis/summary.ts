import Papa from 'papaparse'
import { textOutputs, type Output } from '../core/output.ts'
import { summarizeCells, TABLE_SPECS, type CellSummary, type TableName, type TableSpec } from './cells.ts'
import { derivedRatios, type Ratio } from './derived.ts'
import { CELL_SUMMARY, outputNames, RATIOS, type CELL_SUMMARY_COLUMNS } from '../data/columns/summary.ts'
import type { RunData } from '../data/run-data.ts'
import { csvText } from '../data/csv.ts'

export interface Aggregates {
  cells: Record<TableName, CellSummary[]>
  ratios: Ratio[]
}

export async function aggregate(run: Pick<RunData, 'measurements' | 'handshakes' | 'websocket' | 'tcp'>): Promise<Aggregates> {
  const cells = {
    measurements: await summarizeCells(TABLE_SPECS.measurements, run.measurements),
    handshakes: await summarizeCells(TABLE_SPECS.handshakes, run.handshakes),
    websocket: await summarizeCells(TABLE_SPECS.websocket, run.websocket),
    tcp: await summarizeCells(TABLE_SPECS.tcp, run.tcp ?? []),
  }
  return { cells, ratios: derivedRatios(cells.measurements, cells.handshakes) }
}

const round = (x: number | null | undefined, digits = 4) => (x === null || x === undefined || !Number.isFinite(x) ? '' : Number(x.toPrecision(digits + 2)))

type CellColumn = (typeof CELL_SUMMARY_COLUMNS)[number]['name']
type RatioColumn = (typeof RATIOS.columns)[number]['name']

/** Each fixed column of a cell summary (lib/data/columns/summary.ts) from the cell: the table gives names and order. */
const CELL_VALUES: Record<CellColumn, (c: CellSummary) => unknown> = {
  rows: (c) => c.rows,
  valid: (c) => c.counts.valid,
  invalid: (c) => c.counts.invalid,
  failed: (c) => c.counts.failed,
  status: (c) => c.status,
  ci_level: (c) => round(c.summary?.ciLevel, 2),
  cv: (c) => round(c.summary?.cv, 3),
  // Of the cost metric (the backend's for the direct row), as the adaptive repeats judge it.
  ci_halfwidth_pct: (c) => round(c.ciHalfWidthPct, 2),
  ci_halfwidth_level: (c) => round(c.ciLevel, 2),
  disturbed: (c) => c.disturbed,
  unstable: (c) => c.unstable,
  reasons: (c) => c.reasons.join('; '),
  warnings: (c) => c.warnings.join('; '),
}

const fixed = (part: readonly { name: CellColumn }[], c: CellSummary) => Object.fromEntries(part.map(({ name }) => [name, CELL_VALUES[name](c)]))

/** One summary row per cell: keys, counts, the primary metric's statistics, spread, secondary medians, notes. */
export function cellRows(spec: TableSpec, cells: readonly CellSummary[]) {
  return cells.map((c) => ({
    ...c.key,
    ...fixed(CELL_SUMMARY.counts, c),
    [`${spec.primary}_median`]: round(c.summary?.median),
    [`${spec.primary}_min`]: round(c.summary?.min),
    [`${spec.primary}_max`]: round(c.summary?.max),
    [`${spec.primary}_ci_lo`]: round(c.summary?.ci[0]),
    [`${spec.primary}_ci_hi`]: round(c.summary?.ci[1]),
    ...fixed(CELL_SUMMARY.spread, c),
    ...Object.fromEntries(spec.secondary.map((m) => [`${m}_median`, round(c.medians[m])])),
    ...fixed(CELL_SUMMARY.notes, c),
  }))
}

export const SUMMARY_FILES: Record<TableName | 'ratios', string> = {
  measurements: 'summary/measurements.csv',
  handshakes: 'summary/handshakes.csv',
  websocket: 'summary/websocket.csv',
  tcp: 'summary/tcp.csv',
  ratios: RATIOS.file,
}

const toCsv = (rows: Record<string, unknown>[]) => Papa.unparse(rows, { newline: '\n' }) + '\n'

/** The summary CSVs as file name → text; tables without rows are left out. */
export function summaryCsvs(a: Aggregates): Map<string, string> {
  const out = new Map<string, string>()
  for (const t of ['measurements', 'handshakes', 'websocket', 'tcp'] as const) {
    if (a.cells[t].length) out.set(SUMMARY_FILES[t], toCsv(cellRows(TABLE_SPECS[t], a.cells[t])))
  }
  if (a.ratios.length) {
    out.set(
      SUMMARY_FILES.ratios,
      csvText(
        outputNames(RATIOS),
        a.ratios.map((r): Record<RatioColumn, unknown> => ({ ...r, value: round(r.value), warnings: r.warnings.join('; ') })),
      ),
    )
  }
  return out
}

/** The summary CSVs as outputs of the run directory (written by writeOutputs, lib/core/atomic.ts). */
export const summaryOutputs = (a: Aggregates): Output[] => textOutputs(summaryCsvs(a))
