import { median } from '../core/stats.ts'
import { formatTable } from '../core/text-table.ts'
import { isDisturbed, precisionValue } from '../data/precision.ts'
import { isCountedInPart, quietLine, quietSummary, type QuietSummary } from '../data/quiet.ts'
import type { RunData } from '../data/run-data.ts'
import { CELL_COLUMNS, cellIdOf, groupBy, keyId, type TableName } from '../data/grouping.ts'
import type { VerdictLine } from './stability.ts'
import { isDecided } from '../core/verdict.ts'
import { seededRandom } from '../core/shuffle.ts'
import { progressTask } from '../run/phase.ts'

type AnyRow = { status: string; reason: string; repeat: number; proxy: string; foreign_cpu_share?: number | null; load_foreign_cpu_share?: number | null }

const tables = Object.keys(CELL_COLUMNS) as TableName[]
const cellOf = (name: TableName, r: object) => keyId([name, cellIdOf(name, r)])

/**
 * bench/busy-machine.mjs (docs/method/disturbance.md#bench): one run whose rounds alternate,
 * the neighbour on in one round of each pair (which one drawn from the seed), so a cell's
 * idle and busy windows are minutes apart at most and paired by round. Rows are split by
 * their round; each side's windows disturbed and redone, cells at their minimum, verdicts,
 * wall time per series, and busy/idle per cell from the pairs.
 */

/**
 * The busy rounds of `planned`: one of each pair (2k-1, 2k), drawn from the seed. A round
 * past the planned ones (a disturbed window redone, an adaptive round) is busy too: a
 * window the neighbour spoiled is measured again beside it, as on a machine busy throughout.
 */
export function busyRounds(planned: number, seed: number): (repeat: number) => boolean {
  const random = seededRandom(seed)
  const busy = new Set<number>()
  for (let r = 1; r <= planned; r += 2) busy.add(r + 1 <= planned && random() < 0.5 ? r + 1 : r)
  return (repeat) => repeat > planned || busy.has(repeat)
}

/** A task start seen in the run's progress: its phase, repeat and the time it was seen. */
export interface RoundSwitch {
  atMs: number
  phase: string
  repeat: number
}

/**
 * Follows a run's progress lines: records each task's start, and has the neighbour run
 * during a busy round's tasks and not during an idle one's; switches happen in order.
 * `end()` closes the attempt's last task and leaves the neighbour stopped.
 */
export function roundFollower(
  isBusy: (repeat: number) => boolean,
  o: { record(s: RoundSwitch): void; neighbour(on: boolean): Promise<void>; now?: () => number },
) {
  const now = o.now ?? Date.now
  let switching = Promise.resolve()
  return {
    line(line: string): void {
      const task = progressTask(line)
      if (!task) return
      o.record({ atMs: now(), ...task })
      switching = switching.then(() => o.neighbour(isBusy(task.repeat)))
    },
    async end(): Promise<void> {
      o.record({ atMs: now(), phase: '', repeat: 0 })
      await switching
      await o.neighbour(false)
    },
  }
}

/** A run's rows split by their round: the idle rounds' and the busy rounds'. */
export function splitByRound(run: RunData, isBusy: (repeat: number) => boolean): { idle: RunData; busy: RunData } {
  const side = (busy: boolean): RunData => {
    const part = { ...run }
    for (const t of tables) if (run[t]) (part as Record<string, unknown>)[t] = (run[t] as AnyRow[]).filter((r) => isBusy(r.repeat) === busy)
    return part
  }
  return { idle: side(false), busy: side(true) }
}

export interface SideFacts {
  name: string
  quiet: QuietSummary
  cellsPlanned: number
  /** The cells with at least the side's minimum valid windows, by id. */
  reached: readonly string[]
}

/** One side's facts: its windows disturbed and redone, and the cells with at least `min` valid windows. */
export function sideFacts(name: string, run: RunData, min: number): SideFacts {
  const cells = tables.flatMap((t) => [...groupBy((run[t] ?? []) as AnyRow[], (r) => [cellOf(t, r)])])
  return {
    name,
    // A side's minimum is its own rounds, not the run's.
    quiet: quietSummary(run, run.manifest.quiet, { ...run.manifest.profile_settings, repeats: min }),
    cellsPlanned: cells.length,
    reached: cells.flatMap(([cell, rows]) => (rows.filter((r) => r.status === 'valid').length >= min ? [cell] : [])),
  }
}

/** Seconds of each phase's tasks on each side: a task lasts until the next one starts (the last until `endMs`). */
export function wallByPhase(switches: readonly RoundSwitch[], isBusy: (repeat: number) => boolean, endMs: number) {
  const walls = new Map<string, { phase: string; idleS: number; busyS: number }>()
  switches.forEach((s, i) => {
    // An attempt's end (phase ''): it only closes the task before it.
    if (!s.phase) return
    const w = walls.get(s.phase) ?? { phase: s.phase, idleS: 0, busyS: 0 }
    const seconds = ((switches[i + 1]?.atMs ?? endMs) - s.atMs) / 1000
    if (isBusy(s.repeat)) w.busyS += seconds
    else w.idleS += seconds
    walls.set(s.phase, w)
  })
  return [...walls.values()]
}

type Figure = { cell: string; repeat: number; v: number }

