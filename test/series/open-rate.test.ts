import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import {
  HALF_OPEN_FRACTION,
  OPEN_RATES,
  openRate,
  openReference,
  ownOpenRates,
  ownRateId,
  POOLING_OPEN_FRACTION,
  poolingCeilings,
  poolingOpenRate,
  rateAt,
  SEED_OPEN_FRACTION,
  tlsCeilings,
  withSharedCeilings,
} from '../../lib/series/open-rate.ts'
import { measurement } from '../fixtures/rows.ts'

const ceilingRow = (f: Partial<Measurement>): Measurement => measurement({ series: 'tls-ceiling', variant: 'pool-added', ...f })

test("open-model rates: the seed's fraction and half of HAProxy's valid EC-256 ceiling, in hundreds", () => {
  const c = tlsCeilings([
    ceilingRow({ proxy: 'haproxy', rps: 30_000 }),
    ceilingRow({ proxy: 'haproxy', rps: 32_000, repeat: 2 }),
    ceilingRow({ proxy: 'caddy', rps: 7_340 }),
    ceilingRow({ proxy: 'caddy', rps: 100, status: 'invalid' }),
    ceilingRow({ proxy: 'nginx', series: 'same', rps: 10 }),
  ])
  assert.deepEqual(
    [...c],
    [
      ['haproxy', 31_000],
      ['caddy', 7_340],
    ],
  )
  assert.deepEqual(openReference(c), { proxy: 'haproxy', ceiling: 31_000 })
  assert.equal(openRate(c), 2_100) // 6.7% of 31 000, in hundreds: HAProxy's, not the slowest (caddy)
  assert.equal(openRate(c, HALF_OPEN_FRACTION), 15_500)
  // Without HAProxy in the run: the slowest proxy's ceiling.
  assert.deepEqual(
    openReference(
      new Map([
        ['caddy', 7_340],
        ['nginx', 9_000],
      ]),
    ),
    { proxy: 'caddy', ceiling: 7_340 },
  )
  assert.equal(openRate(new Map()), null)
})

test('the open-model rate reads EC-256 ceilings only: an RSA-2048 one, however low, never sets it', () => {
  const c = tlsCeilings([ceilingRow({ proxy: 'haproxy', rps: 30_000 }), ceilingRow({ proxy: 'haproxy', key_type: 'rsa2048', rps: 900 })])
  assert.deepEqual([...c], [['haproxy', 30_000]])
})

test("the seed's fraction is the seed's own figures: 15,000 rps open against HAProxy's 223,000 closed", () => {
  const f = loadLedger().figures
  assert.equal(SEED_OPEN_FRACTION, Number(f.get('s000-open-model-rate')!.value) / Number(f.get('s000-calibration-closed-rps')!.value))
  assert.deepEqual(
    OPEN_RATES.map((r) => r.series),
    ['tls-open', 'tls-open-half'],
  )
})

