import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { errorShare, parseSlo, sloMisses } from '../../lib/data/slo.ts'
import { measurement } from '../fixtures/rows.ts'

test('an SLO reads latency bounds in us, ms or s and errors in percent, as upper bounds', () => {
  const slo = parseSlo(' p99 < 10ms, errors<0.1% ,p50<=500us,max<1.5s,p99.9<20ms')
  assert.equal(slo.text, 'p99<10ms,errors<0.1%,p50<=500us,max<1.5s,p99.9<20ms')
  assert.deepEqual(
    slo.terms.map((t) => [t.metric, t.strict, t.limit]),
    [
      ['p99', true, 10],
      ['errors', true, 0.001],
      ['p50', false, 0.5],
      ['max', true, 1500],
      ['p99.9', true, 20],
    ],
  )
})

test('a bad SLO is one line naming the term and the fix', () => {
  const cases: [string, RegExp][] = [
    ['', /^--slo: "" names no objective\. Write terms like p99<10ms/],
    ['p99<10', /^--slo: "p99<10" needs a time unit\. Write it in us, ms or s, e\.g\. p99<10ms$/],
    ['p99<10min', /needs a time unit, not "min"/],
    ['p98<10ms', /^--slo: unknown metric "p98" in "p98<10ms"\. Use p50, p90, p99, p99\.9, max or errors/],
    ['p99>10ms', /^--slo: "p99>10ms" is not an upper bound\. An SLO term bounds from above: write p99<… or p99<=…$/],
    ['errors<0.1', /errors are a share of requests\. Write it in percent, e\.g\. errors<0\.1%$/],
    ['errors<101%', /more than 100%/],
    ['p99<ms', /"p99<ms" has no number after </],
    ['p99<10ms,p99<=5ms', /"p99" bounded twice/],
    ['p999<1ms,p99.9<2ms', /"p99\.9" bounded twice/],
    ['errors<0%', /can never be met/],
    ['p99 10ms', /cannot read "p9910ms"/],
  ]
  for (const [value, re] of cases) {
    assert.throws(
      () => parseSlo(value),
      (e: Error) => e instanceof UserError && re.test(e.message) && !e.message.includes('\n'),
      value,
    )
  }
  assert.throws(() => parseSlo('p99<1', 'measurements.csv:7'), /UserError: measurements\.csv:7: /)
})

test('a row misses the terms it exceeds, in words; errors count dropped requests; a figure not measured misses', () => {
  const slo = parseSlo('p99<10ms,errors<0.1%')
  assert.deepEqual(sloMisses(measurement({ p99_ms: 9.9, requests: 10000, errors: 9 }), slo), [])
  assert.deepEqual(sloMisses(measurement({ p99_ms: 10, requests: 10000, errors: 11 }), slo), ['p99 10 ms >= 10 ms', 'errors 0.11% >= 0.1%'])
  assert.deepEqual(sloMisses(measurement({ p99_ms: 3, requests: 990, errors: 0, dropped: 10 }), slo), ['errors 1% >= 0.1%'])
  assert.deepEqual(sloMisses(measurement({ p99_ms: 10 }), parseSlo('p99<=10ms')), [])
  assert.deepEqual(sloMisses(measurement({ p99_ms: null, requests: 0 }), slo), ['p99 not measured', 'errors not measured'])
  assert.equal(errorShare({ requests: 0, errors: 0, dropped: null }), null)
})
