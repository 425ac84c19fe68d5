import assert from 'node:assert/strict'
import { test } from 'node:test'
import { claimResult } from '../fixtures/ledger.ts'
import type { ClaimResult } from '../../lib/claims/evaluate.ts'
import { UserError } from '../../lib/core/errors.ts'
import { pairedCells } from '../../lib/analysis/pairs.ts'
import { synthetic, workRow } from '../fixtures/paired.ts'
import type { Finding } from '../../lib/findings/index.ts'
import { checkGateBaseline, evaluateGates, formatGates, GATE_EXIT_CODE, parseGate, parseGates } from '../../lib/report/gates.ts'

const finding = (id: string, verdict: Finding['verdict']): Finding => ({ id, title: id, verdict, figure: `${id} figure` })
const claim = (id: string, verdict: ClaimResult['verdict']): ClaimResult => claimResult(id, verdict)
test('parses every operator', () => {
  assert.deepEqual(parseGate('regression>10%'), { expr: 'regression>10%', kind: 'regression', threshold: 0.1 })
  assert.deepEqual(parseGate(' regression > 2.5 % '), { expr: 'regression > 2.5 %', kind: 'regression', threshold: 0.025 })
  assert.deepEqual(parseGate('claim:envoy-ws-cap-1024!=reproduced'), {
    expr: 'claim:envoy-ws-cap-1024!=reproduced',
    kind: 'claim',
    id: 'envoy-ws-cap-1024',
    op: '!=',
    verdict: 'reproduced',
  })
  assert.deepEqual(parseGate('claim:x==not reproduced', ['x']), {
    expr: 'claim:x==not reproduced',
    kind: 'claim',
    id: 'x',
    op: '==',
    verdict: 'not reproduced',
  })
  assert.deepEqual(parseGate('finding:F2'), { expr: 'finding:F2', kind: 'finding', id: 'F2', op: 'held', verdict: 'held' })
  assert.deepEqual(parseGate('finding:F2!=not held'), { expr: 'finding:F2!=not held', kind: 'finding', id: 'F2', op: '!=', verdict: 'not held' })
  assert.deepEqual(parseGate('finding:F8==inconclusive'), { expr: 'finding:F8==inconclusive', kind: 'finding', id: 'F8', op: '==', verdict: 'inconclusive' })
})

test('a malformed expression is one line naming it and the fix', () => {
  const cases: [string, RegExp][] = [
    ['regression>10', /^--fail-on "regression>10": "10" is not a percentage\. Write regression>N%/],
    ['regression>ten%', /is not a percentage/],
    ['latency<5ms', /^--fail-on "latency<5ms": not a gate expression\. Write regression>N%, claim:<id>==<verdict>/],
    ['claim:nope!=reproduced', /unknown claim "nope"\. Use an id of baselines\/published\/claims\.yaml/],
    ['claim:x', /a claim gate needs ==<verdict> or !=<verdict>/],
    ['claim:x!=maybe', /unknown claim verdict "maybe"\. Use one of: reproduced, not reproduced, inconclusive, not measured, not runnable here/],
    ['claim:x==', /== needs a verdict/],
    ['finding:F9', /unknown finding "F9"\. Use one of: F1, F2/],
    ['finding:F2==passed', /unknown finding verdict "passed"\. Use one of: held, not held/],
  ]
  for (const [expr, re] of cases) {
    assert.throws(
      () => parseGates([expr], ['x']),
      (e: Error) => e instanceof UserError && !e.message.includes('\n') && re.test(e.message),
      expr,
    )
  }
})

test('a regression gate needs a run baseline, checked before the run', () => {
  const gates = parseGates(['regression>10%'])
  assert.throws(() => checkGateBaseline(gates, undefined), /a regression needs a baseline to compare with\. Run with --like ID/)
  assert.throws(() => checkGateBaseline(gates, { id: '2026-08-23', kind: 'published' }), /published article/)
  checkGateBaseline(gates, { id: 'main', kind: 'run' })
  checkGateBaseline(parseGates(['finding:F1']), undefined)
})

