import type { Interval } from '../core/intervals.ts'

/**
 * held / not held: the figure's whole interval is on one side of the bound; inconclusive:
 * it straddles the bound (or repeats disagree); info: a figure to report, not a target.
 */
export type Verdict = 'held' | 'not held' | 'inconclusive' | 'not measured' | 'info'

/** One line of a run's summary: a seed finding checked on this run's rows. */
export interface Finding {
  id: string
  title: string
  verdict: Verdict
  figure: string
  /** The figures the verdict was decided on, with their intervals (for the report and a JSON export). */
  intervals?: { label: string; interval: Interval }[]
}