test('pooling-open rate: a fraction of the lowest valid closed ceiling of the proxied cells, in hundreds', () => {
  const rows = [
    measurement({ series: 'same', proxy: 'haproxy', variant: 'article', rps: 30_000, repeat: 1 }),
    measurement({ series: 'pool-removed', proxy: 'caddy', variant: 'pool-removed', rps: 4_000, repeat: 1 }),
    measurement({ series: 'pool-removed', proxy: 'caddy', variant: 'pool-removed', rps: 5_000, repeat: 2 }),
    measurement({ series: 'pool-removed', proxy: 'caddy', variant: 'pool-removed', rps: 9_000, repeat: 3 }),
    // Left out: the direct floor, an invalid row, an open row, another series.
    measurement({ series: 'direct', proxy: 'direct', variant: 'direct', rps: 1_000, proxy_cpu_us_per_req: null }),
    measurement({ series: 'nginx-keepalive', proxy: 'nginx', variant: 'literal', rps: 500, status: 'invalid', reason: 'errors 5.0% >= 1%' }),
    measurement({ series: 'same', proxy: 'nginx', variant: 'article', rps: 300, model: 'open', target_rps: 300 }),
    measurement({ series: 'tls-ceiling', proxy: 'nginx', variant: 'pool-added', rps: 200 }),
  ]
  assert.deepEqual(
    poolingCeilings(rows).map((c) => [c.key.series, c.key.proxy, c.ceiling]),
    [
      ['same', 'haproxy', 30_000],
      ['pool-removed', 'caddy', 5_000],
    ],
  )
  assert.deepEqual(poolingOpenRate(rows), {
    rate: rateAt(POOLING_OPEN_FRACTION, 5_000),
    fraction: POOLING_OPEN_FRACTION,
    ceiling: 5_000,
    cellName: 'pool-removed caddy 2.11.7 pool-removed',
  })
  assert.equal(poolingOpenRate(rows, 0.5)!.rate, 2_500)
  assert.equal(poolingOpenRate(rows, 0.01)!.rate, 100, 'never below 100 rps')
  assert.equal(poolingOpenRate(rows.slice(4)), null, 'no valid proxied closed ceiling')
})

test("same-own-rate: each article config's rate is half its OWN closed ceiling, not the lowest of all cells", () => {
  const rows = [
    measurement({ series: 'same', proxy: 'haproxy', version: '3.2.4', variant: 'article', rps: 12_000 }),
    measurement({ series: 'same', proxy: 'haproxy', version: '3.2.4', variant: 'article', rps: 12_400, repeat: 2 }),
    measurement({ series: 'same', proxy: 'nginx', version: '1.31.3', variant: 'article', rps: 3_000 }),
    // The lowest ceiling of all pooling cells (what pooling-open's one rate follows): no bearing on the own rates.
    measurement({ series: 'pool-removed', proxy: 'caddy', version: '2.11.7', variant: 'pool-removed', rps: 900 }),
  ]
  assert.deepEqual(
    [...ownOpenRates(rows)],
    [
      [ownRateId('haproxy', '3.2.4'), { rate: 6_100, ceiling: 12_200 }],
      [ownRateId('nginx', '1.31.3'), { rate: 1_500, ceiling: 3_000 }],
    ],
  )
  assert.notEqual(ownRateId('haproxy', '3.2.4'), ownRateId('haproxy', '3.2.5'))
  assert.equal(poolingOpenRate(rows)!.rate, 500)
})

test('a ceiling becomes a rate in whole hundreds, at least 100', () => {
  assert.equal(rateAt(0.5, 961), 500)
  assert.equal(rateAt(0.5, 12_250), 6_100)
  assert.equal(rateAt(0.05, 900), 100)
})

test("a ceiling measured at one instant is the shared window's: both sides' rps of that round; a side without its twin is none", () => {
  const row = (version: string, repeat: number, rps: number, extra: Partial<Measurement> = {}) =>
    measurement({ series: 'same', proxy: 'haproxy', variant: 'article', model: 'closed', version, repeat, rps, pair_window: 'instant', ...extra })
  const now = [
    row('3.4.7', 1, 9000),
    row('3.4.7', 2, 9500),
    row('3.4.7', 3, 8000),
    measurement({ series: 'same', proxy: 'nginx', variant: 'article', model: 'closed', rps: 17000 }),
  ]
  const then = [row('2.8.25', 1, 8000), row('2.8.25', 2, 9000), row('2.8.25', 3, 7000, { status: 'invalid' })]
  const rows = withSharedCeilings(now, then)
  assert.deepEqual(
    rows.map((r) => [r.proxy, r.repeat, r.rps]),
    [
      ['haproxy', 1, 17000],
      ['haproxy', 2, 18500],
      ['nginx', 1, 17000],
    ],
  )
  // An A/A pair at one instant gives the rate a lone window would: the shared core's.
  const ceilings = poolingCeilings(rows)
  assert.equal(ceilings.find((c) => c.key.proxy === 'haproxy')!.ceiling, 17750)
})
