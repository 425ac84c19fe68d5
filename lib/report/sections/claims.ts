import type { ClaimResult } from '../../claims/evaluate.ts'
import { VERDICT_MARK, verdictCounts } from '../../claims/format.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { Article, esc } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/** The verdict counts of the claims ledger, or that it was not evaluated. */
export const claimCounts = (claims: readonly ClaimResult[]): string => (claims.length ? verdictCounts(claims) : 'not evaluated')

/** Every claim of the source articles with its check over this run and its verdict. */
export function claimsSection(a: Article, { claims }: ArticleInput): ChartRequest[] {
  a.heading(2, 'Claims ledger')
  a.para(`Every claim of the source articles this harness can test, with its check over this run's cell medians (\`baselines/published/claims.yaml\`): ${claimCounts(claims)}. Each figure carries its interval over the repeats, \`[lo, hi]\` (a paired bootstrap at 95%; one cell's median: order statistics, which cover less with few repeats): a claim is reproduced or not reproduced only when the whole interval is on one side of the check's bound, else it is "inconclusive" (so is any figure from a single repeat, and a status that ties). "Not measured" means a cell the check needs is absent from this run; it is never counted as "not reproduced".`)
  a.table('claims', [
    { title: 'claim', value: (c) => c.id },
    { title: 'source', value: (c) => c.source.replace(/_.*$/, '') },
    { title: 'what was claimed', value: (c) => c.claim },
    { title: 'published', value: (c) => c.published },
    { title: 'check', value: (c) => c.expect },
    { title: 'this run', value: (c) => c.measured },
    // The mark tells inconclusive (?) apart from the decided verdicts at a glance.
    { title: 'verdict', value: (c) => c.verdict, show: (c) => `${esc(VERDICT_MARK[c.verdict])} **${esc(c.verdict)}**` },
  ], claims, 'The claims ledger was not evaluated.')
  return []
}
