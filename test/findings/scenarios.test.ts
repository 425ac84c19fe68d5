import assert from 'node:assert/strict'
import { test } from 'node:test'
import { scenarioFindings, scenarioRatios } from '../../lib/findings/scenarios.ts'
import { measurement } from '../fixtures/rows.ts'

/** Two rounds of a scenarios cell: values v*0.99 and v*1.01 (rps the other way). */
const cell = (
  proxy: string,
  variant: string,
  cost: number,
  o: { path?: string; body_bytes?: number; connections?: number; scheme?: 'http' | 'https'; rps?: number } = {},
) =>
  [0.99, 1.01].map((k, i) =>
    measurement({
      series: 'scenarios',
      proxy,
      variant,
      repeat: i + 1,
      connections: o.connections ?? 200,
      path: o.path ?? '/',
      body_bytes: o.body_bytes ?? null,
      scheme: o.scheme ?? 'https',
      ...(proxy === 'direct' ? { proxy_cpu_us_per_req: null, backend_cpu_us_per_req: cost * k } : { proxy_cpu_us_per_req: cost * k }),
      rps: (o.rps ?? 10000) / k,
    }),
  )

const rows = [
  ...cell('direct', 'direct', 10, { scheme: 'http' }),
  ...cell('direct', 'direct', 15, { scheme: 'http', path: '/json', body_bytes: 10240 }),
  ...cell('haproxy', 'pool-added', 30),
  ...cell('haproxy', 'http', 12, { scheme: 'http' }),
  ...cell('haproxy', 'logging', 33, { rps: 9000 }),
  ...cell('haproxy', 'pool-added', 45, { path: '/json', body_bytes: 10240 }),
  ...cell('haproxy', 'http', 13.2, { scheme: 'http', connections: 1000 }),
  // Another series' pool-added row is never a scenarios reference.
  measurement({ series: 'pool-added', proxy: 'haproxy', variant: 'pool-added', proxy_cpu_us_per_req: 999 }),
  // An invalid row does not count.
  measurement({ series: 'scenarios', proxy: 'haproxy', variant: 'http', repeat: 3, proxy_cpu_us_per_req: 1, status: 'invalid', reason: 'x', scheme: 'http' }),
]

test('each scenario is a ratio of medians over valid rows of the same series, with its paired interval', () => {
  const r = scenarioRatios(rows)
  const get = (kind: string, proxy: string, metric = 'proxy_cpu_us_per_req') => r.find((x) => x.kind === kind && x.proxy === proxy && x.metric === metric)!
  assert.equal(get('https-http', 'haproxy').interval.value, 2.5)
  assert.equal(get('https-http', 'haproxy').interval.method, 'paired bootstrap')
  assert.deepEqual(get('https-http', 'haproxy').n, [2, 2])
  assert.equal(get('logging', 'haproxy').interval.value, 1.1)
  assert.ok(Math.abs(get('logging', 'haproxy', 'rps').interval.value - 9000 / 10000) < 1e-9, 'rps on / off, as the title and the CPU ratio')
  assert.equal(get('json', 'haproxy').interval.value, 1.5)
  assert.equal(get('json', 'haproxy').numerator, 'pool-added /json?size=10240, 200 conns')
  assert.ok(Math.abs(get('conns', 'haproxy').interval.value - 1.1) < 1e-9)
  assert.equal(get('json', 'direct', 'backend_cpu_us_per_req').interval.value, 1.5)
  assert.equal(r.filter((x) => x.proxy === 'direct').length, 1, 'the direct row has no TLS and no log')
})

test("findings S1-S4 are info figures, one per scenario, with every proxy's interval", () => {
  const f = scenarioFindings(rows)
  assert.deepEqual(
    f.map((x) => [x.id, x.verdict]),
    [
      ['S1', 'info'],
      ['S2', 'info'],
      ['S3', 'info'],
      ['S4', 'info'],
    ],
  )
  assert.match(f[0]!.figure, /^haproxy proxy CPU\/req 2\.50x \[/)
  assert.equal(f[1]!.intervals!.length, 2)
  assert.match(f[2]!.figure, /haproxy proxy CPU\/req \/json\?size=10240 200 conns 1\.50x/)
  assert.deepEqual(scenarioFindings(rows.filter((x) => x.series !== 'scenarios')), [])
})
