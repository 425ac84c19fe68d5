import type { Interval } from '../core/intervals.ts'
import type { FindingVerdict } from '../core/verdict.ts'

/**
 * One line of a run's summary: a seed finding checked on this run's rows. Its verdict is a
 * word of the one verdict table (lib/core/verdict.ts): held / not held when the figure's whole
 * interval is on one side of the bound; inconclusive when it straddles the bound (or repeats
 * disagree); info for a figure to report, not a target.
 */
export interface Finding {
  id: string
  title: string
  verdict: FindingVerdict
  figure: string
  /** The figures the verdict was decided on, with their intervals (for the report and a JSON export), and where known each one's own verdict. */
  intervals?: { label: string; interval: Interval; verdict?: FindingVerdict }[]
}
