/** One line of a run's summary: a seed finding checked on this run's rows. */
export interface Finding {
  id: string
  title: string
  /** held / not held against the expectation; info: a figure to report, not a target. */
  verdict: 'held' | 'not held' | 'not measured' | 'info'
  figure: string
}
