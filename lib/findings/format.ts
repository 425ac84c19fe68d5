import { FINDING_VERDICTS, VERDICTS } from '../core/verdict.ts'
import type { Finding } from './types.ts'

/** k6-style summary lines. */
export function formatFindings(findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.id.length + f.title.length)) + 4
  return findings
    .map((f) => `  ${VERDICTS[f.verdict].mark} ${`${f.id} ${f.title} `.padEnd(width, '.')} ${f.verdict === 'info' ? '' : `${f.verdict}: `}${f.figure}`)
    .join('\n')
}

/** `12 findings: 5 held, 2 not held, 3 inconclusive, 1 not measured, 1 info` (inconclusive apart from not held). */
export function formatVerdictCounts(findings: readonly Finding[]): string {
  return `${findings.length} findings: ${FINDING_VERDICTS.map((v) => `${findings.filter((f) => f.verdict === v).length} ${v}`).join(', ')}`
}
