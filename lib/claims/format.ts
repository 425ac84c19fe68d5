/** The claims ledger as terminal lines (k6-style summary, like lib/findings/format.ts formatFindings). */
import type { ClaimResult, Verdict } from './evaluate.ts'

export const VERDICT_MARK: Record<Verdict, string> = { reproduced: '✓', 'not reproduced': '✗', inconclusive: '?', 'not measured': '·', 'not runnable here': '–' }

export const VERDICT_ORDER: readonly Verdict[] = ['reproduced', 'not reproduced', 'inconclusive', 'not measured', 'not runnable here']

/** `15 reproduced, 12 not reproduced, 3 inconclusive, 14 not measured, 9 not runnable here` */
export const verdictCounts = (results: readonly ClaimResult[]) => VERDICT_ORDER.map((v) => `${results.filter((r) => r.verdict === v).length} ${v}`).join(', ')

/** One line per claim (mark, id, what was measured), then a count line. */
export function formatLedger(results: readonly ClaimResult[]): string {
  const width = Math.max(0, ...results.map((r) => r.id.length)) + 3
  const lines = results.map((r) => `  ${VERDICT_MARK[r.verdict]} ${`${r.id} `.padEnd(width, '.')} ${r.measured}`)
  lines.push(`  ${results.length} claim${results.length === 1 ? '' : 's'}: ${verdictCounts(results)}`)
  return lines.join('\n')
}
