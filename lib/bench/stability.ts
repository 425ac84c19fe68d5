/**
 * Verdict stability across runs of the same selection (bench/stability.mjs): each finding's
 * and claim's verdict side by side, the flips between decided verdicts, and per cell how far
 * its median moved between runs.
 */
import { TABLE_SPECS, summarizeCells } from '../analysis/cells.ts'
import { groupBy, projectId } from '../data/grouping.ts'
import { evaluateClaims } from '../claims/evaluate.ts'
import type { Ledger } from '../claims/ledger.ts'
import { LEVEL } from '../core/intervals.ts'
import { median } from '../core/stats.ts'
import { formatTable } from '../core/text-table.ts'
import { precisionValue } from '../data/precision.ts'
import type { RunTables } from '../data/run-data.ts'
import type { Manifest } from '../data/schema.ts'
import type { TableName } from '../data/tables.ts'
import { findingsFor } from '../findings/index.ts'
import { isDecided } from '../core/verdict.ts'

export interface StabilityRun {
  name: string
  /** With the manifest where the run has one: its profile's precision target. */
  tables: RunTables & { manifest?: Pick<Manifest, 'profile_settings'> }
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

/** Changes between decided verdicts, which a noise-free rerun must repeat (the others say nothing either way). */
export function countFlips(verdicts: readonly (string | null)[]): number {
  const decided = verdicts.filter((v): v is string => v !== null && isDecided(v))
  return decided.slice(1).filter((v, i) => v !== decided[i]).length
}

function line(kind: VerdictLine['kind'], id: string, title: string, verdicts: (string | null)[]): VerdictLine {
  return { kind, id, title, verdicts, flips: countFlips(verdicts), same: verdicts.every((v) => v === verdicts[0]) }
}

/** One line per finding and runnable claim, in first-seen order; a run without it shows null. */
export function verdictLines(runs: readonly StabilityRun[], ledger: Ledger): VerdictLine[] {
  const results = runs.map((r) => evaluateClaims(ledger, r.tables))
  const findings = runs.map((r, i) => {
    const seen = new Map<string, number>()
    return new Map(
      findingsFor(r.tables, r.series, { ledger, claims: results[i]! })
        .filter((f) => f.verdict !== 'info')
        .map((f) => {
          const k = (seen.get(f.id) ?? 0) + 1
          seen.set(f.id, k)
          return [`${f.id}#${k}`, f] as const
        }),
    )
  })
  const ids = [...new Set(findings.flatMap((m) => [...m.keys()]))]
  const out = ids.map((id) =>
    line(
      'finding',
      id,
      findings.find((m) => m.has(id))!.get(id)!.title,
      findings.map((m) => m.get(id)?.verdict ?? null),
    ),
  )
  const claims = results.map((rs) => new Map(rs.map((c) => [c.id, c])))
  for (const c of ledger.claims.filter((c) => c.runnable_here))
    out.push(
      line(
        'claim',
        c.id,
        c.claim,
        claims.map((m) => m.get(c.id)?.verdict ?? null),
      ),
    )
  return out
}

export interface CellSpread {
  table: TableName
  cell: string
  medians: (number | null)[]
  /** max/min − 1 over the runs that measured the cell; null with fewer than two. */
  spread: number | null
}

/** max/min − 1 over the positive values; null with fewer than two. */
function spreadOf(values: readonly (number | null)[]): number | null {
  const got = values.filter((v): v is number => v !== null && v > 0)
  return got.length >= 2 ? Math.max(...got) / Math.min(...got) - 1 : null
}

/**
 * Per cell of each table, the median of its cost (the direct row: the backend's) in each
 * run, and its spread between runs.
 */
export function cellSpreads(runs: readonly StabilityRun[]): CellSpread[] {
  const out: CellSpread[] = []
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    const spec = TABLE_SPECS[table]
    const perRun = runs.map((r) => {
      const figures = r.tables[table].flatMap((row) => {
        const v = row.status === 'valid' ? precisionValue(table, row) : null
        return v === null ? [] : [{ id: projectId(row, spec.keys), v }]
      })
      return new Map([...groupBy(figures, (f) => [f.id])].map(([id, fs]) => [id, median(fs.map((f) => f.v))]))
    })
    const cells = [...new Set(perRun.flatMap((m) => [...m.keys()]))]
    for (const cell of cells) {
      const medians = perRun.map((m) => m.get(cell) ?? null)
      out.push({ table, cell, medians, spread: spreadOf(medians) })
    }
  }
  return out
}

/** Precision reached by one group of cells (a series under one load model) in one run. */
export interface GroupPrecision {
  group: string
  cells: number
  /** Cells whose interval covers 95% and is within ± the run's precision target. */
  atTarget: number
  /** Median and largest half-width of the CI of the median, as a fraction. */
  median: number
  worst: number
}

export interface RunPrecision {
  target: number
  groups: GroupPrecision[]
  /** Cells whose repeats ran in two regimes (lib/analysis/cells.ts), by id. */
  unstable: string[]
}

/** Per run: how many cells of each series reached the profile's precision target (3% without one), and which were unstable. */
export async function precisionByRun(runs: readonly StabilityRun[]): Promise<RunPrecision[]> {
  return Promise.all(runs.map(runPrecision))
}

