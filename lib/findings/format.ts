import type { Finding } from './types.ts'

const MARK: Record<Finding['verdict'], string> = { held: '✓', 'not held': '✗', 'not measured': '-', info: '•' }

/** k6-style summary lines. */
export function formatFindings(findings: readonly Finding[]): string {
  const width = Math.max(...findings.map((f) => f.id.length + f.title.length)) + 4
  return findings.map((f) => `  ${MARK[f.verdict]} ${`${f.id} ${f.title} `.padEnd(width, '.')} ${f.verdict === 'info' ? '' : `${f.verdict}: `}${f.figure}`).join('\n')
}
