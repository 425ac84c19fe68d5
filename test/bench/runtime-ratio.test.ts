import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { formatRatioTable, inTarget, ratioLines, spreads } from '../../lib/bench/runtime-ratio.ts'
import { checkBenchOptions } from '../../lib/bench/counts-overhead.ts'
import { measurement } from '../fixtures/rows.ts'

const row = (proxy: string, variant: string, runtime: string, us: number | null, status: Measurement['status'] = 'valid'): Measurement =>
  measurement({ proxy, version: '1.0', variant, runtime, proxy_cpu_us_per_req: us, status })

test('ratios: medians of valid repeats per runtime, divided by native', () => {
  const rows = [
    ...[100, 110, 90].map((v) => row('haproxy', 'pool-removed', 'native', v)),
    ...[120, 130, 125].map((v) => row('haproxy', 'pool-removed', 'docker-host', v)),
    ...[150, 900].map((v) => row('haproxy', 'pool-removed', 'docker-bridge', v)),
    row('haproxy', 'pool-removed', 'docker-bridge', 5000, 'invalid'),
  ]
  const [l] = ratioLines(rows)
  assert.deepEqual(l!.us, { native: 100, 'docker-host': 125, 'docker-bridge': 525 })
  assert.deepEqual(l!.n, { native: 3, 'docker-host': 3, 'docker-bridge': 2 })
  assert.equal(l!.host, 1.25)
  assert.equal(l!.bridge, 5.25)
  assert.ok(inTarget(l!.host) && inTarget(0.8) && !inTarget(1.2501) && !inTarget(0.79) && !inTarget(undefined))
})

test('no native median: no ratio', () => {
  const [l] = ratioLines([row('nginx', 'article', 'native', null), row('nginx', 'article', 'docker-host', 50)])
  assert.equal(l!.host, undefined)
  assert.equal(l!.us['docker-host'], 50)
})

test('F3 spread per mode: max/min - 1 and the largest deviation from the median', () => {
  const rows = [
    row('a', 'pool-removed', 'native', 100),
    row('b', 'pool-removed', 'native', 120),
    row('c', 'pool-removed', 'native', 250),
    row('a', 'pool-removed', 'docker-bridge', 200),
    row('b', 'pool-removed', 'docker-bridge', 220),
    row('a', 'pool-added', 'docker-host', 40),
    row('b', 'pool-added', 'docker-host', 400),
  ]
  const [native, host, bridge] = spreads(ratioLines(rows))
  assert.equal(native!.median, 120)
  assert.equal(native!.maxOverMin, 1.5)
  assert.ok(Math.abs(native!.aroundMedian - 130 / 120) < 1e-12) // c: 250/120 - 1
  assert.equal(host, null, 'pool-added rows do not count; under 2 proxies: none')
  assert.equal(bridge!.median, 210)
  assert.ok(Math.abs(bridge!.maxOverMin - 0.1) < 1e-12)
  const table = formatRatioTable(ratioLines(rows))
  assert.match(table, /native\s+max\/min-1\s+150%, ±108% around 120\.0 µs \(a 100\.0, b 120\.0, c 250\.0\)/)
  assert.match(table, /docker-bridge max\/min-1\s+10%, ±5% around 210\.0 µs/)
})

test('the table marks host ratios against 0.8-1.25', () => {
  const rows = ['native', 'docker-host', 'docker-bridge'].flatMap((rt, i) => [
    row('x', 'article', rt, [100, 130, 140][i]!),
    row('y', 'article', rt, [100, 101, 102][i]!),
  ])
  const table = formatRatioTable(ratioLines(rows))
  assert.match(table, /^x\s+1\.0\s+article\s+100\.0\s+130\.0\s+140\.0\s+1\.30 OUT\s+1\.40\s+1\/1\/1$/m)
  assert.match(table, /^y .* 1\.01 ok\s+1\.02/m)
  assert.match(table, /within 0\.8-1\.25: 1\/2 cells/)
})

test('options: an unknown variant, zero repeats or a fractional window is one line', () => {
  assert.throws(
    () => checkBenchOptions({ proxies: ['nginx'], variants: ['article', 'reuse-never'], repeats: 1, durationS: 1 }),
    (e: Error) => e.message.startsWith('--variants: nginx has no variant "reuse-never". '),
  )
  assert.throws(() => checkBenchOptions({ proxies: ['nginx'], variants: ['article'], repeats: 0, durationS: 1 }), /--repeats: "0" is not a positive integer/)
  assert.throws(() => checkBenchOptions({ proxies: ['nginx'], variants: ['article'], repeats: 1, durationS: 0.5 }), /--duration/)
  checkBenchOptions({ proxies: ['haproxy', 'nginx'], variants: ['article', 'pool-added', 'pool-removed'], repeats: 3, durationS: 3 })
})

test('lines come sorted by proxy, version and variant, whatever the measuring order', () => {
  const rows = [
    row('nginx', 'pool-removed', 'native', 1),
    row('haproxy', 'pool-added', 'native', 1),
    row('nginx', 'article', 'native', 1),
    row('haproxy', 'article', 'native', 1),
  ]
  assert.deepEqual(
    ratioLines(rows).map((l) => `${l.proxy} ${l.variant}`),
    ['haproxy article', 'haproxy pool-added', 'nginx article', 'nginx pool-removed'],
  )
})
