import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { finishOutcome, parseFailOn } from '../../lib/cli/report-outcome.ts'
import { loadBaseline } from '../../lib/data/baselines.ts'
import { GATE_EXIT_CODE } from '../../lib/report/gates.ts'
import type { Finding } from '../../lib/findings/index.ts'

test('--fail-on is checked before anything runs: claim ids from the ledger, a run baseline for a regression', () => {
  assert.deepEqual(parseFailOn(undefined, undefined), [])
  assert.equal(parseFailOn(['claim:envoy-ws-cap-1024!=reproduced'], undefined).length, 1)
  assert.throws(() => parseFailOn(['claim:envoy-ws-cap-1025!=reproduced'], undefined), /unknown claim "envoy-ws-cap-1025"/)
  assert.throws(() => parseFailOn(['regression>10%'], undefined), /needs a baseline/)
  assert.throws(() => parseFailOn(['regression>10%'], loadBaseline('2026-08-23')), /published article/)
  assert.equal(parseFailOn(['regression>10%'], loadBaseline('2026-11-30-quick-2core')).length, 1)
})

test('a failed gate: exit 3 after the summary CSVs are written, each failure named; --json prints one document', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-outcome-'))
  const out: string[] = []
  const findings: Finding[] = [{ id: 'F2', title: 't', verdict: 'not held', figure: 'x 1.2' }]
  const gates = parseFailOn(['finding:F2', 'finding:F1==held'], undefined)
  const write = process.stdout.write
  const printed: string[] = []
  process.stdout.write = ((s: string) => {
    printed.push(s)
    return true
  }) as typeof process.stdout.write
  let code: number
  try {
    code = finishOutcome({
      runId: 'r',
      runDir: dir,
      result: { findings, claims: [] },
      gates,
      json: true,
      writeSummaryCsvs: true,
      human: (t) => void out.push(t),
    })
  } finally {
    process.stdout.write = write
  }
  assert.equal(code, GATE_EXIT_CODE)
  assert.ok(existsSync(join(dir, 'summary/findings.csv')) && existsSync(join(dir, 'summary/claims.csv')))
  assert.match(readFileSync(join(dir, 'summary/findings.csv'), 'utf8'), /^id,title,verdict,figure,/)
  assert.match(out.join(''), /✗ gate finding:F2 FAILED: F2 not held: x 1\.2\n {2}✓ gate finding:F1==held passed/)
  assert.equal(printed.length, 1)
  const doc = JSON.parse(printed[0]!)
  assert.deepEqual(
    doc.gates.map((g: { failed: boolean }) => g.failed),
    [true, false],
  )
  assert.equal(
    finishOutcome({
      runId: 'r',
      runDir: dir,
      result: { findings: [{ ...findings[0]!, verdict: 'held' }], claims: [] },
      gates,
      json: false,
      writeSummaryCsvs: false,
      human: () => {},
    }),
    0,
  )
})
