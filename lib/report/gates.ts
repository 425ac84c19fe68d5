/**
 * Gates (k6 thresholds): `--fail-on EXPR` on run-all and 13-report. Each expression names
 * when the run fails; the run still writes everything, then exits 3 naming each failed gate.
 *
 * - `regression>10%`: in a run made --like the baseline, a paired cell is dearer now than
 *   then beyond its interval and by more than 10%: a proxy's work cells where it has any
 *   (instructions counted), else its timed cells (lib/analysis/pairs.ts). The pairs are the one
 *   comparison with a baseline: a run without them fails the gate and says how to make them.
 * - `claim:<id>==<verdict>` / `claim:<id>!=<verdict>`: fails when the claim's verdict is
 *   (is not) that one (reproduced, not reproduced, inconclusive, not measured, not runnable here).
 * - `finding:<id>`: fails unless the finding held (a finding checked several times: every
 *   check must have held; absent from the run: not measured, so it fails).
 * - `finding:<id>==<verdict>` / `!=<verdict>`: fails when any check of it is (is not) that
 *   verdict (held, not held, inconclusive, not measured, info).
 * Parsing is pure and runs before anything is measured; evaluation reads the report's results.
 */
import { type PairedCell, verdictText } from '../analysis/pairs.ts'
import type { ClaimResult } from '../claims/evaluate.ts'
import { changeText } from './history-chain.ts'
import { userError } from '../core/errors.ts'
import { CLAIM_VERDICTS, FINDING_VERDICTS, type ClaimVerdict, type FindingVerdict } from '../core/verdict.ts'
import type { Finding } from '../findings/index.ts'

/** The findings a gate may name (lib/findings/*.ts). */
export const FINDING_IDS = ['F1', 'F2', 'F3', 'F4', 'F5', 'F6', 'F7', 'F8'] as const

export type Gate =
  | { expr: string; kind: 'regression'; threshold: number }
  | { expr: string; kind: 'claim'; id: string; op: '==' | '!='; verdict: ClaimVerdict }
  | { expr: string; kind: 'finding'; id: string; op: 'held' | '==' | '!='; verdict: FindingVerdict }

export interface GateResult {
  expr: string
  failed: boolean
  /** What decided it, with figures: the regressed cells, the verdicts seen. */
  detail: string
}

/** Exit status of a run or report whose gates failed (after everything was written). */
export const GATE_EXIT_CODE = 3

const FIX =
  'Write regression>N%, claim:<id>==<verdict>, claim:<id>!=<verdict>, finding:<id>, finding:<id>==<verdict> or finding:<id>!=<verdict> (docs/ci.md#gates---fail-on)'

/** One `--fail-on` expression; `claimIds`, when given, are the ledger's ids (an unknown one is an error). */
export function parseGate(raw: string, claimIds?: readonly string[]): Gate {
  const expr = raw.trim()
  const where = `--fail-on "${raw}"`
  const reg = /^regression\s*>\s*(.*)$/.exec(expr)
  if (reg) {
    const m = /^(\d+(?:\.\d+)?)\s*%$/.exec(reg[1]!.trim())
    if (!m) throw userError(where, `"${reg[1]!.trim()}" is not a percentage`, 'Write regression>N% with N a number, e.g. regression>10%')
    return { expr, kind: 'regression', threshold: Number(m[1]) / 100 }
  }
  const ref = /^(claim|finding):([^=!<>\s]+)\s*(?:(==|!=)\s*(.*))?$/.exec(expr)
  if (!ref) throw userError(where, 'not a gate expression', FIX)
  const [, kind, id, op, value] = ref as unknown as [string, 'claim' | 'finding', string, '==' | '!=' | undefined, string | undefined]
  const verdict = value?.trim()
  if (op !== undefined && !verdict)
    throw userError(
      where,
      `${op} needs a verdict`,
      `Write ${kind}:${id}${op}<verdict>, one of: ${(kind === 'claim' ? CLAIM_VERDICTS : FINDING_VERDICTS).join(', ')}`,
    )
  if (kind === 'claim') {
    if (claimIds && !claimIds.includes(id))
      throw userError(where, `unknown claim "${id}"`, 'Use an id of baselines/published/claims.yaml (run-all prints them in the claims ledger)')
    if (op === undefined) throw userError(where, 'a claim gate needs ==<verdict> or !=<verdict>', `Write e.g. claim:${id}!=reproduced`)
    if (!(CLAIM_VERDICTS as readonly string[]).includes(verdict!))
      throw userError(where, `unknown claim verdict "${verdict}"`, `Use one of: ${CLAIM_VERDICTS.join(', ')}`)
    return { expr, kind, id, op, verdict: verdict as ClaimVerdict }
  }
  if (!(FINDING_IDS as readonly string[]).includes(id)) throw userError(where, `unknown finding "${id}"`, `Use one of: ${FINDING_IDS.join(', ')}`)
  if (op === undefined) return { expr, kind, id, op: 'held', verdict: 'held' }
  if (!(FINDING_VERDICTS as readonly string[]).includes(verdict!))
    throw userError(where, `unknown finding verdict "${verdict}"`, `Use one of: ${FINDING_VERDICTS.join(', ')}`)
  return { expr, kind, id, op, verdict: verdict as FindingVerdict }
}

/** Every `--fail-on` value; the first malformed one is the error. */
export const parseGates = (values: readonly string[], claimIds?: readonly string[]): Gate[] => values.map((v) => parseGate(v, claimIds))