/** One cell's busy/idle per pair of rounds: a spoiled busy window's place taken by the cell's next redone one. */
function pairRatios(rows: readonly Figure[], planned: number, isBusy: (repeat: number) => boolean): number[] {
  const at = (repeat: number) => rows.find((f) => f.repeat === repeat)?.v
  const redone = rows.filter((f) => f.repeat > planned).sort((a, b) => a.repeat - b.repeat)
  const ratios: number[] = []
  for (let r = 1; r + 1 <= planned; r += 2) {
    const [b, i] = isBusy(r) ? [r, r + 1] : [r + 1, r]
    const idle = at(i)
    const busy = at(b) ?? redone.shift()?.v
    if (idle !== undefined && busy !== undefined) ratios.push(busy / idle)
  }
  return ratios
}

/** Busy over idle per cell from its pairs of rounds (pairRatios): each cell's median ratio. */
export function busyIdleRatios(run: RunData, planned: number, isBusy: (repeat: number) => boolean): { cell: string; ratio: number; pairs: number }[] {
  return tables.flatMap((t) => {
    const figures = ((run[t] ?? []) as AnyRow[]).flatMap((r) => {
      const v = r.status === 'valid' ? precisionValue(t, r) : null
      return v === null ? [] : [{ cell: cellOf(t, r), repeat: r.repeat, v }]
    })
    return [...groupBy(figures, (f) => [f.cell])].flatMap(([cell, rows]) => {
      const ratios = pairRatios(rows, planned, isBusy)
      return ratios.length ? [{ cell, ratio: median(ratios), pairs: ratios.length }] : []
    })
  })
}

/** Decided verdicts of the busy rounds that differ from a decided verdict of the idle rounds (lines of [idle, busy]). */
export const verdictChanges = (lines: readonly VerdictLine[]): VerdictLine[] =>
  lines.filter(({ verdicts: [idle, busy] }) => !!idle && !!busy && isDecided(idle) && isDecided(busy) && idle !== busy)

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
const seconds = (s: number) => `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`
const check = (ok: boolean) => (ok ? 'yes' : 'NO')

export interface BusyMachineFigures {
  idle: SideFacts
  busy: SideFacts
  walls: readonly { phase: string; idleS: number; busyS: number }[]
  ratios: readonly { ratio: number }[]
  changes: readonly VerdictLine[]
  effects: readonly DisturbanceEffect[]
  neighbour: string
  neighbourInReport: boolean
}

/** The two sides' table, the wall time per series, issue 54's criteria checked, and the shift table. */
export function formatBusyMachine(f: BusyMachineFigures): string {
  const sides = formatTable(
    [f.idle, f.busy].map((s) => ({
      rounds: s.name,
      disturbed: s.quiet.disturbed,
      redone: s.quiet.redone,
      'cells at minimum': `${s.reached.length} of ${s.cellsPlanned}`,
    })),
    ['rounds', 'disturbed', 'redone', 'cells at minimum'],
  )
  const walls = formatTable(
    f.walls.map((w) => ({
      series: w.phase,
      idle: seconds(w.idleS),
      busy: seconds(w.busyS),
      'busy/idle': w.idleS ? `${(w.busyS / w.idleS).toFixed(2)}x` : '-',
    })),
    ['series', 'idle', 'busy', 'busy/idle'],
  )
  const idleReached = f.idle.reached
  const busyReached = idleReached.filter((c) => f.busy.reached.includes(c)).length
  const mid = f.ratios.length ? median(f.ratios.map((r) => r.ratio)) : null
  const slowest = Math.max(...f.walls.map((w) => (w.idleS ? w.busyS / w.idleS : Number.POSITIVE_INFINITY)))
  const effects = f.effects.length
    ? formatTable(
        f.effects.map((e) => ({
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
    sides,
    '',
    walls,
    '',
    ...[f.idle, f.busy].map((s) => `${s.name}: ${quietLine(s.quiet, { waits: false })}`),
    `waits for quiet, the whole run's: ${f.idle.quiet.waitedS === null ? 'not recorded' : `${Math.round(f.idle.quiet.waitedS)} s (${f.idle.quiet.waits} waits)`}`,
    '',
    `busy rounds: ${busyReached} of the ${idleReached.length} cells the idle rounds brought to their minimum did too${idleReached.length ? ` (${pct(busyReached / idleReached.length)})` : ''} (wanted >= 90%): ${check(idleReached.length > 0 && busyReached >= 0.9 * idleReached.length)}`,
    `busy/idle on the median cell, from the pairs: ${mid === null ? '-' : `${mid.toFixed(3)} (${f.ratios.length} cells)`} (wanted within ±5%): ${check(mid !== null && Math.abs(mid - 1) <= 0.05)}`,
    `decided verdicts that differ between the idle and the busy rounds: ${f.changes.length} (wanted 0): ${check(f.changes.length === 0)}${f.changes.length ? ` (${f.changes.map((c) => c.id).join(', ')})` : ''}`,
    `busy rounds' wall time, the slowest series: ${Number.isFinite(slowest) ? `${slowest.toFixed(2)}x` : '?'} the idle rounds' (wanted <= 2x): ${check(slowest <= 2)}`,
    `the neighbour's command (${f.neighbour}) in the end summary's top 3: ${check(f.busy.quiet.top.some((t) => t.command === f.neighbour))}; in the report's setup section: ${check(f.neighbourInReport)}`,
    '',
    "How far the busy rounds' disturbed windows, and those counted from their clean slices, moved their cell's figure (|figure / whole clean median - 1|), by series:",
    effects,
  ].join('\n')
}
