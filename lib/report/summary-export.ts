/**
 * A run's summary for machines: `--json` prints it as one JSON document (findings with
 * their intervals, the claims ledger with intervals, the baseline, the paired cells, the gates),
 * validated against SUMMARY_SCHEMA; `summary/findings.csv` and `summary/claims.csv` are the
 * same findings and claims as tidy CSV (their columns: lib/data/columns/summary.ts).
 */
import { csvText } from '../data/csv.ts'
import { join } from 'node:path'
import { z } from 'zod'
import { zodToJsonSchema, type JsonSchema } from '../core/json-schema.ts'
import { repoRoot } from '../core/paths.ts'
import { methodText, repeatsDisagree, type Interval } from '../core/intervals.ts'
import { CLAIM_VERDICTS, FINDING_VERDICTS } from '../core/verdict.ts'
import type { ClaimResult } from '../claims/evaluate.ts'
import { CLAIMS, FINDINGS, outputNames } from '../data/columns/summary.ts'
import type { Finding } from '../findings/index.ts'
import type { GateResult } from './gates.ts'
import type { BaselineComparison } from './sections/input.ts'
import type { PairedCell, PairVerdict } from '../analysis/pairs.ts'

// 3: a run baseline is compared by its pairs only (then and now in one run, `pairs`); the across-run cells are gone.
export const SUMMARY_FORMAT = 'proxybench-summary/3'

/** A finding's interval as exported: its method in words, widening included. */
const intervalFields = (i: Interval) =>
  repeatsDisagree(i) && i.disagree && Number.isFinite(i.disagree.lo) && Number.isFinite(i.disagree.hi)
    ? // Repeats that disagree: their range, named as such, not a 100×-wide interval (docs/method/disturbance.md#intervals).
      { value: i.value, lo: i.disagree.lo, hi: i.disagree.hi, level: 0, method: 'repeats disagree', n: i.n }
    : { value: i.value, lo: i.lo, hi: i.hi, level: i.level, method: methodText(i), n: i.n }

const num = z.number().nullable()
// Bounds are null where a figure is not finite (a ratio over 0): JSON has no Infinity.
const intervalSchema = z.object({ value: num, lo: num, hi: num, level: z.number(), method: z.string(), n: z.number().int() })
const cellKey = z.record(z.union([z.string(), z.number(), z.null()]))
const PAIR_VERDICTS = ['cheaper', 'dearer', 'no change', 'too few repeats'] as const satisfies readonly PairVerdict[]
/** A paired cell (lib/analysis/pairs.ts): now / then of one cell measured in the same rounds. */
const pairSchema = z
  .object({
    table: z.string(),
    basis: z.enum(['work', 'time']),
    key: cellKey,
    then_version: z.string(),
    now_version: z.string(),
    pairs: z.number().int(),
    change: z.object({ value: num, lo: num, hi: num }).strict().nullable(),
    verdict: z.enum(PAIR_VERDICTS),
    detectable: num,
    machine: num,
  })
  .strict()

export const SUMMARY_SCHEMA = z
  .object({
    format: z.literal(SUMMARY_FORMAT),
    run_id: z.string(),
    run_dir: z.string(),
    findings: z.array(
      z
        .object({
          id: z.string(),
          title: z.string(),
          verdict: z.enum(FINDING_VERDICTS),
          figure: z.string(),
          intervals: z.array(z.object({ label: z.string(), interval: intervalSchema })),
        })
        .strict(),
    ),
    claims: z.array(
      z
        .object({
          id: z.string(),
          source: z.string(),
          finding: z.string().nullable(),
          verdict: z.enum(CLAIM_VERDICTS),
          expect: z.string(),
          measured: z.string(),
          value: num,
          interval: z.object({ lo: num, hi: num, method: z.string() }).nullable(),
          reference: num,
          comparable_across_machines: z.boolean(),
          warnings: z.array(z.string()),
        })
        .strict(),
    ),
    baseline: z.union([
      z.null(),
      z
        .object({
          id: z.string(),
          kind: z.literal('run'),
          same_machine: z.boolean(),
        })
        .strict(),
      z
        .object({
          id: z.string(),
          kind: z.literal('published'),
          figures: z.array(z.object({ label: z.string(), published: z.string(), ours: num, delta: num, note: z.string() }).strict()),
        })
        .strict(),
    ]),
    /** The run's paired cells (a run made --like a baseline): the comparison with it; null when not paired. */
    pairs: z.array(pairSchema).nullable(),
    gates: z.array(z.object({ expr: z.string(), failed: z.boolean(), detail: z.string() }).strict()),
    report: z.object({ page: z.string(), pdf: z.string().nullable() }).nullable(),
  })
  .strict()

export type Summary = z.infer<typeof SUMMARY_SCHEMA>

