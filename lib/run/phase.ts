import type { Logger } from '../core/log.ts'
import { seededRandom, shuffled } from '../core/shuffle.ts'
import { isDisturbed, precisionValue } from '../data/precision.ts'
import { isCountedInPart } from '../data/quiet.ts'
import { groupBy } from '../data/grouping.ts'
import { appendRow, MEASUREMENTS, markRows, readTable, type Table } from '../data/tables.ts'
import { collapsedRows, disturbedReason } from '../measure/validity.ts'
import { interrupted, untilExit } from '../runtime/shutdown.ts'
import { taskSides, type Task, type TaskSide } from '../series/types.ts'
import { nextRound, type AdaptiveSettings, type CellDecision, type CellProgress } from './adaptive.ts'
import type { QuietBudget } from './quiet.ts'

/** How a phase whose rows are costs goes past its minimum rounds (absent: exactly the tasks given). */
export interface PhaseAdaptive {
  settings: AdaptiveSettings
  seed: number
  /** Seconds one repeat is expected to take, until the phase has timed one. */
  repeatS: number
}

/** Where a phase's rows go and what they are tagged with. */
export interface PhaseOutput {
  runDir: string
  /** The manifest invocation measuring now (the `invocation` column); null: untagged. */
  invocation: number | null
  /** The run's budget for other work (lib/run/quiet.ts); absent: disturbed windows are redone at once. */
  quiet?: QuietBudget
}

type Row = {
  status: string
  reason: string
  proxy: string
  repeat: number
  steal_share?: number | null
  foreign_cpu_share?: number | null
  load_foreign_cpu_share?: number | null
  foreign_processes?: string
  invocation?: number | null
}

/**
 * Runs the tasks not yet in their table, appending one row each, with a live progress line;
 * then, for an adaptive phase, further shuffled rounds of the cells whose median is not yet
 * precise (lib/run/adaptive.ts). Rows already on disk count, so --resume continues the rounds.
 */
export async function runPhase(
  name: string,
  tasks: Task[],
  out: string | PhaseOutput,
  log: Logger,
  resume: boolean,
  adaptive: PhaseAdaptive | null = null,
): Promise<void> {
  const { runDir, invocation, quiet } = typeof out === 'string' ? { runDir: out, invocation: null, quiet: undefined } : out
  const doneKeys = new Map<Table<unknown>, Set<string>>()
  const isDone = (t: TaskSide) => {
    if (!doneKeys.has(t.table)) doneKeys.set(t.table, new Set(readTable(runDir, t.table).map((r) => t.table.key(r))))
    return doneKeys.get(t.table)!.has(t.key)
  }
  // A pair at one instant is done when both its rows are; one written without the other (a stop between the two appends) is measured again, its written row kept.
  const todo = tasks.filter((t) => !taskSides(t).every(isDone))
  if (resume && todo.length < tasks.length) log.info(`resume ${name}: ${tasks.length - todo.length} repeats already measured, ${todo.length} to go`)
  const timing: Timing = { n: 0, s: 0, otherWorkS: 0 }
  await runTasks(name, todo, { runDir, invocation, quiet }, log, adaptive !== null, timing, isDone)
  if (adaptive) await adaptiveRounds(name, tasks, { runDir, invocation, quiet }, log, adaptive, timing)
}

/** Repeats timed so far and their seconds; `otherWorkS`: seconds lost to other work (disturbed windows, waits), which no phase budget pays. */
type Timing = { n: number; s: number; otherWorkS: number }

