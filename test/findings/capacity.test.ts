import assert from 'node:assert/strict'
import { test } from 'node:test'
import { capacityFindings, formatCapacitySteps } from '../../lib/findings/capacity.ts'
import { measurement } from '../fixtures/rows.ts'

const SLO = 'p99<10ms,errors<0.1%'
const step = (rate: number, f: Parameters<typeof measurement>[0] = {}) =>
  measurement({
    series: 'capacity',
    variant: 'pool-added',
    model: 'open',
    connections: 1000,
    target_rps: rate,
    rps: rate,
    slo: SLO,
    proxy_cpu_share: rate / 20000,
    proxy_cpu_us_per_req: 40,
    ...f,
  })

const rows = [
  step(1000, { p99_ms: 1.2 }),
  step(2000, { p99_ms: 12 }),
  step(1500, { p99_ms: 3, proxy_cpu_us_per_req: 38.5 }),
  step(1000, { proxy: 'nginx', p99_ms: 30 }),
]

test('one info finding per search: the rate found with p99, CPU share and µs/req there, the steps, what stopped it', () => {
  assert.deepEqual(
    capacityFindings(rows).map((f) => [f.id, f.title, f.verdict, f.figure]),
    [
      [
        'capacity',
        'haproxy 2.8.25 pool-added',
        'info',
        '1500 rps meets p99<10ms,errors<0.1% (p99 3 ms, proxy CPU 8%, 38.5 µs/req); 3 steps; above: 2000 rps: p99 12 ms >= 10 ms',
      ],
      ['capacity', 'nginx 1.31.3 pool-added', 'info', 'no rate meets p99<10ms,errors<0.1%; 1 step; above: 1000 rps: p99 30 ms >= 10 ms'],
    ],
  )
  assert.deepEqual(capacityFindings([measurement()]), [])
})

test('the steps as text: one table per search, in the order measured', () => {
  const text = formatCapacitySteps(rows)
  assert.match(text, /^ {2}haproxy 2\.8\.25 pool-added under p99<10ms,errors<0\.1%:$/m)
  assert.match(text, /^ {4}step +target rps +achieved rps +p99 ms +errors +proxy CPU +µs\/req +verdict +why$/m)
  assert.match(text, /^ {4}2 +2000 +2000 +12 +0% +10% +40 +miss +p99 12 ms >= 10 ms$/m)
  assert.match(text, /^ {4}1 +1000 +1000 +30 +0% +5% +40 +miss/m)
})