/** The published JSON Schema of the `--json` document, generated from SUMMARY_SCHEMA (docs/ci.md#the-json-summary-schema). */
export const SUMMARY_SCHEMA_FILE = join(repoRoot, 'docs', 'summary.schema.json')

export const summaryJsonSchema = (): JsonSchema =>
  zodToJsonSchema(SUMMARY_SCHEMA, {
    id: 'urn:proxybench:summary:1',
    title: SUMMARY_FORMAT,
    description:
      'The document --json prints (run-all, the series steps, 13-report): findings and claims with their intervals, the baseline, the paired cells (then and now), the gates. Generated from lib/report/summary-export.ts SUMMARY_SCHEMA.',
  })

/** The file's text: what docs/summary.schema.json must hold. */
export const summaryJsonSchemaText = (): string => JSON.stringify(summaryJsonSchema(), null, 2) + '\n'

export interface SummaryInput {
  runId: string
  runDir: string
  findings: readonly Finding[]
  claims: readonly ClaimResult[]
  baseline?: BaselineComparison
  pairs?: readonly PairedCell[]
  gates: readonly GateResult[]
  report: { page: string; pdf: string | null } | null
}

function baselineOut(b: BaselineComparison | undefined): Summary['baseline'] {
  if (!b) return null
  if (b.kind === 'published')
    return {
      id: b.id,
      kind: 'published',
      figures: b.deltas.map((d) => ({ label: d.label, published: d.published, ours: d.ours, delta: d.delta, note: d.note })),
    }
  return { id: b.id, kind: 'run', same_machine: b.sameMachine }
}

/** A claim's fields the JSON and the CSV share (the schema and the column list fix their order). */
const claimFields = (c: ClaimResult) => {
  const { id, source, finding, verdict, expect, measured, value, reference, comparable_across_machines } = c
  return { id, source, finding, verdict, expect, measured, value, reference, comparable_across_machines }
}

const pairOut = (c: PairedCell) => ({
  table: c.table,
  basis: c.basis,
  key: c.key,
  then_version: c.thenVersion,
  now_version: c.nowVersion,
  pairs: c.pairs,
  change: c.change && { value: c.change.value, lo: c.change.lo, hi: c.change.hi },
  verdict: c.verdict,
  detectable: c.detectable,
  machine: c.machine,
})

/**
 * The summary document, checked against SUMMARY_SCHEMA as a reader will parse it (after a JSON
 * round trip: a non-finite number becomes null), so a bug fails loudly, never prints a malformed document.
 */
export function buildSummary(s: SummaryInput): Summary {
  return SUMMARY_SCHEMA.parse(
    JSON.parse(
      JSON.stringify({
        format: SUMMARY_FORMAT,
        run_id: s.runId,
        run_dir: s.runDir,
        findings: s.findings.map((f) => ({
          id: f.id,
          title: f.title,
          verdict: f.verdict,
          figure: f.figure,
          intervals: (f.intervals ?? []).map(({ label, interval }) => ({ label, interval: intervalFields(interval) })),
        })),
        claims: s.claims.map((c) => ({ ...claimFields(c), interval: c.interval, warnings: c.warnings })),
        baseline: baselineOut(s.baseline),
        pairs: s.pairs ? s.pairs.map(pairOut) : null,
        gates: s.gates.map((g) => ({ expr: g.expr, failed: g.failed, detail: g.detail })),
        report: s.report,
      }),
    ),
  )
}

export const FINDINGS_CSV = FINDINGS.file
export const CLAIMS_CSV = CLAIMS.file
export const FINDINGS_COLUMNS = outputNames(FINDINGS)
export const CLAIMS_COLUMNS = outputNames(CLAIMS)

/** One row per interval of each finding (a finding without a decided figure: one row, the interval columns empty). */
export function findingsCsv(findings: readonly Finding[]): string {
  return csvText(
    FINDINGS_COLUMNS,
    findings.flatMap((f) => {
      const base = { id: f.id, title: f.title, verdict: f.verdict, figure: f.figure }
      const ivs = f.intervals ?? []
      return ivs.length ? ivs.map(({ label, interval }) => ({ ...base, label, ...intervalFields(interval) })) : [base]
    }),
  )
}

/** One row per claim of the ledger. */
export function claimsCsv(claims: readonly ClaimResult[]): string {
  return csvText(
    CLAIMS_COLUMNS,
    claims.map((c) => ({
      ...claimFields(c),
      lo: c.interval?.lo,
      hi: c.interval?.hi,
      interval_method: c.interval?.method,
      warnings: c.warnings.join('; '),
    })),
  )
}

/** summary/findings.csv and summary/claims.csv as file name → text. */
export const findingsClaimsCsvs = (findings: readonly Finding[], claims: readonly ClaimResult[]) =>
  new Map([
    [FINDINGS_CSV, findingsCsv(findings)],
    [CLAIMS_CSV, claimsCsv(claims)],
  ])
