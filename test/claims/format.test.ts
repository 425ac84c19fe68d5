import assert from 'node:assert/strict'
import { test } from 'node:test'
import { formatLedger } from '../../lib/claims/format.ts'

test('formatLedger: one line per claim with its mark, then a count line', () => {
  const base = { source: 's', claim: 'c', published: 'p', finding: null, expect: 'e', evidence: [], comparable_across_machines: true, caveat: null, notes: null, warnings: [], value: null, reference: null }
  const out = formatLedger([
    { ...base, id: 'a-claim', verdict: 'reproduced', measured: 'r = 6.1' },
    { ...base, id: 'another-claim', verdict: 'not reproduced', measured: 'r = 1.2' },
    { ...base, id: 'c', verdict: 'not measured', measured: 'not measured: no cell' },
    { ...base, id: 'd', verdict: 'not runnable here', measured: 'no L4 mode' },
  ])
  assert.deepEqual(out.split('\n'), [
    '  ✓ a-claim ........ r = 6.1',
    '  ✗ another-claim .. r = 1.2',
    '  · c .............. not measured: no cell',
    '  – d .............. no L4 mode',
    '  4 claims: 1 reproduced, 1 not reproduced, 1 not measured, 1 not runnable here',
  ])
})
