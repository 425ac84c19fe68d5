import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { stringify } from 'yaml'
import { evaluateClaims, type ClaimResult } from '../../lib/claims/evaluate.ts'
import { evaluateGroup } from '../../lib/claims/groups.ts'
import type { FindingGroup } from '../../lib/claims/ledger.ts'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { UserError } from '../../lib/core/errors.ts'
import { loadRun } from '../../lib/data/run-data.ts'
import { SERIES } from '../../lib/data/series.ts'
import { findingsFor } from '../../lib/findings/index.ts'
import { claimOf, claimResult, writeLedger } from '../fixtures/ledger.ts'
import { FIXTURE_RUN } from '../fixtures/run.ts'

const ratioCheck = { kind: 'ratio', metric: 'rps', a: { series: 'same', proxy: 'haproxy' }, b: { series: 'same', proxy: 'nginx' }, min: 1 }

/** A ledger folder with two F1 claims and the groups given. */
function withGroups(groups: unknown[]): string {
  const dir = writeLedger([claimOf(ratioCheck, { finding: 'F1' }, 0), claimOf(ratioCheck, { finding: 'F1' }, 1), claimOf(ratioCheck, {}, 2)])
  writeFileSync(join(dir, 'findings.yaml'), stringify(groups))
  return dir
}

const loadError = (groups: unknown[]): string => {
  try {
    loadLedger(withGroups(groups))
  } catch (e) {
    assert.ok(e instanceof UserError, String(e))
    return e.message
  }
  assert.fail('loading should have failed')
}

test('findings.yaml: a group loads with its claims; bad input is a one-line error naming file, line and fix', () => {
  const ok = loadLedger(withGroups([{ id: 'F1', title: 't', series: 'pooling', claims: ['test-claim-0', 'test-claim-1'] }]))
  assert.deepEqual(ok.findings, [{ id: 'F1', title: 't', series: 'pooling', claims: ['test-claim-0', 'test-claim-1'], combine: 'all', figure: 'figures' }])
  const unknown = loadError([{ id: 'F1', title: 't', series: 'pooling', claims: ['test-claim-0', 'no-such-claim'] }])
  assert.match(unknown, /findings\.yaml:\d+: 0\.claims\.1: unknown claim id "no-such-claim" \(claim ids are the ids in claims\.yaml\)\. Fix the finding group/)
  assert.doesNotMatch(unknown, /\n/)
  assert.match(
    loadError([{ id: 'F2', title: 't', series: 'pooling', claims: ['test-claim-0'] }]),
    /claim "test-claim-0" has finding: F1, not F2: set its finding tag to F2/,
  )
  assert.match(loadError([{ id: 'F1', title: 't', series: 'pooling', claims: ['test-claim-2'] }]), /has finding: null, not F1/)
  assert.match(loadError([{ id: 'F9', title: 't', series: 'pooling', claims: ['test-claim-0'] }]), /0\.id: expected a finding id F1\.\.F8/)
  assert.match(loadError([{ id: 'F1', title: 't', series: 'nope', claims: ['test-claim-0'] }]), /0\.series: /)
  assert.match(loadError([{ id: 'F1', title: 't', series: 'pooling', claims: [] }]), /a group needs at least one claim id/)
  const twice = { id: 'F1', title: 't', series: 'pooling', claims: ['test-claim-0'] }
  assert.match(loadError([twice, twice]), /1\.title: duplicate line "F1 t"/)
  assert.match(loadError([{ ...twice, combine: 'any' }]), /0\.combine: /)
  assert.match(loadError([{ ...twice, figure: 'words' }]), /0\.figure: /)
})

const result = (id: string, verdict: ClaimResult['verdict'], states: ClaimResult['states']): ClaimResult => claimResult(id, verdict, { finding: 'F1', states })

test('a group combines the decisions of its claims parts: any fails, else any undecided or missing, none measured', () => {
  const g: FindingGroup = { id: 'F1', title: 't', series: 'pooling', claims: ['a', 'b'], combine: 'all', figure: 'figures' }
  const line = (a: ClaimResult, b: ClaimResult) => evaluateGroup(g, [a, b])
  assert.equal(line(result('a', 'reproduced', ['holds', 'holds']), result('b', 'reproduced', ['holds'])).verdict, 'held')
  assert.equal(line(result('a', 'not reproduced', ['holds', 'fails']), result('b', 'not measured', ['missing'])).verdict, 'not held')
  // A claim unmeasured for one proxy of five still shows what the others decided: inconclusive, not "not measured".
  assert.equal(line(result('a', 'not measured', ['holds', 'missing']), result('b', 'reproduced', ['holds'])).verdict, 'inconclusive')
  assert.equal(line(result('a', 'inconclusive', ['undecided']), result('b', 'reproduced', ['holds'])).verdict, 'inconclusive')
  assert.equal(line(result('a', 'not measured', ['missing']), result('b', 'not runnable here', [])).verdict, 'not measured')
  // Its figure line is the claims' measured texts, each named when there are several.
  assert.equal(line(result('a', 'reproduced', ['holds']), result('b', 'reproduced', ['holds'])).figure, 'a: a measured; b: b measured')
  assert.throws(() => evaluateGroup(g, [result('a', 'reproduced', ['holds'])]), /finding F1: claim b was not evaluated/)
})

