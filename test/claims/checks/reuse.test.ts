import assert from 'node:assert/strict'
import { test } from 'node:test'
import { POOLED_MAX_PER_1K, UNPOOLED_MIN_PER_1K } from '../../../lib/catalog/reuse.ts'
import { loadLedger } from '../../../lib/claims/ledger.ts'
import { evalCheck } from '../../fixtures/ledger.ts'
import { measurement } from '../../fixtures/rows.ts'

const check = (pooled: boolean) => ({
  kind: 'reuse',
  metric: 'backend_conns_per_1k_req',
  select: { series: 'haproxy-reuse', proxy: 'haproxy', variant: 'reuse-never' },
  pooled,
})
const rows = (conns: number[]) =>
  conns.map((c, i) => measurement({ series: 'haproxy-reuse', proxy: 'haproxy', variant: 'reuse-never', repeat: i + 1, backend_conns_per_1k_req: c }))

test('reuse: judged on the bounds of lib/catalog/reuse.ts, named in the text, never in the check', () => {
  const few = rows([2, 3, 1, 2, 3])
  const pooled = evalCheck(check(true), { measurements: few })
  assert.equal(pooled.verdict, 'reproduced', pooled.measured)
  assert.match(pooled.measured, new RegExp(`wanted <= ${POOLED_MAX_PER_1K}`))
  const unpooled = evalCheck(check(false), { measurements: few })
  assert.equal(unpooled.verdict, 'not reproduced', unpooled.measured)
  assert.match(unpooled.measured, new RegExp(`wanted >= ${UNPOOLED_MIN_PER_1K}`))
})

test('the published ledger judges backend connections only through reuse checks (one home for the 100/900 bounds)', () => {
  const judged = loadLedger().claims.filter((c) => c.check.kind === 'threshold' && c.check.metric === 'backend_conns_per_1k_req')
  assert.deepEqual(
    judged.map((c) => c.id),
    [],
  )
})
