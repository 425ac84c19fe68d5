import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { ceilingCells, ceilings, openRate } from '../../lib/series/tls.ts'
import { measurement } from '../fixtures/rows.ts'

const m = (f: Partial<Measurement>): Measurement => measurement({ series: 'tls-ceiling', variant: 'pool-added', ...f })

test('open-model rate: a stated fraction of the slowest valid ceiling, in hundreds', () => {
  const c = ceilings([m({ proxy: 'haproxy', rps: 30_000 }), m({ proxy: 'haproxy', rps: 32_000, repeat: 2 }), m({ proxy: 'caddy', rps: 7_340 }), m({ proxy: 'caddy', rps: 100, status: 'invalid' }), m({ proxy: 'nginx', series: 'same', rps: 10 })])
  assert.deepEqual([...c], [['haproxy', 31_000], ['caddy', 7_340]])
  assert.equal(openRate(c), 1_500) // 20% of 7 340, in hundreds
  assert.equal(openRate(new Map()), null)
})

test('tls-ceiling: EC-256 for every proxy, RSA-2048 for seed 004 pair; the open-model rate reads EC-256 only', () => {
  const cells = ceilingCells(['haproxy', 'nginx', 'caddy'], 200)
  assert.deepEqual(cells.map((c) => `${c.proxy} ${c.keyType}`), ['haproxy ec256', 'nginx ec256', 'caddy ec256', 'haproxy rsa2048', 'nginx rsa2048'])
  // An RSA-2048 ceiling, however low, never sets the EC-256 open-model rate.
  const c = ceilings([m({ proxy: 'haproxy', rps: 30_000 }), m({ proxy: 'haproxy', key_type: 'rsa2048', rps: 900 })])
  assert.deepEqual([...c], [['haproxy', 30_000]])
})
