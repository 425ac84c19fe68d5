import { median } from '../core/stats.ts'
import { formatTable } from '../core/text-table.ts'
import { isDisturbed, precisionValue } from '../data/precision.ts'
import { isCountedInPart, quietLine, quietSummary, type QuietSummary } from '../data/quiet.ts'
import type { RunData } from '../data/run-data.ts'
import { CELL_COLUMNS, cellIdOf, groupBy, keyId, type TableName } from '../data/grouping.ts'
import type { VerdictLine } from './stability.ts'
import { isDecided } from '../core/verdict.ts'

/**
 * bench/busy-machine.mjs's table (docs/method/disturbance.md#bench): per run its wall time,
 * windows disturbed and redone, the cells that reached the profile's minimum valid repeats,
 * and whether the busy run's verdicts match the idle runs'.
 */

export interface BusyRunFacts {
  name: string
  wallS: number | null
  quiet: QuietSummary
  cellsPlanned: number
  cellsAtMinimum: number
  /** The cells that reached it, by id: a cell no idle run reaches (above a proxy's capacity) is not the neighbour's doing. */
  reached: readonly string[]
  /** Seconds charged to the quiet budget, and the budget. */
  spentS: number | null
  budgetS: number | null
}

type AnyRow = { status: string; reason: string; repeat: number; proxy: string; foreign_cpu_share?: number | null; load_foreign_cpu_share?: number | null }

const tables = Object.keys(CELL_COLUMNS) as TableName[]
const cellOf = (name: TableName, r: object) => keyId([name, cellIdOf(name, r)])

export function busyRunFacts(name: string, run: RunData): BusyRunFacts {
  const m = run.manifest
  const valid = new Map<string, number>()
  for (const t of tables) {
    for (const r of (run[t] ?? []) as AnyRow[]) {
      const cell = cellOf(t, r)
      valid.set(cell, (valid.get(cell) ?? 0) + (r.status === 'valid' ? 1 : 0))
    }
  }
  const min = m.profile_settings.repeats
  const reached = [...valid].flatMap(([cell, n]) => (n >= min ? [cell] : []))
  return {
    name,
    wallS: m.finished ? (Date.parse(m.finished) - Date.parse(m.started)) / 1000 : null,
    quiet: quietSummary(run, m.quiet, m.profile_settings),
    cellsPlanned: valid.size,
    cellsAtMinimum: reached.length,
    reached,
    spentS: m.quiet?.spent_s ?? null,
    budgetS: m.quiet?.budget_s ?? null,
  }
}

/** Verdicts of the busy run that differ, decided, from a decided verdict of the idle runs while those agree with each other. */
export function verdictChanges(lines: readonly VerdictLine[], idle: readonly number[], busy: number): VerdictLine[] {
  return lines.filter((l) => {
    const b = l.verdicts[busy]
    if (b === null || b === undefined || !isDecided(b)) return false
    const idleVerdicts = idle.map((i) => l.verdicts[i])
    if (!idleVerdicts.every((v) => v === idleVerdicts[0])) return false
    return isDecided(idleVerdicts[0] ?? '') && idleVerdicts[0] !== b
  })
}

/**
 * How much the neighbour run's disturbed windows, and its windows counted from their clean
 * slices, moved from their cell's whole clean median, by series: what tolerating disturbed
 * windows would have to bound, and the check that counted ones agree with whole ones.
 */
export interface DisturbanceEffect {
  series: string
  kind: 'disturbed' | 'counted'
  windows: number
  /** Median foreign share (the larger of the proxy's and the load's cores) of those windows. */
  foreignShare: number
  /** Median and largest |figure / clean median - 1|. */
  medianShift: number
  worstShift: number
}

