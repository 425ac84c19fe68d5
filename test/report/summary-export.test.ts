import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { test } from 'node:test'
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import Papa from 'papaparse'
import { evaluateRun } from '../../lib/report/build.ts'
import { evaluateGates, parseGates } from '../../lib/report/gates.ts'
import {
  buildSummary,
  claimsCsv,
  CLAIMS_COLUMNS,
  findingsCsv,
  FINDINGS_COLUMNS,
  SUMMARY_SCHEMA,
  SUMMARY_SCHEMA_FILE,
  summaryJsonSchemaText,
} from '../../lib/report/summary-export.ts'
import { FIXTURE_RUN } from '../fixtures/run.ts'
import { synthetic } from '../fixtures/paired.ts'
import { pairedCells } from '../../lib/analysis/pairs.ts'

const BASELINE = '2026-11-30-quick-2core'

test('--json: the fixture run against a run baseline is one document that validates against the schema', () => {
  const r = evaluateRun(FIXTURE_RUN, BASELINE)
  const gates = evaluateGates(parseGates(['regression>10%', 'finding:F2', 'claim:envoy-ws-cap-1024!=reproduced']), r)
  const doc = buildSummary({ runId: 'run-quick', runDir: FIXTURE_RUN, ...r, gates, report: null })
  // What a reader parses: the text printed on stdout.
  const back = SUMMARY_SCHEMA.parse(JSON.parse(JSON.stringify(doc)))
  assert.equal(back.format, 'proxybench-summary/3')
  assert.equal(back.findings.length, r.findings.length)
  assert.ok(
    back.findings.some((f) => f.intervals.length > 0),
    'findings carry their intervals',
  )
  assert.equal(back.claims.length, r.claims.length)
  assert.ok(
    back.claims.some((c) => c.interval !== null),
    'claims carry their intervals',
  )
  // A run baseline is its machine only: the comparison is the pairs, and this run has none.
  assert.deepEqual(back.baseline, { id: BASELINE, kind: 'run', same_machine: false })
  assert.equal(back.pairs, null)
  assert.deepEqual(
    back.gates.map((g) => g.expr),
    ['regression>10%', 'finding:F2', 'claim:envoy-ws-cap-1024!=reproduced'],
  )
})

test('--json against the published baseline and without one', () => {
  const r = evaluateRun(FIXTURE_RUN, '2026-08-23')
  const doc = SUMMARY_SCHEMA.parse(
    JSON.parse(JSON.stringify(buildSummary({ runId: 'x', runDir: FIXTURE_RUN, ...r, gates: [], report: { page: 'p', pdf: null } }))),
  )
  assert.equal(doc.baseline?.kind, 'published')
  const none = buildSummary({ runId: 'x', runDir: FIXTURE_RUN, ...evaluateRun(FIXTURE_RUN), gates: [], report: null })
  assert.equal(none.baseline, null)
  assert.throws(() => SUMMARY_SCHEMA.parse({ ...none, extra: 1 }), /Unrecognized key/)
})

test('summary/findings.csv and summary/claims.csv: one row per finding interval, one per claim', () => {
  const r = evaluateRun(FIXTURE_RUN)
  const f = Papa.parse<Record<string, string>>(findingsCsv(r.findings), { header: true, skipEmptyLines: true })
  assert.deepEqual(f.meta.fields, [...FINDINGS_COLUMNS])
  assert.equal(
    f.data.length,
    r.findings.reduce((n, x) => n + Math.max(1, x.intervals?.length ?? 0), 0),
  )
  assert.deepEqual([...new Set(f.data.map((x) => x.id))], [...new Set(r.findings.map((x) => x.id))])
  const c = Papa.parse<Record<string, string>>(claimsCsv(r.claims), { header: true, skipEmptyLines: true })
  assert.deepEqual(c.meta.fields, [...CLAIMS_COLUMNS])
  assert.equal(c.data.length, r.claims.length)
  const withInterval = r.claims.find((x) => x.interval)!
  const row = c.data.find((x) => x.id === withInterval.id)!
  assert.equal(Number(row.lo), withInterval.interval!.lo)
  assert.equal(row.verdict, withInterval.verdict)
})

test('a non-finite figure is null in the document, as JSON carries it', () => {
  const doc = buildSummary({
    runId: 'x',
    runDir: '/r',
    findings: [
      {
        id: 'F3',
        title: 't',
        verdict: 'info',
        figure: 'f',
        intervals: [{ label: 'a/b', interval: { value: Infinity, lo: 1, hi: Infinity, level: 0.95, method: 'bootstrap', n: 2 } }],
      },
    ],
    claims: [],
    gates: [],
    report: null,
  })
  assert.deepEqual(doc.findings[0]!.intervals[0]!.interval, { value: null, lo: 1, hi: null, level: 0.95, method: 'bootstrap', n: 2 })
})

