/**
 * Verdict stability across runs of the same selection (bench/stability.mjs): each finding's
 * and claim's verdict side by side, the flips between decided verdicts, and per cell how far
 * its median moved between runs.
 */
import { TABLE_SPECS, cellId } from '../analysis/cells.ts'
import { evaluateClaims } from '../claims/evaluate.ts'
import type { Ledger } from '../claims/ledger.ts'
import { median } from '../core/stats.ts'
import { formatTable } from '../core/text-table.ts'
import { precisionValue } from '../data/precision.ts'
import type { RunTables } from '../data/run-data.ts'
import type { TableName } from '../data/tables.ts'
import { findingsFor } from '../findings/index.ts'

export interface StabilityRun {
  name: string
  tables: RunTables
  series: readonly string[]
}

export interface VerdictLine {
  kind: 'finding' | 'claim'
  /** Findings: id#k (the k-th check of that id); claims: the claim id. */
  id: string
  title: string
  verdicts: (string | null)[]
  /** Consecutive decided verdicts (inconclusive and unmeasured skipped) that differ. */
  flips: number
  /** Every run gave the same verdict, inconclusive counted as a verdict of its own. */
  same: boolean
}

/** Verdicts a noise-free rerun must repeat; the others say nothing either way. */
const DECIDED = new Set(['held', 'not held', 'reproduced', 'not reproduced'])

export function countFlips(verdicts: readonly (string | null)[]): number {
  const decided = verdicts.filter((v): v is string => v !== null && DECIDED.has(v))
  return decided.slice(1).filter((v, i) => v !== decided[i]).length
}

function line(kind: VerdictLine['kind'], id: string, title: string, verdicts: (string | null)[]): VerdictLine {
  return { kind, id, title, verdicts, flips: countFlips(verdicts), same: verdicts.every((v) => v === verdicts[0]) }
}

/** One line per finding and runnable claim, in first-seen order; a run without it shows null. */
export function verdictLines(runs: readonly StabilityRun[], ledger: Ledger): VerdictLine[] {
  const findings = runs.map((r) => {
    const seen = new Map<string, number>()
    return new Map(findingsFor(r.tables, r.series).filter((f) => f.verdict !== 'info').map((f) => {
      const k = (seen.get(f.id) ?? 0) + 1
      seen.set(f.id, k)
      return [`${f.id}#${k}`, f] as const
    }))
  })
  const ids = [...new Set(findings.flatMap((m) => [...m.keys()]))]
  const out = ids.map((id) => line('finding', id, findings.find((m) => m.has(id))!.get(id)!.title, findings.map((m) => m.get(id)?.verdict ?? null)))
  const claims = runs.map((r) => new Map(evaluateClaims(ledger, r.tables).map((c) => [c.id, c])))
  for (const c of ledger.claims.filter((c) => c.runnable_here)) out.push(line('claim', c.id, c.claim, claims.map((m) => m.get(c.id)?.verdict ?? null)))
  return out
}

export interface CellSpread {
  table: TableName
  cell: string
  medians: (number | null)[]
  /** max/min − 1 over the runs that measured the cell; null with fewer than two. */
  spread: number | null
}

/** Per cell of each table, the median of its cost (the direct row: the backend's) in each run and the spread between runs. */
export function cellSpreads(runs: readonly StabilityRun[]): CellSpread[] {
  const out: CellSpread[] = []
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    const spec = TABLE_SPECS[table]
    const perRun = runs.map((r) => {
      const byCell = new Map<string, number[]>()
      for (const row of r.tables[table]) {
        const v = row.status === 'valid' ? precisionValue(table, row) : null
        if (v === null) continue
        const id = cellId(spec, row as never)
        byCell.set(id, [...(byCell.get(id) ?? []), v])
      }
      return new Map([...byCell].map(([id, vs]) => [id, median(vs)]))
    })
    const cells = [...new Set(perRun.flatMap((m) => [...m.keys()]))]
    for (const cell of cells) {
      const medians = perRun.map((m) => m.get(cell) ?? null)
      const got = medians.filter((v): v is number => v !== null && v > 0)
      out.push({ table, cell, medians, spread: got.length >= 2 ? Math.max(...got) / Math.min(...got) - 1 : null })
    }
  }
  return out
}

/** The benchmark's printout: verdicts side by side, the totals, and the cells' spreads. */
export function formatStability(runs: readonly StabilityRun[], lines: readonly VerdictLine[], spreads: readonly CellSpread[]): string {
  const names = runs.map((r) => r.name)
  const short = (v: string | null) => (v === null ? '-' : v)
  const table = formatTable(
    lines.map((l) => ({ kind: l.kind, id: l.id, ...Object.fromEntries(names.map((n, i) => [n, short(l.verdicts[i]!)])), flips: l.flips, same: l.same ? 'yes' : 'NO' })),
    ['kind', 'id', ...names, 'flips', 'same'],
  )
  const decidedLines = lines.filter((l) => l.verdicts.some((v) => v !== null && DECIDED.has(v)))
  const flips = lines.reduce((s, l) => s + l.flips, 0)
  const same = lines.filter((l) => l.same).length
  const claims = lines.filter((l) => l.kind === 'claim')
  const inconclusive = runs.map((_, i) => claims.filter((l) => l.verdicts[i] === 'inconclusive').length)
  const measured = runs.map((_, i) => claims.filter((l) => l.verdicts[i] !== null && l.verdicts[i] !== 'not measured').length)
  const withSpread = spreads.filter((s) => s.spread !== null).sort((a, b) => b.spread! - a.spread!)
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const spreadTable = formatTable(
    withSpread.map((s) => ({ table: s.table, cell: s.cell, ...Object.fromEntries(names.map((n, i) => [n, s.medians[i] === null ? '-' : s.medians[i]!.toFixed(1)])), spread: pct(s.spread!) })),
    ['table', 'cell', ...names, 'spread'],
  )
  return [
    table,
    '',
    `verdicts: ${same}/${lines.length} identical in every run (inconclusive counted as a verdict); ${flips} flips between decided verdicts over ${decidedLines.length} checks decided at least once`,
    `inconclusive claims per run: ${inconclusive.map((n, i) => `${n}/${claims.length} runnable (${pct(n / Math.max(1, claims.length))}), of ${measured[i]} measured ${pct(n / Math.max(1, measured[i]!))}`).join('; ')}`,
    '',
    'cell medians (primary metric, µs) and their spread max/min-1 between runs:',
    spreadTable,
    withSpread.length ? `median spread ${pct(median(withSpread.map((s) => s.spread!)))}, worst ${pct(withSpread[0]!.spread!)} (${withSpread[0]!.cell})` : 'no cell was measured in two runs',
  ].join('\n')
}
