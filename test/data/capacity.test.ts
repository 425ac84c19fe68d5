import assert from 'node:assert/strict'
import { test } from 'node:test'
import { capacitySearches, capacityStep } from '../../lib/data/capacity.ts'
import { measurement } from '../fixtures/rows.ts'

const SLO = 'p99<10ms,errors<0.1%'
const step = (rate: number, f: Parameters<typeof measurement>[0] = {}) =>
  measurement({ series: 'capacity', variant: 'pool-added', model: 'open', connections: 1000, target_rps: rate, slo: SLO, ...f })

test('a step passes only when its row is valid and meets the SLO', () => {
  assert.equal(capacityStep(step(1000, { p99_ms: 2 })).verdict, 'pass')
  assert.deepEqual([capacityStep(step(2000, { p99_ms: 12 })).verdict, capacityStep(step(2000, { p99_ms: 12 })).why], ['miss', 'p99 12 ms >= 10 ms'])
  // An invalid row with figures inside the SLO is still not a pass.
  const inv = capacityStep(step(4000, { p99_ms: 2, status: 'invalid', reason: 'generator saturated: 95% of its cpuset >= 90%' }))
  assert.deepEqual([inv.verdict, inv.why, inv.disturbed], ['invalid', 'generator saturated: 95% of its cpuset >= 90%', false])
  assert.equal(capacityStep(step(4000, { status: 'invalid', reason: "disturbed: steal 0.0% / foreign CPU 40% on the proxy's cores" })).disturbed, true)
  // Disturbed and overloaded (drops, rate not reached): the overload counts, it is not measured again.
  const both = capacityStep(
    step(4000, {
      status: 'invalid',
      reason: "disturbed: steal 0.0% / foreign CPU 52% on the proxy's cores; dropped 8.9% >= 1%; achieved 3646 rps < target 4000 rps",
    }),
  )
  assert.deepEqual([both.verdict, both.disturbed], ['invalid', false])
  assert.equal(capacityStep(step(4000, { status: 'failed', reason: 'did not start: x' })).verdict, 'failed')
})

test('a search is grouped by cell and SLO; it found its highest pass and is limited by the lowest rate above that did not pass', () => {
  const rows = [
    step(1000, { p99_ms: 1 }),
    step(2000, { p99_ms: 2 }),
    step(4000, { p99_ms: 30 }),
    step(3000, { status: 'invalid', reason: "disturbed: steal 5.0% / foreign CPU 0% on the proxy's cores" }),
    step(3000, { repeat: 2, p99_ms: 11 }),
    step(2500, { p99_ms: 4 }),
    step(1000, { proxy: 'nginx', p99_ms: 20 }),
    step(1000, { slo: 'p99<1ms', p99_ms: 2 }),
    measurement({ series: 'same' }),
  ]
  const [h, n, other] = capacitySearches(rows)
  assert.equal(capacitySearches(rows).length, 3)
  assert.deepEqual([h!.proxy, h!.found?.rate, h!.steps.length, h!.limit], ['haproxy', 2500, 6, '3000 rps: p99 11 ms >= 10 ms'])
  assert.deepEqual([n!.proxy, n!.found, n!.limit], ['nginx', null, '1000 rps: p99 20 ms >= 10 ms'])
  assert.deepEqual([other!.slo, other!.found, other!.limit], ['p99<1ms', null, '1000 rps: p99 2 ms >= 1 ms'])
})
