import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { formatFindings } from '../../lib/findings/format.ts'
import { poolingFindings } from '../../lib/findings/pooling.ts'
import { measurement, two } from '../fixtures/rows.ts'

const row = (proxy: string, variant: string, cpu: number, conns: number, extra: Partial<Measurement> = {}): Measurement[] =>
  two(measurement, { proxy, variant, backend_conns_per_1k_req: conns, ...extra }, 'proxy_cpu_us_per_req', cpu)

const reuse = (proxy: string, variant: string, version: string) =>
  proxy === 'nginx' ? ['pool-added', 'upstream-keepalive'].includes(variant) || (variant === 'upstream-default' && version === '1.31.3') : !['pool-removed', 'server-close'].includes(variant)

const rows = [
  ...row('haproxy', 'article', 20, 0), ...row('haproxy', 'pool-added', 19, 0), ...row('haproxy', 'pool-removed', 60, 1000),
  ...row('haproxy', 'reuse-never', 21, 0), ...row('haproxy', 'server-close', 62, 1000),
  ...row('nginx', 'article', 70, 1000, { version: '1.31.3' }), ...row('nginx', 'pool-added', 22, 1, { version: '1.31.3' }), ...row('nginx', 'pool-removed', 66, 1000, { version: '1.31.3' }),
  ...row('nginx', 'literal', 70, 1000, { version: '1.31.3' }), ...row('nginx', 'upstream-default', 30, 2, { version: '1.31.3' }),
  ...row('nginx', 'literal', 50, 1000, { version: '1.22.1' }), ...row('nginx', 'upstream-default', 51, 1000, { version: '1.22.1' }),
]

test('findings hold on data shaped like the seed', () => {
  const f = poolingFindings(rows, reuse)
  const by = Object.fromEntries(f.map((x) => [x.id, x]))
  assert.equal(by.F1!.verdict, 'held')
  assert.equal(by.F1!.figure, 'haproxy 20.0 (0 conns/1k) < nginx 70.0 (1000 conns/1k) µs/req')
  assert.equal(by.F2!.verdict, 'held')
  assert.match(by.F2!.figure, /haproxy 3\.16x, nginx 3\.00x; nginx article\/pool-removed 1\.06/)
  assert.equal(by.F3!.verdict, 'info')
  assert.equal(by.F4!.verdict, 'held')
  assert.equal(by.F7!.verdict, 'held')
  assert.match(by.F7!.figure, /1\.22\.1: upstream-default\/literal 1\.02, 1\.31\.3: upstream-default\/literal 0\.43/)
  assert.equal(by.pool!.verdict, 'held')
  assert.equal(by.cv!.verdict, 'held')
})

test('a finding that does not hold says so with its figure; invalid rows are ignored', () => {
  const bad = rows.map((r) => (r.proxy === 'haproxy' && r.variant === 'server-close' ? { ...r, proxy_cpu_us_per_req: 25 } : r))
  bad.push(measurement({ variant: 'reuse-never', repeat: 3, proxy_cpu_us_per_req: 500, status: 'invalid', reason: 'errors 5% >= 1%' }))
  const f4 = poolingFindings(bad, reuse).find((x) => x.id === 'F4')!
  assert.equal(f4.verdict, 'not held')
  assert.equal(f4.figure, 'reuse-never/article 1.05, server-close/article 1.25')
})

test('nothing measured: every finding says not measured, none claims to hold', () => {
  const f = poolingFindings([], reuse)
  assert.ok(f.every((x) => x.verdict === 'not measured'), JSON.stringify(f))
  assert.match(formatFindings(f), /- F1 same configs/)
})

test('the pool detector finding names cells that contradict the documentation', () => {
  const wrong = rows.map((r) => (r.variant === 'upstream-default' && r.version === '1.31.3' ? { ...r, backend_conns_per_1k_req: 480 } : r))
  const pool = poolingFindings(wrong, reuse).find((x) => x.id === 'pool')!
  assert.equal(pool.verdict, 'not held')
  assert.equal(pool.figure, 'nginx 1.31.3 upstream-default: 480')
})