/** One run's precision: each cell's half-width against the target, by series (open-model cells apart), and its unstable cells. */
async function runPrecision(r: StabilityRun): Promise<RunPrecision> {
  const target = r.tables.manifest?.profile_settings?.precision ?? 0.03
  const entries: { group: string; hw: number; ok: boolean }[] = []
  const unstable: string[] = []
  for (const table of ['measurements', 'handshakes', 'websocket'] as const) {
    for (const c of await summarizeCells(TABLE_SPECS[table], r.tables[table] as never)) {
      if (c.unstable) unstable.push(projectId(c.key, TABLE_SPECS[table].keys))
      if (c.ciHalfWidthPct === null) continue
      const group = `${c.key.series}${c.key.model === 'open' ? ' (open)' : ''}`
      const hw = c.ciHalfWidthPct / 100
      entries.push({ group, hw, ok: hw <= target && (c.ciLevel ?? 0) >= LEVEL })
    }
  }
  const groups = [...groupBy(entries, (e) => [e.group])].map(([group, cs]) => ({
    group,
    cells: cs.length,
    atTarget: cs.filter((c) => c.ok).length,
    median: median(cs.map((c) => c.hw)),
    worst: Math.max(...cs.map((c) => c.hw)),
  }))
  return { target, groups, unstable }
}

/** The precision of every run side by side: per series, cells at target / cells, median and worst half-width. */
export function formatPrecision(runs: readonly StabilityRun[], precision: readonly RunPrecision[]): string {
  const names = runs.map((r) => r.name)
  const pm = (x: number) => `±${(x * 100).toFixed(1)}%`
  const groups = [...new Set(precision.flatMap((p) => p.groups.map((g) => g.group)))]
  const rows = groups.map((group) => ({
    series: group,
    ...Object.fromEntries(
      names.map((n, i) => {
        const g = precision[i]!.groups.find((x) => x.group === group)
        return [n, g ? `${g.atTarget}/${g.cells}, ${pm(g.median)}, worst ${pm(g.worst)}` : '-']
      }),
    ),
  }))
  return [
    `precision per run: cells within ± the profile's target with a 95% interval / cells, median and worst half-width of the median (targets: ${names.map((n, i) => `${n} ${pm(precision[i]!.target)}`).join(', ')})`,
    formatTable(rows, ['series', ...names]),
    `unstable cells: ${names.map((n, i) => `${n} ${precision[i]!.unstable.length}`).join(', ')}`,
  ].join('\n')
}

/** The benchmark's printout: verdicts side by side, the totals, and the cells' spreads. */
export function formatStability(runs: readonly StabilityRun[], lines: readonly VerdictLine[], spreads: readonly CellSpread[]): string {
  const names = runs.map((r) => r.name)
  const short = (v: string | null) => (v === null ? '-' : v)
  const table = formatTable(
    lines.map((l) => ({
      kind: l.kind,
      id: l.id,
      ...Object.fromEntries(names.map((n, i) => [n, short(l.verdicts[i]!)])),
      flips: l.flips,
      same: l.same ? 'yes' : 'NO',
    })),
    ['kind', 'id', ...names, 'flips', 'same'],
  )
  const decidedLines = lines.filter((l) => l.verdicts.some((v) => v !== null && isDecided(v)))
  const flips = lines.reduce((s, l) => s + l.flips, 0)
  const same = lines.filter((l) => l.same).length
  const claims = lines.filter((l) => l.kind === 'claim')
  const inconclusive = runs.map((_, i) => claims.filter((l) => l.verdicts[i] === 'inconclusive').length)
  const measured = runs.map((_, i) => claims.filter((l) => l.verdicts[i] !== null && l.verdicts[i] !== 'not measured').length)
  const withSpread = spreads.filter((s) => s.spread !== null).sort((a, b) => b.spread! - a.spread!)
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  const spreadTable = formatTable(
    withSpread.map((s) => ({
      table: s.table,
      cell: s.cell,
      ...Object.fromEntries(names.map((n, i) => [n, s.medians[i] === null ? '-' : s.medians[i]!.toFixed(1)])),
      spread: pct(s.spread!),
    })),
    ['table', 'cell', ...names, 'spread'],
  )
  const summary = (label: string, of: (s: CellSpread) => number | null) => {
    const xs = spreads.flatMap((s) => (of(s) === null ? [] : [{ cell: s.cell, x: of(s)! }])).sort((a, b) => b.x - a.x)
    return xs.length
      ? `${label}: median spread ${pct(median(xs.map((c) => c.x)))}, worst ${pct(xs[0]!.x)} (${xs[0]!.cell})`
      : `${label}: no cell was measured in two runs`
  }
  return [
    table,
    '',
    `verdicts: ${same}/${lines.length} identical in every run (inconclusive counted as a verdict); ${flips} flips between decided verdicts over ${decidedLines.length} checks decided at least once`,
    `inconclusive claims per run: ${inconclusive.map((n, i) => `${n}/${claims.length} runnable (${pct(n / Math.max(1, claims.length))}), of ${measured[i]} measured ${pct(n / Math.max(1, measured[i]!))}`).join('; ')}`,
    '',
    'cell medians (primary metric, µs) and their spread max/min-1 between runs:',
    spreadTable,
    summary('raw', (s) => s.spread),
  ].join('\n')
}
