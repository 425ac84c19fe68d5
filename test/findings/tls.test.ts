import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Handshake, Measurement } from '../../lib/data/schema.ts'
import { tlsFindings } from '../../lib/findings/tls.ts'
import { handshake, measurement } from '../fixtures/rows.ts'

const m = (f: Partial<Measurement>): Measurement => measurement({ series: 'tls-ceiling', variant: 'pool-added', ...f })
const h = (proxy: string, key_type: string, cost: number, f: Partial<Handshake> = {}): Handshake =>
  handshake({ proxy, key_type, proxy_cpu_us_per_handshake: cost, ...f })

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