test('the published groups: every line of F1..F8 that the summary decides comes from the ledger, with the same verdict as its claims', () => {
  const ledger = loadLedger()
  const groups = ledger.findings ?? []
  assert.ok(groups.length >= 10, `${groups.length} groups`)
  const run = loadRun(FIXTURE_RUN)
  const claims = evaluateClaims(ledger, run)
  const findings = findingsFor(run, SERIES, { ledger, claims })
  for (const g of groups) {
    const line = findings.find((f) => f.id === g.id && f.title === g.title)
    assert.ok(line, `${g.id} ${g.title} is a line of the summary`)
    assert.equal(line.verdict, evaluateGroup(g, claims).verdict, `${g.id} ${g.title}`)
  }
  // Every F1..F8 line with a verdict other than info is a group's: no second evaluator decides a seed finding.
  const decided = findings.filter((f) => /^F[1-8]$/.test(f.id) && f.verdict !== 'info')
  const ungrouped = decided.filter((f) => !groups.some((g) => g.id === f.id && g.title === f.title)).map((f) => `${f.id} ${f.title}`)
  // F6's open-model line is still judged by lib/findings/tls.ts (its claims test the cell status, not the median repeat).
  assert.deepEqual(
    ungrouped.filter((x) => !x.startsWith('F6 open model at ')),
    [],
  )
})

test('the fixture run: each finding line keeps the verdict the hand-written findings gave it', () => {
  const run = loadRun(FIXTURE_RUN)
  const findings = findingsFor(run, SERIES, {})
  const verdict = (id: string, title: RegExp) => findings.find((f) => f.id === id && title.test(f.title))?.verdict
  const want: [string, RegExp, string][] = [
    ['F1', /ranking follows/, 'inconclusive'],
    ['F2', /pool-removed \/ pool-added/, 'inconclusive'],
    ['F3', /one pit/, 'info'],
    ['F4', /reuse-never/, 'not measured'],
    ['F7', /upstream-default/, 'inconclusive'],
    ['F5', /rsa4096 \/ ec256 >= 8/, 'not held'],
    ['F5', /Go proxies/, 'held'],
    ['F8', /echo/, 'inconclusive'],
    ['F8', /nginx article/, 'held'],
    ['F8', /1024/, 'held'],
    ['F8', /keep every connection/, 'held'],
  ]
  for (const [id, title, v] of want) assert.equal(verdict(id, title), v, `${id} ${title}`)
})

test("a group's figure: each claim's figures with intervals where every unit was measured, else its measured text", () => {
  const fig = (value: number, lo: number, hi: number) => ({ value, lo, hi, method: 'order statistics', n: 4 }) as ClaimResult['figures'][number]['fig']
  const perProxy: ClaimResult = {
    ...result('a', 'reproduced', ['holds', 'holds']),
    figures: [
      { label: 'caddy', fig: fig(1.54, 1.4, 1.7), state: 'fails' },
      { label: 'envoy', fig: fig(2.38, 2.1, 2.7), state: 'holds' },
    ],
  }
  const oneMissing: ClaimResult = { ...perProxy, id: 'b', measured: 'b measured', states: ['holds', 'missing'], figures: perProxy.figures.slice(0, 1) }
  const g: FindingGroup = { id: 'F2', title: 't', series: 'pooling', claims: ['a', 'b'], combine: 'all', figure: 'figures' }
  assert.equal(evaluateGroup(g, [perProxy, oneMissing]).figure, 'a: caddy 1.54 [1.4, 1.7], envoy 2.38 [2.1, 2.7]; b: b measured')
  assert.equal(evaluateGroup({ ...g, figure: 'measured' }, [perProxy, oneMissing]).figure, 'a: a measured; b: b measured')
  // Each figure keeps its own unit's verdict: the report shows the one that decided the line.
  assert.deepEqual(
    evaluateGroup({ ...g, claims: ['a'] }, [perProxy]).intervals.map((i) => [i.label, i.verdict]),
    [
      ['caddy (a)', 'not held'],
      ['envoy (a)', 'held'],
    ],
  )
})