export function disturbanceEffects(run: RunData): DisturbanceEffect[] {
  const shifts: { series: string; kind: DisturbanceEffect['kind']; share: number; shift: number }[] = []
  for (const t of tables) {
    const rows = (run[t] ?? []) as (AnyRow & { series: string; counted_share?: number | null })[]
    const wholeFigures = rows.flatMap((r) => {
      const v = precisionValue(t, r)
      return r.status === 'valid' && !isCountedInPart(r) && v !== null ? [{ cell: cellOf(t, r), v }] : []
    })
    const whole = groupBy(wholeFigures, (f) => [f.cell])
    for (const r of rows) {
      const v = precisionValue(t, r)
      const base = whole.get(cellOf(t, r))?.map((f) => f.v)
      // Only a window invalid for its disturbance alone has a figure to compare.
      const kind = isCountedInPart(r) ? 'counted' : isDisturbed(r) && !r.reason.includes(';') ? 'disturbed' : null
      if (!kind || v === null || !base?.length) continue
      const share = Math.max(r.foreign_cpu_share ?? 0, r.load_foreign_cpu_share ?? 0)
      shifts.push({ series: r.series, kind, share, shift: Math.abs(v / median(base) - 1) })
    }
  }
  return [...groupBy(shifts, (s) => [s.series, s.kind]).values()]
    .map((xs) => ({
      series: xs[0]!.series,
      kind: xs[0]!.kind,
      windows: xs.length,
      foreignShare: median(xs.map((x) => x.share)),
      medianShift: median(xs.map((x) => x.shift)),
      worstShift: Math.max(...xs.map((x) => x.shift)),
    }))
    .sort((a, b) => a.series.localeCompare(b.series) || a.kind.localeCompare(b.kind))
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`
const duration = (s: number | null) => (s === null ? 'unfinished' : `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`)

/** The per-run table, the other-work line of each run, and the criteria of issue 28 checked. */
export function formatBusyMachine(
  facts: readonly BusyRunFacts[],
  o: {
    idle: readonly number[]
    busy: number
    neighbour: string
    changes: readonly VerdictLine[]
    effects: readonly DisturbanceEffect[]
    neighbourInReport: boolean
  },
): string {
  const table = formatTable(
    facts.map((f) => ({
      run: f.name,
      wall: duration(f.wallS),
      disturbed: f.quiet.disturbed,
      redone: f.quiet.redone,
      waited: f.quiet.waitedS === null ? '-' : `${Math.round(f.quiet.waitedS)} s`,
      'quiet budget': f.budgetS === null ? '-' : `${Math.round(f.spentS ?? 0)} of ${Math.round(f.budgetS)} s`,
      'cells at minimum': `${f.cellsAtMinimum} of ${f.cellsPlanned} (${f.cellsPlanned ? pct(f.cellsAtMinimum / f.cellsPlanned) : '-'})`,
    })),
    ['run', 'wall', 'disturbed', 'redone', 'waited', 'quiet budget', 'cells at minimum'],
  )
  const busy = facts[o.busy]!
  const idleWall = o.idle.map((i) => facts[i]!.wallS).filter((s): s is number => s !== null)
  const ratio = busy.wallS !== null && idleWall.length ? busy.wallS / Math.max(...idleWall) : null
  const share = busy.cellsPlanned ? busy.cellsAtMinimum / busy.cellsPlanned : 0
  const byAllIdle = o.idle.length ? facts[o.idle[0]!]!.reached.filter((c) => o.idle.every((i) => facts[i]!.reached.includes(c))) : []
  const busyReached = byAllIdle.filter((c) => busy.reached.includes(c)).length
  const named = busy.quiet.top.some((t) => t.command === o.neighbour)
  const check = (ok: boolean) => (ok ? 'yes' : 'NO')
  const effects = o.effects.length
    ? formatTable(
        o.effects.map((e) => ({
          series: e.series,
          windows: `${e.windows} ${e.kind}`,
          'median foreign share': pct(e.foreignShare),
          'median shift': pct(e.medianShift),
          'worst shift': pct(e.worstShift),
        })),
        ['series', 'windows', 'median foreign share', 'median shift', 'worst shift'],
      )
    : 'no disturbed or counted window with a figure to compare'
  return [
    table,
    '',
    ...facts.map((f) => `${f.name}: ${quietLine(f.quiet)}`),
    '',
    `with the neighbour: ${pct(share)} of planned cells reached their minimum valid repeats (wanted >= 95%): ${check(share >= 0.95)}`,
    `with the neighbour: ${busyReached} of the ${byAllIdle.length} cells every idle run brought to their minimum did too${byAllIdle.length ? ` (${pct(busyReached / byAllIdle.length)})` : ''} (wanted >= 90%): ${check(byAllIdle.length > 0 && busyReached >= 0.9 * byAllIdle.length)}`,
    `with the neighbour: ${o.changes.length} decided verdicts differ from the idle runs' where those agree (wanted 0): ${check(o.changes.length === 0)}${o.changes.length ? ` (${o.changes.map((c) => c.id).join(', ')})` : ''}`,
    `with the neighbour: wall time ${ratio === null ? '?' : `${ratio.toFixed(2)}x`} the slower idle run's (wanted <= 2x): ${check(ratio !== null && ratio <= 2)}`,
    `the neighbour's command (${o.neighbour}) in the end summary's top 3: ${check(named)}; in the report's setup section: ${check(o.neighbourInReport)}`,
    '',
    "How far the neighbour run's disturbed windows, and those counted from their clean slices, moved their cell's figure (|figure / whole clean median - 1|), by series:",
    effects,
  ].join('\n')
}
