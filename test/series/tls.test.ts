import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { ceilings, openRate } from '../../lib/series/tls.ts'

const m = (f: Partial<Measurement>): Measurement => ({
  run_id: 'r', series: 'tls-ceiling', proxy: 'haproxy', version: '1', variant: 'pool-added', key_type: 'ec256', model: 'closed', connections: 200,
  target_rps: null, duration_s: 3, repeat: 1, requests: 1000, errors: 0, rps: 1000, p50_ms: 1, p90_ms: 1, p99_ms: 1, p999_ms: 1, max_ms: 1,
  proxy_cpu_us_per_req: 20, backend_cpu_us_per_req: 10, generator_cpu_share: 0.5, backend_conns_per_1k_req: 0, max_vus: null, dropped: null,
  status: 'valid', reason: '', proxy_cpu_share: 0.9, runtime: 'native', started_at: '', ...f,
})
test('open-model rate: a stated fraction of the slowest valid ceiling, in hundreds', () => {
  const c = ceilings([m({ proxy: 'haproxy', rps: 30_000 }), m({ proxy: 'haproxy', rps: 32_000, repeat: 2 }), m({ proxy: 'caddy', rps: 7_340 }), m({ proxy: 'caddy', rps: 100, status: 'invalid' }), m({ proxy: 'nginx', series: 'same', rps: 10 })])
  assert.deepEqual([...c], [['haproxy', 31_000], ['caddy', 7_340]])
  assert.equal(openRate(c), 1_500) // 20% of 7 340, in hundreds
  assert.equal(openRate(new Map()), null)
})
