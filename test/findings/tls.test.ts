import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Handshake, Measurement } from '../../lib/data/schema.ts'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { findingsFor } from '../../lib/findings/index.ts'
import { tlsFindings } from '../../lib/findings/tls.ts'
import { handshake, measurement, two } from '../fixtures/rows.ts'

const m = (f: Partial<Measurement>): Measurement => measurement({ series: 'tls-ceiling', variant: 'pool-added', ...f })
/** Two interleaved repeats of a handshake cell (median = cost). */
const h = (proxy: string, key_type: string, cost: number): Handshake[] => two(handshake, { proxy, key_type }, 'proxy_cpu_us_per_handshake', cost)

const ledger = loadLedger()
/** F5's two lines: groups of ledger claims (baselines/published/findings.yaml), read through the tls series. */
const f5 = (hs: Handshake[]) => findingsFor({ measurements: [], handshakes: hs, websocket: [] }, ['tls'], { ledger }).filter((f) => f.id === 'F5')

test('F5: key-type ratio per proxy and Go vs the OpenSSL/BoringSSL median on rsa4096, from the ledger, with intervals', () => {
  const hs = [
    ...h('haproxy', 'ec256', 300),
    ...h('haproxy', 'rsa4096', 4000),
    ...h('nginx', 'ec256', 320),
    ...h('nginx', 'rsa4096', 4200),
    ...h('envoy', 'ec256', 310),
    ...h('envoy', 'rsa4096', 4100),
    ...h('traefik', 'ec256', 340),
    ...h('traefik', 'rsa4096', 7800),
    ...h('caddy', 'ec256', 350),
    ...h('caddy', 'rsa4096', 8000),
    handshake({ proxy: 'caddy', key_type: 'rsa4096', repeat: 3, proxy_cpu_us_per_handshake: 99_999, status: 'invalid', resumed: 5 }),
  ]
  const [ratio, go] = f5(hs)
  assert.equal(ratio!.verdict, 'held', ratio!.figure)
  assert.match(ratio!.figure, /^caddy 22\.9 \[[\d.]+, [\d.]+\], .*haproxy 13\.3 \[[\d.]+, [\d.]+\], /)
  assert.equal(go!.verdict, 'held', go!.figure)
  assert.match(go!.figure, /^caddy 1\.95 \[[\d.]+, [\d.]+\], traefik [\d.]+ \[[\d.]+, [\d.]+\]$/)
  const weak = f5([...h('haproxy', 'ec256', 700), ...h('haproxy', 'rsa4096', 5000)])
  assert.equal(weak[0]!.verdict, 'not held')
  assert.equal(weak[1]!.verdict, 'not measured')
  // One proxy measured: "for every proxy" is not held on it alone.
  assert.equal(f5([...h('haproxy', 'ec256', 300), ...h('haproxy', 'rsa4096', 4000)])[0]!.verdict, 'inconclusive')
  const single = f5([handshake({ key_type: 'ec256', proxy_cpu_us_per_handshake: 300 }), handshake({ key_type: 'rsa4096', proxy_cpu_us_per_handshake: 4000 })])
  assert.equal(single[0]!.verdict, 'inconclusive', 'one repeat decides nothing')
})

const open = (proxy: string, key_type: string, f: Partial<Measurement> = {}) =>
  m({ series: 'tls-open', model: 'open', proxy, key_type, target_rps: 3700, connections: 1000, requests: 11_000, max_vus: 20, dropped: 0, ...f })
const collapsed = { max_vus: 1000, dropped: 5000, status: 'invalid', reason: 'errors 31.2% >= 1%' } as const

test('F6: ec256 holds and the Go proxies collapse with rsa4096; calibration names the failing step', () => {
  const rows = [
    open('haproxy', 'ec256'),
    open('haproxy', 'rsa4096', { max_vus: 300, dropped: 10 }),
    open('traefik', 'ec256'),
    open('traefik', 'rsa4096', collapsed),
    m({ series: 'tls-ceiling', proxy: 'haproxy', rps: 30_000 }),
    m({ series: 'tls-calibration', model: 'open', target_rps: 7500, rps: 7490, proxy_cpu_share: 0.3, generator_cpu_share: 0.5 }),
    m({
      series: 'tls-calibration',
      model: 'open',
      target_rps: 15_000,
      rps: 12_000,
      requests: 12_000,
      dropped: 3000,
      proxy_cpu_share: 0.52,
      generator_cpu_share: 0.97,
    }),
  ]
  const [f6, calib] = tlsFindings(rows)
  assert.equal(f6!.verdict, 'held')
  assert.match(
    f6!.figure,
    /traefik ec256 0\.0% failed, 20 VUs \/ rsa4096 [\d.]+% failed, 1000 VUs \(median repeat; valid rows and rows invalid only because requests failed: errors, dropped iterations, a rate not reached\)$/,
  )
  assert.equal(calib!.verdict, 'info')
  assert.equal(
    calib!.figure,
    'haproxy fails at 15000 rps (achieved 12000, 20.0% failed) with the proxy at 52% CPU and the generator at 97%; closed model: 30000 rps',
  )
})

