import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UserError } from '../../../lib/core/errors.ts'
import { loadLedger } from '../../../lib/claims/ledger.ts'
import { claimOf, evalCheck, writeLedger } from '../../fixtures/ledger.ts'
import { cpuRepeats } from '../../fixtures/rows.ts'

const check = {
  kind: 'follows',
  metric: 'proxy_cpu_us_per_req',
  select: { series: 'same', variant: 'article' },
  order_by: 'backend_conns_per_1k_req',
  gap: 50,
  min: 1,
}
const cell = (proxy: string, conns: number, cpu: number[]) => cpuRepeats({ proxy, variant: 'article', backend_conns_per_1k_req: conns }, cpu)

test('follows: the proxy with clearly more backend connections costs more (held), less (not held), or undecided', () => {
  const pooled = cell('haproxy', 0, [40, 40, 40, 40, 40])
  const held = evalCheck(check, { measurements: [...pooled, ...cell('nginx', 1000, [70, 72, 68, 71, 69])] })
  assert.equal(held.verdict, 'reproduced', held.measured)
  assert.match(
    held.measured,
    /^haproxy 40 \(0 conns\/1k req\) < nginx 70 \(1,000 conns\/1k req\) µs\/req; nginx\/haproxy: r = 1\.75 \[[\d.]+, [\d.]+\]; wanted >= 1$/,
  )
  assert.deepEqual(
    held.figures.map((f) => f.label),
    ['nginx/haproxy'],
  )
  assert.equal(evalCheck(check, { measurements: [...pooled, ...cell('nginx', 1000, [30, 31, 29, 30, 32])] }).verdict, 'not reproduced')
  assert.equal(evalCheck(check, { measurements: [...pooled, ...cell('nginx', 1000, [30, 50, 34, 46, 40])] }).verdict, 'inconclusive')
})

test('follows: pairs within the gap are no pair; a cell without valid rows is named and left out; no pair is not measured', () => {
  const close = evalCheck(check, { measurements: [...cell('haproxy', 0, [40, 40]), ...cell('envoy', 40, [10, 10])] })
  assert.equal(close.verdict, 'not measured')
  assert.match(close.measured, /no two cells 50 conns\/1k req apart/)
  const invalid = cpuRepeats({ proxy: 'caddy', variant: 'article', backend_conns_per_1k_req: 500, status: 'invalid', reason: 'errors 5% >= 1%' }, [90, 90])
  const left = evalCheck(check, { measurements: [...cell('haproxy', 0, [40, 40, 40, 40, 40]), ...cell('nginx', 1000, [70, 72, 68, 71, 69]), ...invalid] })
  assert.equal(left.verdict, 'reproduced', left.measured)
  assert.match(left.measured, /caddy 2\.11\.7 article: no value, left out/)
  assert.equal(evalCheck(check, { measurements: cell('haproxy', 0, [40, 40]) }).verdict, 'not measured')
})

test('follows: order_by must be a metric of the table', () => {
  assert.throws(
    () => loadLedger(writeLedger([claimOf({ ...check, order_by: 'conns' })])),
    (e: unknown) => e instanceof UserError && /check\.order_by: "conns" is not a metric of measurements/.test(e.message),
  )
})
