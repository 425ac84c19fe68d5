import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { f3Figure, formatHostsComparison, hostsLines } from '../../lib/bench/multihost.ts'
import { measurement, two } from '../fixtures/rows.ts'

const cell = (proxy: string, variant: string, cpu: number, extra: Partial<Measurement> = {}): Measurement[] =>
  two(measurement, { proxy, variant, ...extra }, 'proxy_cpu_us_per_req', cpu)

const one = [...cell('haproxy', 'pool-removed', 100, { generator_cpu_share: 0.6 }), ...cell('nginx', 'pool-removed', 110, { generator_cpu_share: 0.5 })]
const many = [
  ...cell('haproxy', 'pool-removed', 120, { generator_cpu_share: 0.3 }),
  ...cell('nginx', 'pool-removed', 143, { generator_cpu_share: 0.2 }),
  // Invalid rows count for nothing; an open-model row is not a pooling cell.
  measurement({ proxy: 'haproxy', variant: 'pool-removed', repeat: 3, proxy_cpu_us_per_req: 900, status: 'invalid', reason: 'disturbed' }),
  measurement({ proxy: 'haproxy', variant: 'pool-removed', repeat: 4, proxy_cpu_us_per_req: 900, model: 'open' }),
]

test('per cell: both medians, several/one with its interval, the generator share of each, valid repeats', () => {
  const lines = hostsLines(one, many)
  assert.deepEqual(
    lines.map((l) => [l.proxy, l.one, l.many, Number(l.ratio!.value.toFixed(2)), l.genOne, l.genMany, l.n]),
    [
      ['haproxy', 100, 120, 1.2, 0.6, 0.3, [2, 2]],
      ['nginx', 110, 143, 1.3, 0.5, 0.2, [2, 2]],
    ],
  )
})

test('a cell only one run measured has no ratio', () => {
  const lines = hostsLines(one, cell('haproxy', 'pool-removed', 120))
  const nginx = lines.find((l) => l.proxy === 'nginx')!
  assert.equal(nginx.ratio, undefined)
  assert.equal(nginx.many, undefined)
  assert.deepEqual(nginx.n, [2, 0])
})

test("F3 as each run's findings state it; one proxy is not measured", () => {
  assert.match(f3Figure(one), /^haproxy 100\.0, nginx 110\.0 µs\/req; ±/)
  assert.equal(f3Figure(cell('haproxy', 'pool-removed', 100)), '')
  const text = formatHostsComparison(one, many, { one: 125, many: 61 })
  assert.match(text, /median over 2 cells 1\.25 \(range 1\.20-1\.30\)/)
  assert.match(text, /generator CPU share, median over cells: one host 55%, three hosts 25%/)
  assert.match(text, /wall time of the series: one host 2m05s, three hosts 1m01s/)
  assert.match(text, /F3 pool-removed spread, three hosts: haproxy 120\.0, nginx 143\.0/)
})
