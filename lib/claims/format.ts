/** The claims ledger as terminal lines (k6-style summary, like lib/findings/format.ts formatFindings). */
import { CLAIM_VERDICTS, VERDICTS } from '../core/verdict.ts'
import type { ClaimResult } from './evaluate.ts'

/** `15 reproduced, 12 not reproduced, 3 inconclusive, 14 not measured, 9 not runnable here` */
export const verdictCounts = (results: readonly ClaimResult[]) => CLAIM_VERDICTS.map((v) => `${results.filter((r) => r.verdict === v).length} ${v}`).join(', ')

/** One line per claim (mark, id, what was measured), then a count line. */
export function formatLedger(results: readonly ClaimResult[]): string {
  const width = Math.max(0, ...results.map((r) => r.id.length)) + 3
  const lines = results.map((r) => `  ${VERDICTS[r.verdict].mark} ${`${r.id} `.padEnd(width, '.')} ${r.measured}`)
  lines.push(`  ${results.length} claim${results.length === 1 ? '' : 's'}: ${verdictCounts(results)}`)
  return lines.join('\n')
}