/** A regression gate needs a run baseline (cells with repeats): checked before anything is measured. */
export function checkGateBaseline(gates: readonly Gate[], baseline: { id: string; kind: 'run' | 'published' } | undefined): void {
  const g = gates.find((x) => x.kind === 'regression')
  if (!g) return
  if (!baseline)
    throw userError(
      `--fail-on "${g.expr}"`,
      'a regression needs a baseline to compare with',
      'Run with --like ID (a promoted run under baselines/runs/), which pairs then and now; 13-report takes --baseline ID',
    )
  if (baseline.kind !== 'run')
    throw userError(
      `--fail-on "${g.expr}"`,
      `baseline ${baseline.id} is a published article (figures without repeats, no significance test)`,
      'Use a promoted run as --baseline (npm run promote -- results/<run-id>)',
    )
}

export interface GateInputs {
  findings: readonly Finding[]
  claims: readonly ClaimResult[]
  /** The paired cells of a run made --like its baseline: what the regression gate reads. */
  pairs?: readonly PairedCell[]
}

/** The cells a proxy is judged by: its work cells where it has any with a change, else its timed ones. */
function judgedPairs(cells: readonly PairedCell[]): PairedCell[] {
  const counted = new Set(cells.filter((c) => c.basis === 'work' && c.change).map((c) => c.proxy))
  return cells.filter((c) => c.basis === (counted.has(c.proxy) ? 'work' : 'time'))
}

const pairName = (c: PairedCell) => `${c.proxy} ${c.thenVersion} → ${c.nowVersion} ${c.variant}${c.basis === 'work' ? ' (work)' : ''}`

function pairedRegression(g: Extract<Gate, { kind: 'regression' }>, cells: readonly PairedCell[]): GateResult {
  const judged = judgedPairs(cells).filter((c) => c.change)
  const worse = judged.filter((c) => c.verdict === 'dearer' && c.change!.value - 1 > g.threshold)
  const counted = judged.filter((c) => c.basis === 'work').length
  const blind = judged.filter((c) => c.detectable !== null && c.detectable > g.threshold).length
  const tail = `${judged.length} paired cell${judged.length === 1 ? '' : 's'} judged, ${counted} by counted work${blind ? `, ${blind} of them could not detect ${pctText(g.threshold)}` : ''}`
  if (worse.length === 0) return { expr: g.expr, failed: false, detail: `no paired cell dearer by more than ${pctText(g.threshold)}; ${tail}` }
  return {
    expr: g.expr,
    failed: true,
    detail: `${worse.map((c) => `${pairName(c)} ${changeText(c.change!)} (${verdictText(c.verdict, c.detectable)})`).join('; ')}; ${tail}`,
  }
}

function regression(g: Extract<Gate, { kind: 'regression' }>, pairs: readonly PairedCell[] | undefined): GateResult {
  if (pairs?.length) return pairedRegression(g, pairs)
  return {
    expr: g.expr,
    failed: true,
    detail: 'no paired cells to judge: a regression is read from then and now measured in one run (run-all --like BASELINE; docs/method/pairs.md)',
  }
}

const pctText = (x: number) => `${Number((x * 100).toPrecision(6))}%`

function claim(g: Extract<Gate, { kind: 'claim' }>, claims: readonly ClaimResult[]): GateResult {
  const c = claims.find((x) => x.id === g.id)
  const verdict = c?.verdict ?? 'not measured'
  const failed = g.op === '==' ? verdict === g.verdict : verdict !== g.verdict
  return { expr: g.expr, failed, detail: `${g.id}: ${verdict}${c ? ` (${c.measured})` : ' (not in the ledger evaluated)'}` }
}

function finding(g: Extract<Gate, { kind: 'finding' }>, findings: readonly Finding[]): GateResult {
  const checks = findings.filter((f) => f.id === g.id)
  const verdicts: FindingVerdict[] = checks.length ? checks.map((f) => f.verdict) : ['not measured']
  const failed =
    g.op === 'held' ? verdicts.some((v) => v !== 'held') : g.op === '==' ? verdicts.some((v) => v === g.verdict) : verdicts.some((v) => v !== g.verdict)
  const detail = checks.length ? checks.map((f) => `${f.id} ${f.verdict}: ${f.figure}`).join('; ') : `${g.id}: not measured in this run`
  return { expr: g.expr, failed, detail }
}

/** Each gate against a report's results, in the order given. */
export function evaluateGates(gates: readonly Gate[], input: GateInputs): GateResult[] {
  return gates.map((g) => (g.kind === 'regression' ? regression(g, input.pairs) : g.kind === 'claim' ? claim(g, input.claims) : finding(g, input.findings)))
}

/** Terminal lines: `✓ gate … passed: detail` / `✗ gate … FAILED: detail`. */
export function formatGates(results: readonly GateResult[]): string {
  const failed = results.filter((r) => r.failed).length
  return [
    ...results.map((r) => `  ${r.failed ? '✗' : '✓'} gate ${r.expr} ${r.failed ? 'FAILED' : 'passed'}: ${r.detail}`),
    `  ${results.length} gate${results.length === 1 ? '' : 's'}: ${results.length - failed} passed, ${failed} failed${failed ? ` (exit ${GATE_EXIT_CODE})` : ''}`,
  ].join('\n')
}