test('a widened interval says so in the document and the CSV: its method names what widened it', () => {
  const finding = {
    id: 'F7',
    title: 't',
    verdict: 'inconclusive' as const,
    figure: 'f',
    intervals: [
      { label: 'a/b', interval: { value: 0.4, lo: 0, hi: 26, level: 0.95, method: 'paired bootstrap' as const, n: 2, floor: 'unstable cell' as const } },
    ],
  }
  const doc = buildSummary({ runId: 'x', runDir: '/r', findings: [finding], claims: [], gates: [], report: null })
  assert.deepEqual(doc.findings[0]!.intervals[0]!.interval, {
    value: 0.4,
    lo: 0,
    hi: 26,
    level: 0.95,
    method: 'paired bootstrap, widened by unstable cell',
    n: 2,
  })
  const rows = Papa.parse<Record<string, string>>(findingsCsv([finding]), { header: true, skipEmptyLines: true }).data
  assert.equal(rows[0]!.method, 'paired bootstrap, widened by unstable cell')
})

// The published schema, read by a validator that shares nothing with zod (issue 29 item 6).
const ajv = () => new Ajv2020({ strict: true, allErrors: true })
const published = () => JSON.parse(readFileSync(SUMMARY_SCHEMA_FILE, 'utf8'))

test('docs/summary.schema.json is the JSON Schema generated from the zod schema (UPDATE_SCHEMA=1 rewrites it)', () => {
  if (process.env.UPDATE_SCHEMA === '1') writeFileSync(SUMMARY_SCHEMA_FILE, summaryJsonSchemaText())
  assert.equal(
    readFileSync(SUMMARY_SCHEMA_FILE, 'utf8'),
    summaryJsonSchemaText(),
    'docs/summary.schema.json is behind SUMMARY_SCHEMA: run UPDATE_SCHEMA=1 node --import tsx --test test/report/summary-export.test.ts',
  )
  assert.doesNotThrow(() => ajv().compile(published()))
})

test('ajv validates the --json documents of the fixture run (run baseline, published baseline, none) against the published file', () => {
  const validate = ajv().compile(published())
  const docs = [
    buildSummary({
      runId: 'run-quick',
      runDir: FIXTURE_RUN,
      ...evaluateRun(FIXTURE_RUN, BASELINE),
      gates: evaluateGates(parseGates(['regression>10%', 'finding:F2']), evaluateRun(FIXTURE_RUN, BASELINE)),
      report: null,
    }),
    buildSummary({ runId: 'x', runDir: FIXTURE_RUN, ...evaluateRun(FIXTURE_RUN, '2026-08-23'), gates: [], report: { page: 'p', pdf: null } }),
    buildSummary({ runId: 'x', runDir: FIXTURE_RUN, ...evaluateRun(FIXTURE_RUN), gates: [], report: null }),
  ]
  for (const doc of docs) assert.ok(validate(JSON.parse(JSON.stringify(doc))), ajvErrors(validate.errors))
  assert.deepEqual(
    docs.map((d) => d.baseline?.kind ?? null),
    ['run', 'published', null],
  )
  // The file constrains what the zod schema does: each of these breaks the document for both.
  const doc = JSON.parse(JSON.stringify(docs[0]))
  const broken: [string, (d: any) => void][] = [
    ['an unknown top-level key', (d) => (d.extra = 1)],
    ['a verdict outside the list', (d) => (d.findings[0].verdict = 'maybe')],
    ['a missing key', (d) => delete d.claims[0].measured],
    ['another format', (d) => (d.format = 'proxybench-summary/1')],
    ['a fractional n', (d) => (d.findings.find((f: any) => f.intervals.length).intervals[0].interval.n = 1.5)],
    ['a string where a number or null goes', (d) => (d.claims[0].value = '1')],
    ['an unknown key in a run baseline', (d) => (d.baseline.extra = true)],
    ['pairs that are not a list', (d) => (d.pairs = {})],
  ]
  for (const [what, breakIt] of broken) {
    const d = structuredClone(doc)
    breakIt(d)
    assert.equal(validate(d), false, `ajv accepted ${what}`)
    assert.equal(SUMMARY_SCHEMA.safeParse(d).success, false, `zod accepted ${what}`)
  }
})

const ajvErrors = (errors: ErrorObject[] | null | undefined) => (errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join('; ')

test('--json carries the paired cells: one entry per cell, its change, verdict and detectable change, and the regression gate reads them', () => {
  const { run, baseline } = synthetic({ cells: 3, rounds: 5, noise: 0.02, seed: 4, change: 1.3, changed: [1] })
  const pairs = pairedCells(run, baseline)
  const gates = evaluateGates(parseGates(['regression>10%']), { findings: [], claims: [], pairs })
  const doc = SUMMARY_SCHEMA.parse(JSON.parse(JSON.stringify(buildSummary({ runId: 'x', runDir: 'r', findings: [], claims: [], pairs, gates, report: null }))))
  assert.equal(doc.pairs?.length, 3)
  const changed = doc.pairs!.find((p) => p.key.variant === 'v1')!
  assert.equal(changed.verdict, 'dearer')
  assert.ok(changed.change!.lo! > 1.1 && changed.then_version === '2.8.25' && changed.now_version === '3.0.0', JSON.stringify(changed))
  assert.ok(doc.pairs!.every((p) => p.basis === 'time' && p.detectable !== null && p.machine !== null))
  assert.equal(doc.gates[0]!.failed, true)
})
