import { MAX_ERROR_RATE, MAX_FOREIGN_SHARE, MAX_GENERATOR_SHARE, MAX_RATE_SHORTFALL, MAX_STEAL_SHARE } from '../../catalog/limits.ts'
import { POOLED_MAX_PER_1K, UNPOOLED_MIN_PER_1K } from '../../catalog/reuse.ts'
import { BOOTSTRAP_RESAMPLES, FLOOR_BELOW_N, LEVEL, UNSTABLE_P } from '../../core/intervals.ts'
import { markedLabel } from '../../core/verdict.ts'
import { FINDINGS_MODEL } from '../../findings/load.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/**
 * The rules behind every verdict of this run, stated from the constants the harness ran
 * with and this run's manifest, never typed: a reader of the published site alone can
 * judge a verdict. Each paragraph is a heading, so a verdict line can link to it.
 */

/** Anchors of the method's paragraphs (the site's heading ids). */
export const METHOD_ANCHORS = {
  windows: 'method-windows-and-repeats',
  validity: 'method-valid-rows',
  intervals: 'method-intervals-and-verdicts',
  pool: 'method-the-pool-detector',
  comparison: 'method-comparison-with-a-baseline',
} as const

const pct = (x: number) => `${+(x * 100).toFixed(1)}%`

/** The box at the top of the run page: how to read what follows, in five lines. */
export function readingGuideSection(a: Article): ChartRequest[] {
  a.para(
    `> **How to read this report.** The figure that matters is the proxy's CPU time per request (µs). ` +
      `Each finding and claim has a verdict: ${markedLabel('held')} (its whole ${pct(LEVEL)} interval is on the right side of its bound), ` +
      `${markedLabel('not held')} (wholly on the wrong side), ${markedLabel('inconclusive')} (the interval straddles the bound: the repeats' noise could flip it), ` +
      `${markedLabel('not measured')} (nothing valid to judge, with the reason). Bounds come from the articles' words. ` +
      `[Method](#method) gives every rule and constant this run used.`,
  )
  return []
}

export function methodSection(a: Article, { run }: ArticleInput): ChartRequest[] {
  const m = run.manifest
  const p = m.profile_settings
  a.heading(2, 'Method')
  a.para("Every rule and constant below is read from the harness that made this report and from this run's manifest.")

  a.heading(3, 'Method: windows and repeats')
  const adaptive = p.max_repeats !== undefined && p.max_repeats > p.repeats
  a.bullets([
    `Profile **${esc(m.profile)}**: each repeat reads the counters over a ${p.duration_s} s window after ${p.warmup_s} s of warm-up, with ${p.connections} keep-alive connections in the closed model.`,
    adaptive
      ? `Repeats are adaptive: at least ${p.repeats}, at most ${p.max_repeats} per cell, until the ${pct(LEVEL)} interval of the median is within ±${pct(p.precision ?? 0)}, within ${p.budget_s ?? 0} s per phase beyond the minimum.`
      : `Every cell gets exactly ${p.repeats} repeat${p.repeats === 1 ? '' : 's'}; only disturbed windows are measured again.`,
    `Repeats are interleaved across cells and each round is shuffled with the seed ${esc(String(m.order_seed))}.`,
    ...(p.max_disturbed !== undefined
      ? [`A cell may have ${p.max_disturbed} disturbed window${p.max_disturbed === 1 ? '' : 's'} re-measured before it is given up.`]
      : []),
  ])

  a.heading(3, 'Method: valid rows')
  a.bullets([
    `A row is invalid when errors or dropped iterations reach ${pct(MAX_ERROR_RATE)}, the generator used ${pct(MAX_GENERATOR_SHARE)} or more of its cores (it, not the proxy, was the limit), an open-model run achieved less than ${pct(1 - MAX_RATE_SHORTFALL)} of its target rate, verification failed or a role exited.`,
    `A window is disturbed when the hypervisor stole more than ${pct(MAX_STEAL_SHARE)} of it, or something outside the bench used more than ${pct(MAX_FOREIGN_SHARE)} of the measured cores or of the load's.`,
    'Invalid rows stay in the CSVs with their reason and are left out of every figure.',
    `Findings read the ${FINDINGS_MODEL} model's rows.`,
  ])

  a.heading(3, 'Method: intervals and verdicts')
  a.bullets([
    `A cell's figure is the median of its valid repeats, with the ${pct(LEVEL)} order-statistics interval of the median (its real coverage is shown where fewer repeats allow less).`,
    `Ratios and spreads get a paired bootstrap over the interleaved rounds (${BOOTSTRAP_RESAMPLES} resamples, seeded from the data).`,
    `A figure resting on a cell with fewer than ${FLOOR_BELOW_N} repeats is widened to at least the noise of its family of cells; a cell whose repeats disagree beyond that noise (p < ${UNSTABLE_P}) is unstable and widens every figure on it.`,
    'A verdict is decided only when its whole interval is on one side of its bound; else it is inconclusive.',
  ])

  a.heading(3, 'Method: the pool detector')
  a.para(
    `The backend counts the TCP connections it accepts. A cell with at most ${POOLED_MAX_PER_1K} backend connections per 1000 requests reuses its connections; one with at least ${UNPOOLED_MIN_PER_1K} opens one per request.`,
  )

  a.heading(3, 'Method: comparison with a baseline')
  a.para(
    "A proxy's change against a baseline is measured in pairs: the baseline's build beside today's in the same rounds of one run (run-all --like), never as the difference of two runs' µs, which holds the machine's drift too.",
  )
  return []
}
