import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { ceilings, openRate } from '../../lib/series/tls.ts'
import { measurement } from '../fixtures/rows.ts'

const m = (f: Partial<Measurement>): Measurement => measurement({ series: 'tls-ceiling', variant: 'pool-added', ...f })

test('open-model rate: a stated fraction of the slowest valid ceiling, in hundreds', () => {
  const c = ceilings([m({ proxy: 'haproxy', rps: 30_000 }), m({ proxy: 'haproxy', rps: 32_000, repeat: 2 }), m({ proxy: 'caddy', rps: 7_340 }), m({ proxy: 'caddy', rps: 100, status: 'invalid' }), m({ proxy: 'nginx', series: 'same', rps: 10 })])
  assert.deepEqual([...c], [['haproxy', 31_000], ['caddy', 7_340]])
  assert.equal(openRate(c), 1_500) // 20% of 7 340, in hundreds
  assert.equal(openRate(new Map()), null)
})