/** Runs the tasks in order, one row each, timing them; returns early (through untilExit) on a signal. */
async function runTasks(
  name: string,
  todo: readonly Task[],
  out: PhaseOutput,
  log: Logger,
  invalidateDisturbed: boolean,
  timing: Timing,
  written: (side: TaskSide) => boolean = () => false,
) {
  const { quiet } = out
  const t0 = Date.now()
  for (const [i, task] of todo.entries()) {
    if (interrupted()) return untilExit()
    log.progress(progressLine(name, i, todo.length, task.label, (Date.now() - t0) / 1000))
    const owed = quiet?.waitOwed ?? false
    const measured = await timedRun(task, quiet)
    // A signal killed the roles: this row would blame them for it. Not written, so --resume measures it.
    if (!measured) return untilExit()
    const { rows, tookS, waitedS } = measured
    timing.n++
    timing.s += tookS
    timing.otherWorkS += waitedS
    const disturbed = recordRows(task, rows, { out, log, invalidateDisturbed, written })
    if (owed && quiet?.waitOwed) {
      // This task never reached its gate (it failed before its load, or its protocol has none): the wait it owed happens here, between tasks.
      timing.otherWorkS += await quiet.waitForQuiet()
      if (interrupted()) return untilExit()
    }
    // The next window waits for quiet just before its load; the disturbed one is redone in a later round, not at once.
    if (disturbed && invalidateDisturbed && quiet) {
      quiet.disturbed(tookS)
      timing.otherWorkS += tookS
    } else if (invalidateDisturbed && rows.some(isCountedInPart)) quiet?.sawOtherWork()
  }
  markCollapsed(todo, out.runDir, log)
}

/**
 * Once the tasks' rows are in, each of their cells' windows whose requests collapsed against
 * the cell's others is marked invalid with why, in its table (lib/measure/validity.ts).
 */
function markCollapsed(tasks: readonly Task[], runDir: string, log: Logger): void {
  const sides = tasks.flatMap(taskSides).filter((t) => t.table.name === MEASUREMENTS.name)
  // The run's table and a pair's then/ table: each side's rows beside its own cell's.
  for (const own of groupBy(sides, (t) => [t.table.file]).values()) {
    const table = own[0]!.table as typeof MEASUREMENTS
    const cells = new Set(own.map((t) => t.cellId))
    const rows = readTable(runDir, table)
    const marks = new Map([...collapsedRows(rows, table.cellId)].filter(([i]) => cells.has(table.cellId(rows[i]!))))
    markRows(runDir, table, marks)
    for (const [i, mark] of marks) {
      const row = rows[i]!
      const task = own.find((t) => t.cellId === table.cellId(row) && t.repeat === row.repeat)
      log.warn(`${task?.label ?? `${row.proxy} ${row.variant} repeat ${row.repeat}`}: invalid: ${mark.reason}`)
    }
  }
}

/** A progress line's phase and its task's repeat (the label's last ` r<N>`), for a bench that follows a run's rounds; null for other lines. */
export function progressTask(line: string): { phase: string; repeat: number } | null {
  const m = /^\[(\S+)(?: \+\d+)? \d+\/\d+\] (.*) · [^·]+ elapsed · ETA /.exec(line)
  const repeat = m && [...m[2]!.matchAll(/ r(\d+)\b/g)].at(-1)
  return m && repeat ? { phase: m[1]!, repeat: Number(repeat[1]) } : null
}

/** The progress line of the `i`th of `n` tasks, with the time so far and a naive ETA. */
export function progressLine(name: string, i: number, n: number, label: string, elapsedS: number): string {
  const eta = i === 0 ? '?' : fmtDuration((elapsedS / i) * (n - i))
  return `[${name} ${i + 1}/${n}] ${label} · ${fmtDuration(elapsedS)} elapsed · ETA ${eta}`
}

/**
 * The task's row and its seconds, less a wait for quiet inside it (before its load), which is
 * other work's time, not the repeat's; null when a signal came while it ran.
 */
async function timedRun(task: Task, quiet: QuietBudget | undefined): Promise<{ rows: Row[]; tookS: number; waitedS: number } | null> {
  const started = Date.now()
  const waitedBefore = quiet?.record.waited_s ?? 0
  const rows = await runUninterrupted(task)
  if (!rows) return null
  const waitedS = (quiet?.record.waited_s ?? 0) - waitedBefore
  return { rows, tookS: (Date.now() - started) / 1000 - waitedS, waitedS }
}

/** The task's rows (one, or a pair's two), or null when a signal came while it ran (a failure then is the signal's, not the task's). */
async function runUninterrupted(task: Task): Promise<Row[] | null> {
  try {
    const rows = (task.pair ? [...(await task.pair.run())] : [await task.run()]) as Row[]
    return interrupted() ? null : rows
  } catch (e) {
    if (interrupted()) return null
    throw e
  }
}

