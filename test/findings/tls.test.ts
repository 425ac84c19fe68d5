import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Handshake, Measurement } from '../../lib/data/schema.ts'
import { tlsFindings } from '../../lib/findings/tls.ts'

const m = (f: Partial<Measurement>): Measurement => ({
  run_id: 'r', series: 'tls-ceiling', proxy: 'haproxy', version: '1', variant: 'pool-added', key_type: 'ec256', model: 'closed', connections: 200,
  target_rps: null, duration_s: 3, repeat: 1, requests: 1000, errors: 0, rps: 1000, p50_ms: 1, p90_ms: 1, p99_ms: 1, p999_ms: 1, max_ms: 1,
  proxy_cpu_us_per_req: 20, backend_cpu_us_per_req: 10, generator_cpu_share: 0.5, backend_conns_per_1k_req: 0, max_vus: null, dropped: null,
  status: 'valid', reason: '', proxy_cpu_share: 0.9, runtime: 'native', started_at: '', ...f,
})
const h = (proxy: string, key_type: string, cost: number, f: Partial<Handshake> = {}): Handshake => ({
  run_id: 'r', series: 'tls-handshake', proxy, version: '1', variant: 'pool-added', key_type, connections: 4, duration_s: 3, repeat: 1,
  handshakes: 1000, resumed: 0, errors: 0, rate: 300, p50_ms: 1, p99_ms: 2, proxy_cpu_us_per_handshake: cost, generator_cpu_share: 0.5, proxy_cpu_share: 0.9,
  status: 'valid', reason: '', runtime: 'native', started_at: '', ...f,
})

test('F5: key-type ratio per proxy and Go vs OpenSSL on rsa4096', () => {
  const hs = [h('haproxy', 'ec256', 300), h('haproxy', 'rsa4096', 4000), h('nginx', 'ec256', 320), h('nginx', 'rsa4096', 4200), h('caddy', 'ec256', 350), h('caddy', 'rsa4096', 8000), h('caddy', 'rsa4096', 99_999, { repeat: 2, status: 'invalid', resumed: 5 })]
  const [ratio, go] = tlsFindings(hs, [])
  assert.equal(ratio!.verdict, 'held')
  assert.equal(ratio!.figure, 'caddy 350 → 8000 µs (22.9x), haproxy 300 → 4000 µs (13.3x), nginx 320 → 4200 µs (13.1x)')
  assert.equal(go!.verdict, 'held')
  assert.equal(go!.figure, 'caddy 1.95x of 4100 µs')
  const weak = tlsFindings([h('haproxy', 'ec256', 700), h('haproxy', 'rsa4096', 5000)], [])
  assert.equal(weak[0]!.verdict, 'not held')
  assert.equal(weak[1]!.verdict, 'not measured')
})

test('F6: ec256 holds and the Go proxies collapse with rsa4096; calibration names the failing step', () => {
  const open = (proxy: string, key_type: string, f: Partial<Measurement>) => m({ series: 'tls-open', model: 'open', proxy, key_type, target_rps: 3700, connections: 1000, requests: 11_000, max_vus: 20, dropped: 0, ...f })
  const rows = [
    open('haproxy', 'ec256', {}), open('haproxy', 'rsa4096', { max_vus: 300, dropped: 10 }),
    open('traefik', 'ec256', {}), open('traefik', 'rsa4096', { max_vus: 1000, dropped: 5000, status: 'invalid', reason: 'errors' }),
    m({ series: 'tls-ceiling', proxy: 'haproxy', rps: 30_000 }),
    m({ series: 'tls-calibration', model: 'open', target_rps: 7500, rps: 7490, proxy_cpu_share: 0.3, generator_cpu_share: 0.5 }),
    m({ series: 'tls-calibration', model: 'open', target_rps: 15_000, rps: 12_000, requests: 12_000, dropped: 3000, proxy_cpu_share: 0.52, generator_cpu_share: 0.97 }),
  ]
  const [, , f6, calib] = tlsFindings([], rows)
  assert.equal(f6!.verdict, 'held')
  assert.match(f6!.figure, /traefik ec256 0\.0% failed, 20 VUs \/ rsa4096 [\d.]+% failed, 1000 VUs/)
  assert.equal(calib!.verdict, 'info')
  assert.equal(calib!.figure, 'haproxy fails at 15000 rps (achieved 12000, 20.0% failed) with the proxy at 52% CPU and the generator at 97%; closed model: 30000 rps')
})
