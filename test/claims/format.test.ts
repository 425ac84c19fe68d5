import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ClaimResult } from '../../lib/claims/evaluate.ts'
import { formatLedger, verdictCounts } from '../../lib/claims/format.ts'

const base = {
  source: 's',
  claim: 'c',
  published: 'p',
  finding: null,
  expect: 'e',
  evidence: [],
  comparable_across_machines: true,
  caveat: null,
  notes: null,
  warnings: [],
  value: null,
  interval: null,
  reference: null,
  figures: [],
  states: [],
}

test('formatLedger: one line per claim with its mark, then a count line', () => {
  const out = formatLedger([
    { ...base, id: 'a-claim', verdict: 'reproduced', measured: 'r = 6.1' },
    { ...base, id: 'another-claim', verdict: 'not reproduced', measured: 'r = 1.2' },
    { ...base, id: 'b', verdict: 'inconclusive', measured: 'r = 1.7 [1.6, 1.9]' },
    { ...base, id: 'c', verdict: 'not measured', measured: 'not measured: no cell' },
    { ...base, id: 'd', verdict: 'not runnable here', measured: 'no L4 mode' },
  ])
  assert.deepEqual(out.split('\n'), [
    '  ✓ a-claim ........ r = 6.1',
    '  ✗ another-claim .. r = 1.2',
    '  ? b .............. r = 1.7 [1.6, 1.9]',
    '  · c .............. not measured: no cell',
    '  – d .............. no L4 mode',
    '  5 claims: 1 reproduced, 1 not reproduced, 1 inconclusive, 1 not measured, 1 not runnable here',
  ])
})

test('verdictCounts: inconclusive counted on its own, never as reproduced or not reproduced', () => {
  const of = (...vs: ClaimResult['verdict'][]) => vs.map((verdict, i) => ({ ...base, id: `x${i}`, verdict, measured: '' }))
  assert.equal(
    verdictCounts(of('inconclusive', 'inconclusive', 'reproduced')),
    '1 reproduced, 0 not reproduced, 2 inconclusive, 0 not measured, 0 not runnable here',
  )
})