test('F6: collapse and holding are judged on the median repeat, not the worst; an even split is inconclusive', () => {
  const f6 = (ec: Partial<Measurement>[]) =>
    tlsFindings([
      ...ec.map((f, i) => open('traefik', 'ec256', { repeat: i + 1, ...f })),
      ...[1, 2, 3].map((repeat) => open('traefik', 'rsa4096', { repeat, ...collapsed })),
    ])[0]!
  // One bad repeat out of three: the median repeat holds.
  assert.equal(f6([{}, { max_vus: 900, dropped: 600 }, {}]).verdict, 'held')
  assert.equal(f6([{ max_vus: 900, dropped: 600 }, { max_vus: 900, dropped: 600 }, {}]).verdict, 'not held')
  const split = f6([{}, { max_vus: 900, dropped: 600 }])
  assert.equal(split.verdict, 'inconclusive')
  assert.match(split.figure, /repeats split/)
})

test('F6: nothing usable is not measured, never a vacuous held', () => {
  const saturated = { status: 'invalid', reason: 'generator saturated: 95% of its cpuset >= 90%' } as const
  const rows = [open('traefik', 'ec256', saturated), open('traefik', 'rsa4096', { status: 'failed', reason: 'proxy did not start' })]
  const [f6] = tlsFindings(rows)
  assert.equal(f6!.verdict, 'not measured')
  // A row with the error rate and another fault is left out too.
  const mixed = tlsFindings([
    open('traefik', 'ec256'),
    open('traefik', 'rsa4096', { ...collapsed, reason: 'errors 31.2% >= 1%; generator saturated: 95% of its cpuset >= 90%' }),
  ])[0]!
  assert.equal(mixed.verdict, 'inconclusive', 'ec256 held, the Go collapse was not measured')
})

test('F6: dropped iterations and a missed rate are the collapse itself; a disturbed window is not', () => {
  const droppedOnly = { max_vus: 1000, dropped: 5000, status: 'invalid', reason: 'dropped 31.2% >= 1%; achieved 2550 rps < target 3700 rps' } as const
  assert.equal(tlsFindings([open('traefik', 'ec256'), open('traefik', 'rsa4096', droppedOnly)])[0]!.verdict, 'held')
  const disturbed = { ...droppedOnly, reason: `disturbed: steal 0.0% / foreign CPU 40% on the proxy's cores; ${droppedOnly.reason}` }
  assert.equal(tlsFindings([open('traefik', 'ec256'), open('traefik', 'rsa4096', disturbed)])[0]!.verdict, 'inconclusive', 'the collapse was not measured')
})

test('F6 judges the seed-fraction rate (tls-open); the half-ceiling rows (tls-open-half) are an info line of their own', async () => {
  const { tlsFindings } = await import('../../lib/findings/tls.ts')
  const { measurement } = await import('../fixtures/rows.ts')
  const row = (series: string, proxy: string, key_type: 'ec256' | 'rsa4096', target_rps: number, failed: boolean, repeat: number) =>
    measurement({
      series,
      model: 'open',
      variant: 'pool-added',
      proxy,
      key_type,
      target_rps,
      connections: 1000,
      requests: failed ? 2_000 : 10_000,
      errors: failed ? 8_000 : 0,
      dropped: 0,
      max_vus: failed ? 1000 : 20,
      repeat,
      status: failed ? 'invalid' : 'valid',
      reason: failed ? 'errors 80.0% >= 1%' : '',
    })
  const rows = [1, 2].flatMap((r) => [
    row('tls-open', 'traefik', 'ec256', 600, false, r),
    row('tls-open', 'traefik', 'rsa4096', 600, true, r),
    // At half the ceiling even EC-256 collapses: recorded, never turning the seed-rate verdict.
    row('tls-open-half', 'traefik', 'ec256', 4500, true, r),
    row('tls-open-half', 'traefik', 'rsa4096', 4500, true, r),
  ])
  const f6 = tlsFindings(rows).filter((f) => f.id === 'F6')
  assert.equal(f6[0]!.verdict, 'held')
  assert.match(f6[0]!.title, /at 600 rps/)
  assert.equal(f6[1]!.verdict, 'info')
  assert.match(f6[1]!.title, /half HAProxy's ceiling, 4500 rps/)
  assert.match(f6[1]!.figure, /traefik ec256 80\.0% failed, 1,?000 VUs/)
  assert.equal(
    tlsFindings(rows.filter((r) => r.series === 'tls-open')).filter((f) => f.id === 'F6').length,
    2,
    'no half-rate line without its rows (the calibration line stays)',
  )
})
