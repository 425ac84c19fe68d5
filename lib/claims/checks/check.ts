/**
 * The one interface of a claim check kind (CONTRIBUTING.md#a-check-kind): its fields as a zod
 * object, the rules the shape alone does not express, the selectors it reads cells with, and
 * its evaluation into units. One file per kind in this folder, one line in ./index.ts.
 */
import type { z } from 'zod'
import type { Repeats } from '../../core/intervals.ts'
import type { Decision } from '../../core/verdict.ts'
import type { BisectPlan } from '../../data/bisect.ts'
import type { DefaultKeyRow } from '../../data/default-keys.ts'
import type { Measurement } from '../../data/schema.ts'
import type { CellGroup, CellValue } from '../cells.ts'
import type { FigureValues } from '../expr.ts'
import type { Fig } from '../figure.ts'
import type { ClaimTable, RowRule, SchemaParts, Selector, SelectorSpec } from '../selectors.ts'

/** A unit's decision: the claim's verdict is read off its units (lib/claims/evaluate.ts). */
export type State = Extract<Decision, 'holds' | 'fails' | 'undecided' | 'missing'>

/** One decided part of a check: a for_each item, a status cell entry. */
export interface Unit {
  state: State
  text: string
  /** The figure's name where a check has several (a pair `caddy/envoy proxy_cpu_us_per_req`); else the for_each item names it. */
  label?: string
  /** The unit's one figure with its interval (not for rank and status). */
  fig?: Fig
  reference?: number
  /** Cells behind the unit, with the value each contributed. */
  used: CellValue[]
}

/** What a check reads: a run's cell groups and the inputs some kinds replay. */
export interface Ctx {
  figures: FigureValues
  cells: Record<ClaimTable, CellGroup[]>
  /** familyRepeats per table, metric and rows, computed once. */
  noisy: Map<string, Map<CellGroup, Repeats>>
  /** The rows and plan a bisect check replays (lib/data/bisect.ts). */
  measurements: readonly Measurement[]
  bisect: BisectPlan | undefined
  /** default-keys.csv: what a proxy served when given no certificate. */
  defaultKeys: readonly DefaultKeyRow[]
}

/** Where a side reads its cells: table, default metric and which rows. */
export interface Source {
  table: ClaimTable
  metric: string | undefined
  rows: RowRule
}

export type Issue = (path: (string | number)[], message: string) => void

/** A selector a check reads cells with, at its path under `check` (for the metric, column and series rules). */
export interface NamedSelector {
  path: (string | number)[]
  sel: Selector
}

/** The fields every check has (lib/claims/selectors.ts schemaParts common). */
export interface CommonFields {
  kind: string
  table: ClaimTable
  metric?: string | undefined
  rows: RowRule
  select?: Selector | undefined
  for_each?: SelectorSpec[] | undefined
  expect: string
}

/**
 * One check kind. `C` is its parsed check, `S` its zod object. Methods (not function-valued
 * fields) so that the registry can hold every kind as a CheckDef of the union.
 */
export interface CheckDef<C extends CommonFields, S extends z.ZodTypeAny = z.ZodTypeAny> {
  kind: C['kind']
  /** The check's fields (common ones from `p.common`), a strict zod object with `kind` a literal. */
  schema(p: SchemaParts): S
  /**
   * The selectors that read cells; undefined for a kind that reads its own input (a bisect, the
   * default keys), which then takes no select, for_each or metric.
   */
  sides?(c: C): NamedSelector[]
  /** What a kind without sides reads, in words: "the run's bisect of nginx literal". */
  reads?(c: C): string
  /** select is a layer under the sides (ratio: a and b) rather than the one side itself. */
  layered?: boolean
  /** A for_each item may hold its own a and b maps. */
  pairs?: boolean
  /** A side may be a constant (value: a number expression). */
  constants?: boolean
  /** Every side needs a metric (all but status). */
  needsMetric: boolean
  /** The kind's own rules beyond its shape, before the common ones. */
  validate?(c: C, issue: Issue, o: { figures: FigureValues; runnable: boolean }): void
  /** The check's units for one for_each item (undefined: the check without for_each). */
  units(c: C, item: SelectorSpec | undefined, ctx: Ctx): Unit[]
}

export const missingUnit = (missing: string[], used: CellValue[]): Unit => ({ state: 'missing', text: [...new Set(missing)].join('; '), used })

/** The source of a check's sides: its table, metric and rows. */
export const sourceOf = (k: CommonFields): Source => ({ table: k.table, metric: k.metric, rows: k.rows })

/** A kind that reads its select alone (spread, rank, threshold, count, repeats): its one side, and a metric on it. */
export const SELECT_KIND = { sides: (k: { select: Selector }): NamedSelector[] => [{ path: ['select'], sel: k.select }], needsMetric: true } as const
