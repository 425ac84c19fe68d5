import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { costLines, formatCostLines } from '../../lib/bench/reference-cost.ts'

const row = (proxy: string, cost: number, ref: boolean, status: Measurement['status'] = 'valid') =>
  ({
    proxy,
    variant: proxy === 'direct' ? 'direct' : 'article',
    status,
    proxy_cpu_us_per_req: proxy === 'direct' ? null : cost,
    backend_cpu_us_per_req: proxy === 'direct' ? cost : 5,
    runtime: ref ? 'B' : 'A',
    reference_kind: ref ? 'rtt@1000/s' : '',
    reference_cpu_share: ref ? 0.05 : null,
    proxy_cpu_per_reference: ref ? cost / 50 : null,
  }) as unknown as Measurement

test('with / without the reference per cell, the direct row by its backend cost, invalid rows left out', () => {
  const lines = costLines([
    row('haproxy', 20, false),
    row('haproxy', 22, true),
    row('haproxy', 18, false),
    row('haproxy', 99, true, 'invalid'),
    row('direct', 10, false),
    row('direct', 11, true),
  ])
  assert.deepEqual(
    lines.map((l) => [l.cell, l.without, l.with, l.n]),
    [
      ['haproxy article', 19, 22, [2, 1]],
      ['direct direct', 10, 11, [1, 1]],
    ],
  )
  assert.ok(Math.abs(lines[0]!.ratio! - 22 / 19) < 1e-12)
  assert.equal(lines[0]!.share, 0.05)
  assert.equal(lines[0]!.referenceRatio, null, 'A has no reference here')
  assert.match(
    formatCostLines(lines),
    /median ratio with the reference\/without over 2 cells: raw 1\.129 \(within ±15%: 1\/2\), direct-row unit 1\.053 \(1\/1\)/,
  )
})