/** Why the row's window counts as disturbed, or null (also for a failed row: no window was measured). */
const disturbedWindow = (row: Row): string | null => (row.status === 'failed' ? null : disturbedReason(row, row.proxy === 'direct' ? 'backend' : 'proxy'))

/** A disturbed row: made invalid with why where the phase re-measures, else kept with a warning. */
function judgeDisturbed(row: Row, disturbed: string | null, invalidateDisturbed: boolean, label: string, log: Logger): void {
  if (!disturbed) return
  if (invalidateDisturbed) {
    // Invalid, never dropped: the row stays in the CSV with why, and its cell is re-measured.
    row.status = 'invalid'
    row.reason = [disturbed, row.reason].filter(Boolean).join('; ')
  } else if (!isDisturbed(row)) log.warn(`${label}: ${disturbed.replace(/^disturbed:/, 'disturbed window:')} (kept: this phase does not re-measure)`)
}

/**
 * Judges and appends a task's rows, each to its side's table but one already written; a pair's
 * two rows are of one window, so its disturbance (returned) is the first's.
 */
function recordRows(
  task: Task,
  rows: readonly Row[],
  o: { out: PhaseOutput; log: Logger; invalidateDisturbed: boolean; written: (side: TaskSide) => boolean },
): string | null {
  const disturbed = disturbedWindow(rows[0]!)
  for (const [j, side] of taskSides(task).entries()) {
    judgeDisturbed(rows[j]!, disturbedWindow(rows[j]!), o.invalidateDisturbed, side.label, o.log)
    if (!o.written(side)) recordRow(rows[j]!, side, o.out, o.log)
  }
  return disturbed
}

/** Appends the row, tagged with the invocation, and warns of one that is not valid. */
function recordRow(row: Row, task: TaskSide, { runDir, invocation }: PhaseOutput, log: Logger): void {
  if (invocation !== null) row.invocation = invocation
  appendRow(runDir, task.table, row)
  if (row.status !== 'valid') log.warn(`${task.label}: ${row.status}: ${row.reason}${row.foreign_processes ? ` (${row.foreign_processes})` : ''}`)
}

/** The rows of each task's cell (lib/data/grouping.ts), as the stop rule reads them. */
function cellProgress(tasks: readonly Task[], runDir: string): { rows: CellProgress[]; lastRepeat: Map<string, number> } {
  const sides = tasks.flatMap((t) => taskSides(t))
  const cells = new Map(sides.map((t) => [t.cellId, t]))
  const onDisk = [...new Set(sides.map((t) => t.table))].flatMap((table) =>
    (readTable(runDir, table) as Row[]).map((row) => ({ cellId: table.cellId(row), row })),
  )
  const byCell = groupBy(onDisk, (x) => [x.cellId])
  // Each paired cell's other side: an instant pair's then side is its task's, an adjacent one's its own task.
  const twin = new Map(
    tasks.flatMap((t) =>
      t.pair ? [[t.cellId, t.pair.side.cellId] as const, [t.pair.side.cellId, t.cellId] as const] : t.pairOf ? [[t.cellId, t.pairOf] as const] : [],
    ),
  )
  const lastRepeat = new Map<string, number>()
  const rows = [...cells].map(([id, t]): CellProgress => {
    const own = (byCell.get(id) ?? []).map((x) => x.row)
    lastRepeat.set(id, Math.max(0, ...own.map((r) => r.repeat), ...sides.filter((x) => x.cellId === id).map((x) => x.repeat)))
    const disturbed = own.filter((r) => isDisturbed(r)).length
    const valued = own.flatMap((r) => {
      const v = r.status === 'valid' ? precisionValue(t.table.name, r) : null
      return v === null ? [] : [{ repeat: r.repeat, v }]
    })
    const pairOf = twin.get(id)
    return {
      id,
      values: valued.map((x) => x.v),
      repeats: own.length - disturbed,
      disturbed,
      ...(pairOf ? { pairOf, byRepeat: new Map(valued.map((x) => [x.repeat, x.v])) } : {}),
    }
  })
  return { rows, lastRepeat }
}

