import { loadLedger } from '../claims/ledger.ts'
import { writeOutputs } from '../core/atomic.ts'
import { textOutputs } from '../core/output.ts'
import type { Baseline } from '../data/baselines.ts'
import { checkGateBaseline, evaluateGates, formatGates, GATE_EXIT_CODE, parseGates, type Gate } from '../report/gates.ts'
import type { ReportResult } from '../report/build.ts'
import { buildSummary, findingsClaimsCsvs } from '../report/summary-export.ts'
import { sharedFlag } from './common-flags.ts'

/** Flags of the gates and the JSON summary, on run-all, the series steps and 13-report. */
export const OUTCOME_FLAGS = {
  'fail-on': {
    type: 'string',
    multiple: true,
    arg: 'EXPR',
    help: [
      `a gate (repeatable): exit ${GATE_EXIT_CODE} after writing everything when it fails, naming it:`,
      'regression>N% (a run made --like a baseline: a paired cell dearer now than then by',
      'more than N%, read by counted work where the run has it),',
      'claim:<id>==<verdict>, claim:<id>!=<verdict>,',
      'finding:<id> (fails unless it held), finding:<id>==<verdict>, finding:<id>!=<verdict>',
    ],
    check: (values: string[] | undefined, baseline: Baseline | undefined) => parseFailOn(values, baseline),
  },
  json: sharedFlag('json', {
    more: ['the summary (findings, claims, baseline, paired cells, gates) as one document; every other', 'line goes to stderr'],
  }),
} as const

/** `--fail-on` values checked before anything is measured: syntax, claim ids, and a run baseline for a regression. */
export function parseFailOn(values: readonly string[] | undefined, baseline: Baseline | undefined): Gate[] {
  if (!values?.length) return []
  const gates = parseGates(
    values,
    loadLedger().claims.map((c) => c.id),
  )
  checkGateBaseline(gates, baseline)
  return gates
}

/**
 * After the run or report: summary/findings.csv and summary/claims.csv (when `runDir` may be
 * written), the gates, the JSON document or the human lines; the exit status (3 when a gate failed).
 */
export function finishOutcome(o: {
  runId: string
  runDir: string
  result: Pick<ReportResult, 'findings' | 'claims' | 'baseline' | 'pairs'> & { page?: string; pdf?: string | null }
  gates: readonly Gate[]
  json: boolean
  writeSummaryCsvs: boolean
  human: (text: string) => void
}): number {
  const { result } = o
  if (o.writeSummaryCsvs) writeOutputs(o.runDir, textOutputs(findingsClaimsCsvs(result.findings, result.claims)))
  const gates = evaluateGates(o.gates, result)
  if (gates.length) o.human(['', formatGates(gates), ''].join('\n'))
  if (o.json) {
    const summary = buildSummary({
      runId: o.runId,
      runDir: o.runDir,
      findings: result.findings,
      claims: result.claims,
      baseline: result.baseline,
      pairs: result.pairs,
      gates,
      report: result.page ? { page: result.page, pdf: result.pdf ?? null } : null,
    })
    process.stdout.write(JSON.stringify(summary) + '\n')
  }
  return gates.some((g) => g.failed) ? GATE_EXIT_CODE : 0
}