test('regression without pairs fails and says how to make them: two runs are not compared', () => {
  const [g] = parseGates(['regression>10%'])
  for (const pairs of [undefined, []]) {
    const [r] = evaluateGates([g!], { findings: [], claims: [], ...(pairs ? { pairs } : {}) })
    assert.equal(r!.failed, true)
    assert.match(r!.detail, /^no paired cells to judge: .*run-all --like BASELINE/)
  }
})

test('claim gates: == fails on that verdict, != on any other; a missing claim is not measured', () => {
  const claims = [claim('a', 'reproduced'), claim('b', 'inconclusive')]
  const r = evaluateGates(
    parseGates(['claim:a!=reproduced', 'claim:b!=reproduced', 'claim:a==reproduced', 'claim:b==not reproduced', 'claim:c==not measured']),
    { findings: [], claims },
  )
  assert.deepEqual(
    r.map((x) => x.failed),
    [false, true, true, false, true],
  )
  assert.equal(r[1]!.detail, 'b: inconclusive (b measured)')
})

test('finding gates: bare needs every check held; == / != over every check; absent is not measured', () => {
  const findings = [finding('F2', 'held'), finding('F4', 'held'), finding('F4', 'inconclusive'), finding('F1', 'not held')]
  const r = evaluateGates(
    parseGates([
      'finding:F2',
      'finding:F4',
      'finding:F1',
      'finding:F4==not held',
      'finding:F1==not held',
      'finding:F2!=held',
      'finding:F4!=held',
      'finding:F5',
      'finding:F5==not held',
    ]),
    { findings, claims: [] },
  )
  assert.deepEqual(
    r.map((x) => x.failed),
    [false, true, true, false, true, false, true, true, false],
  )
  assert.equal(r[1]!.detail, 'F4 held: F4 figure; F4 inconclusive: F4 figure')
  assert.equal(r[7]!.detail, 'F5: not measured in this run')
})

test('the terminal lines name each failed gate and the exit code', () => {
  const text = formatGates([
    { expr: 'finding:F2', failed: false, detail: 'F2 held: x' },
    { expr: 'regression>10%', failed: true, detail: 'haproxy +15%' },
  ])
  assert.equal(
    text,
    `  ✓ gate finding:F2 passed: F2 held: x\n  ✗ gate regression>10% FAILED: haproxy +15%\n  2 gates: 1 passed, 1 failed (exit ${GATE_EXIT_CODE})`,
  )
})

test('regression under --like reads the pairs: a proxy by its counted work where it has any, else by time', () => {
  const [g] = parseGates(['regression>2%'])
  const base = synthetic({ cells: 3, rounds: 5, noise: 0.03, seed: 2, change: 1.0, changed: [] })
  const now = [...base.run.measurements, workRow({ version: '3.0.0', value: 103_000, rel: 0.002 })]
  const then = [...base.run.paired.tables.measurements, workRow({ version: '2.8.25', value: 100_000, rel: 0.002 })]
  const tables = (m: typeof now) => ({ measurements: m, handshakes: [], websocket: [] })
  const pairs = pairedCells({ ...tables(now), paired: { ...base.run.paired, tables: tables(then) } })
  const [r] = evaluateGates([g!], { findings: [], claims: [], pairs })
  // +3% of counted work fails a 2% gate, whatever the timed cells say: haproxy is judged by its work cell alone.
  assert.equal(r!.failed, true)
  assert.match(r!.detail, /^haproxy 2\.8\.25 → 3\.0\.0 article \(work\) \+3\.0% \[\+2\.\d%, \+3\.\d%\] \(dearer\); 1 paired cell judged, 1 by counted work$/)
  const [ok] = evaluateGates([parseGates(['regression>5%'])[0]!], { findings: [], claims: [], pairs })
  assert.equal(ok!.failed, false)
  // Without work cells the timed pairs are judged.
  const timed = evaluateGates([g!], { findings: [], claims: [], pairs: pairs.filter((c) => c.basis === 'time') })[0]!
  assert.match(timed.detail, /^no paired cell dearer by more than 2%; 3 paired cells judged, 0 by counted work/)
})
