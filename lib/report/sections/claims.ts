import type { ClaimResult } from '../../claims/evaluate.ts'
import { verdictCounts } from '../../claims/format.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { Article, esc } from '../markdown.ts'
import type { ArticleInput } from './input.ts'

/** The verdict counts of the claims ledger, or that it was not evaluated. */
export const claimCounts = (claims: readonly ClaimResult[]): string => (claims.length ? verdictCounts(claims) : 'not evaluated')

/** Every claim of the source articles with its check over this run and its verdict. */
export function claimsSection(a: Article, { claims }: ArticleInput): ChartRequest[] {
  a.heading(2, 'Claims ledger')
  a.para(`Every claim of the source articles this harness can test, with its check over this run's cell medians (\`baselines/published/claims.yaml\`): ${claimCounts(claims)}. "Not measured" means a cell the check needs is absent from this run; it is never counted as "not reproduced".`)
  a.table('claims', [
    { title: 'claim', value: (c) => c.id },
    { title: 'source', value: (c) => c.source.replace(/_.*$/, '') },
    { title: 'what was claimed', value: (c) => c.claim },
    { title: 'published', value: (c) => c.published },
    { title: 'check', value: (c) => c.expect },
    { title: 'this run', value: (c) => c.measured },
    { title: 'verdict', value: (c) => c.verdict, show: (c) => `**${esc(c.verdict)}**` },
  ], claims, 'The claims ledger was not evaluated.')
  return []
}
