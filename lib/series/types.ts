import type { ProxyName } from '../catalog/stack.ts'
import type { CellId } from '../data/grouping.ts'
import type { Table } from '../data/tables.ts'
import type { Logger } from '../core/log.ts'
import type { CellPlan, CellContext } from '../measure/cell.ts'
import type { SeriesPlan } from './plan.ts'
import type { ThenPlan } from './then.ts'

/** What a series gets: the cell context, the run's settings and the user's plan for the series. */
export interface SeriesContext extends CellContext {
  log: Logger
  proxies: readonly ProxyName[]
  seed: number
  connections: number
  /** Version string of the direct row: the backend's source hash. */
  backendVersion: string
  /** The series options, as parsed from the flags (lib/series/plan.ts). */
  plan: SeriesPlan
  /** --like: the baseline's builds measured beside today's (lib/series/then.ts); absent: no then side. */
  pairing?: ThenPlan
}

/** One repeat of one cell: produces exactly one row of one table (an instant pair: one row of each side's, Task.pair). */
export interface Task<T = unknown> {
  label: string
  table: Table<T>
  /** table.key() of the row this task will produce; done keys are skipped on --resume. */
  key: string
  /** Its cell: `key` without its repeat (lib/data/grouping.ts; what the adaptive rounds group rows by). */
  cellId: CellId
  repeat: number
  /** The same cell's task for another repeat: how an adaptive round re-measures a cell. */
  again(repeat: number): Task<T>
  /** The cell this one is paired with (a now cell and its then twin, lib/series/then.ts): re-measured together, at one repeat. */
  pairOf?: CellId
  /**
   * A pair measured at one instant (--pair-at instant, docs/method/pairs.md#at-one-instant): the
   * then twin's side, whose row the same window yields; `run` there gives both rows, this task's first.
   */
  pair?: { side: TaskSide<T>; run(): Promise<readonly [T, T]> }
  run(): Promise<T>
  /** The cell it measures: its template is checked once before the phase (lib/measure/cell.ts checkTemplates). */
  subject?: CellPlan
}

/** Where one of a task's rows goes: the task's own, or its pair's then side (Task.pair). */
export type TaskSide<T = unknown> = Pick<Task<T>, 'label' | 'table' | 'key' | 'cellId' | 'repeat' | 'subject'>

/** Every row a task yields, where each goes: its own, then its pair's then side. */
export const taskSides = <T>(t: Task<T>): TaskSide<T>[] => [t, ...(t.pair ? [t.pair.side] : [])]

/** One step of a series: its tasks, built when it starts. */
export interface Phase {
  name: string
  tasks(ctx: SeriesContext): Task[]
  /**
   * Whether the phase's rows are costs of a cell (the default): those get adaptive repeats
   * until their median is precise, and a disturbed window is invalid and re-measured.
   * false: rows that are steps of a curve or counts (tls-calibration, ws-hold) run exactly
   * the profile's rounds and keep their status (their disturbance is still recorded).
   */
  adaptive?: boolean | ((ctx: SeriesContext) => boolean)
  /** Valid repeats each cell needs at least, above the profile's (the bisect's test needs 4 a side). */
  minRepeats?: number
}

/**
 * A series is a list of phases; a phase builds its tasks when it starts, so that it can
 * use rows measured by an earlier phase (e.g. the open-model rate from closed ceilings).
 */
export interface Series {
  name: string
  phases: Phase[]
}