async function adaptiveRounds(name: string, tasks: readonly Task[], out: PhaseOutput, log: Logger, a: PhaseAdaptive, timing: Timing) {
  const { runDir } = out
  if (tasks.length === 0) return
  // A pair at one instant is one task of two cells: found by either.
  const template = new Map(tasks.flatMap((t) => taskSides(t).map((side) => [side.cellId, t] as const)))
  const t0 = Date.now()
  const otherWorkAtStart = timing.otherWorkS
  for (let round = 1; ; round++) {
    const { rows, lastRepeat } = cellProgress(tasks, runDir)
    const costS = timing.n > 0 ? timing.s / timing.n : a.repeatS
    // Time lost to other work is the quiet budget's, not the phase's: disturbed windows do not consume a cell's budget.
    const spentS = (Date.now() - t0) / 1000 - (timing.otherWorkS - otherWorkAtStart)
    const decisions = nextRound(rows, a.settings, { remainingS: a.settings.budgetS - spentS, costS, quietLeftS: out.quiet?.leftS() ?? 0 })
    const more = decisions.filter((d) => d.more)
    if (more.length === 0) {
      log.info(stopLine(name, decisions, a.settings.precision))
      return
    }
    // Each round in its own order, replayable from the run's seed, like the minimum rounds.
    const order = pairedAgain(shuffled(more, seededRandom(roundSeed(a.seed, round, name))), template, lastRepeat)
    log.info(
      `${name}: adaptive round ${round}, ${more.length} cells (${more
        .slice(0, 3)
        .map((d) => d.reason)
        .join('; ')}${more.length > 3 ? '; …' : ''})`,
    )
    await runTasks(`${name} +${round}`, order, out, log, true, timing)
  }
}

/**
 * The tasks of an adaptive round: each cell that needs more at its next repeat, and a paired
 * cell (a now cell and its then twin) together with its partner, next to it, at one repeat
 * past both: a pair is one round of both sides (docs/method/pairs.md).
 */
export function pairedAgain(more: readonly { id: string }[], template: ReadonlyMap<string, Task>, lastRepeat: ReadonlyMap<string, number>): Task[] {
  const done = new Set<string>()
  return more.flatMap(({ id }) => {
    if (done.has(id)) return []
    const task = template.get(id)!
    const { pairOf } = task
    const ids = task.pair ? taskSides(task).map((side) => side.cellId) : pairOf && template.has(pairOf) ? [id, pairOf] : [id]
    for (const x of ids) done.add(x)
    const repeat = Math.max(...ids.map((x) => lastRepeat.get(x) ?? 0)) + 1
    // A pair at one instant is one task for both cells: made again once.
    return [...new Set(ids.map((x) => template.get(x)!))].map((t) => t.again(repeat))
  })
}

/** The line a phase's last round ends with: how many cells reached the precision, and what stopped the others, by kind. */
function stopLine(name: string, decisions: readonly CellDecision[], precision: number): string {
  const reached = decisions.filter((d) => d.reason.startsWith('reached')).length
  const why = new Map<string, number>()
  for (const d of decisions) {
    if (d.reason.startsWith('reached')) continue
    const kind = d.reason.replace(/ \(.*$/, '')
    why.set(kind, (why.get(kind) ?? 0) + 1)
  }
  const stopped = why.size ? `; stopped on ${[...why].map(([k, n]) => `${k} × ${n}`).join(', ')}` : ''
  return `${name}: ${reached} of ${decisions.length} cells reached ±${(100 * precision).toFixed(1)}%${stopped}`
}

/** The order seed of an adaptive round: the run's seed, the round and the phase's name. */
const roundSeed = (seed: number, round: number, name: string) =>
  (seed + Math.imul(round, 7919) + [...name].reduce((h, c) => Math.imul(h, 31) + c.charCodeAt(0), 0)) >>> 0

export function fmtDuration(s: number): string {
  const m = Math.floor(s / 60)
  return m > 0 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`
}
