import { BOOTSTRAP_RESAMPLES, FLOOR_BELOW_N } from '../../core/intervals.ts'
import { formatVerdictCounts } from '../../findings/format.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { type Article, esc } from '../markdown.ts'
import { claimCounts } from './claims.ts'
import { MARK } from './common.ts'
import { METHOD_ANCHORS } from './method.ts'
import type { ArticleInput } from './input.ts'

/** Every finding of the run with its verdict and its whole figure, and the claims' verdict counts (the verdict table shows one figure each). */
export function glanceSection(a: Article, { findings, claims }: ArticleInput): ChartRequest[] {
  // The print's first page has each verdict with its deciding figure; the whole figures are to look up.
  a.siteOnly('Findings in full: every finding with all its figures and intervals', () => {
    a.heading(2, 'Findings in full')
    if (findings.length) {
      a.para(`${formatVerdictCounts(findings)}.`)
      // Each verdict links the method paragraph that decides it (the rule) beside its figure.
      a.bullets(
        findings.map((f) => `**${f.id}** ${esc(f.title)}: ${MARK(f.verdict)}${f.figure ? `, ${esc(f.figure)}` : ''} ([rule](#${METHOD_ANCHORS.intervals}))`),
      )
      a.para(
        `95% intervals: one cell's median by order statistics; ratios and spreads by a paired bootstrap over interleaved rounds (${BOOTSTRAP_RESAMPLES} resamples); a cell with fewer than ${FLOOR_BELOW_N} repeats widens them to at least the run's pooled noise, and an unstable cell (repeats that disagree beyond that noise) by its own spread; a verdict is decided only when its whole interval is on one side of the bound. Otherwise it is inconclusive, and so is a single repeat or repeats split evenly.`,
      )
    } else a.para('*No series of this run produced findings.*')
    a.para(`Published claims: ${claimCounts(claims)}. Details in [the claims ledger](#claims-ledger).`)
  })
  return []
}
