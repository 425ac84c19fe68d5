import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Handshake, Measurement } from '../../lib/data/schema.ts'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { findingsFor } from '../../lib/findings/index.ts'
import { tlsFindings } from '../../lib/findings/tls.ts'
import { evaluateClaims } from '../../lib/claims/evaluate.ts'
import { fmt } from '../../lib/claims/words.ts'
import { validButForErrors } from '../../lib/data/open-outcome.ts'
import { handshake, measurement, two } from '../fixtures/rows.ts'
import { fixtureTables } from '../fixtures/run.ts'

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

/** F6's lines through the tls series: the ledger group first, then the half-rate and calibration figures. */
const f6 = (rows: Measurement[]) => findingsFor({ measurements: rows, handshakes: [], websocket: [] }, ['tls'], { ledger }).filter((f) => f.id === 'F6')
const PROXIES = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
/** Every proxy's EC-256 cell fast, the Go proxies' RSA-4096 cells as given (collapsed by default). */
const seedRate = (rsa: Partial<Measurement> = collapsed, ec: Record<string, Partial<Measurement>> = {}) => [
  ...PROXIES.map((p) => open(p, 'ec256', ec[p] ?? {})),
  ...['traefik', 'caddy'].map((p) => open(p, 'rsa4096', rsa)),
]

test('F6: ec256 holds and the Go proxies collapse with rsa4096 (the ledger group); calibration names the failing step', () => {
  const rows = [
    ...seedRate(),
    open('haproxy', 'rsa4096', { max_vus: 300, dropped: 10 }),
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
  const [line, calib] = f6(rows)
  assert.equal(line!.verdict, 'held', line!.figure)
  assert.match(
    line!.figure,
    /traefik: ec256 at 3700 rps: 0% failed \(errors \+ dropped\) of attempts, 20 VUs.*open-model-rsa4096-collapses-go: traefik: rsa4096 at 3700 rps: [\d.]+% failed \(errors \+ dropped\) of attempts, 1000 VUs/,
  )
  assert.equal(calib!.verdict, 'info')
  assert.equal(
    calib!.figure,
    'haproxy fails at 15000 rps (achieved 12000, 20% failed (errors + dropped) of attempts) with the proxy at 52% CPU and the generator at 97%; closed model: 30000 rps',
  )
  // A Go proxy whose RSA-4096 cell keeps up: not held.
  assert.equal(f6(seedRate({ max_vus: 30 }))[0]!.verdict, 'not held')
  // Fewer proxies than the claim names: "every proxy" is not decided on a subset.
  assert.equal(f6(seedRate().filter((r) => r.proxy !== 'nginx'))[0]!.verdict, 'inconclusive')
})

test('F6: collapse and holding are judged on the median repeat, not the worst; an even split is inconclusive', () => {
  const line = (traefikEc: Partial<Measurement>[]) =>
    f6([
      ...seedRate().filter((r) => !(r.proxy === 'traefik' && r.key_type === 'ec256')),
      ...traefikEc.map((f, i) => open('traefik', 'ec256', { repeat: i + 1, ...f })),
    ])[0]!
  // One bad repeat out of three: the median repeat holds.
  assert.equal(line([{}, { max_vus: 900, dropped: 600 }, {}]).verdict, 'held')
  assert.equal(line([{ max_vus: 900, dropped: 600 }, { max_vus: 900, dropped: 600 }, {}]).verdict, 'not held')
  const split = line([{}, { max_vus: 900, dropped: 600 }])
  assert.equal(split.verdict, 'inconclusive')
  assert.match(split.figure, /repeats split/)
})

test('F6: nothing usable is not measured, never a vacuous held', () => {
  const saturated = { status: 'invalid', reason: 'generator saturated: 95% of its cpuset >= 90%' } as const
  const none = [
    ...PROXIES.map((p) => open(p, 'ec256', saturated)),
    ...['traefik', 'caddy'].map((p) => open(p, 'rsa4096', { status: 'failed', reason: 'proxy did not start' })),
  ]
  assert.equal(f6(none)[0]!.verdict, 'not measured')
  // A row with the error rate and another fault is left out too.
  const mixed = seedRate({ ...collapsed, reason: 'errors 31.2% >= 1%; generator saturated: 95% of its cpuset >= 90%' })
  assert.equal(f6(mixed)[0]!.verdict, 'inconclusive', 'ec256 held, the Go collapse was not measured')
})

test('F6: dropped iterations and a missed rate are the collapse itself; a disturbed window is not', () => {
  const droppedOnly = { max_vus: 1000, dropped: 5000, status: 'invalid', reason: 'dropped 31.2% >= 1%; achieved 2550 rps < target 3700 rps' } as const
  assert.equal(f6(seedRate(droppedOnly))[0]!.verdict, 'held')
  const disturbed = { ...droppedOnly, reason: `disturbed: steal 0.0% / foreign CPU 40% on the proxy's cores; ${droppedOnly.reason}` }
  assert.equal(f6(seedRate(disturbed))[0]!.verdict, 'inconclusive', 'the collapse was not measured')
})

test('F6 judges the seed-fraction rate (tls-open); the half-ceiling rows (tls-open-half) are an info line of their own', () => {
  const half = (proxy: string, key_type: string, repeat: number) =>
    open(proxy, key_type, {
      series: 'tls-open-half',
      target_rps: 4500,
      repeat,
      requests: 2_000,
      errors: 8_000,
      max_vus: 1000,
      status: 'invalid',
      reason: 'errors 80.0% >= 1%',
    })
  const seed = [1, 2].flatMap((repeat) => seedRate().map((r) => ({ ...r, repeat })))
  // At half the ceiling even EC-256 collapses: recorded, never turning the seed-rate verdict.
  const rows = [...seed, ...[1, 2].flatMap((r) => [half('traefik', 'ec256', r), half('traefik', 'rsa4096', r)])]
  const [line, halfLine] = f6(rows)
  assert.equal(line!.verdict, 'held', line!.figure)
  assert.match(line!.figure, /at 3700 rps/)
  assert.equal(halfLine!.verdict, 'info')
  assert.match(halfLine!.title, /half HAProxy's ceiling, 4500 rps/)
  assert.match(halfLine!.figure, /traefik ec256 80% failed \(errors \+ dropped\) of attempts, 1,?000 VUs/)
  assert.equal(f6(seed).length, 2, 'no half-rate line without its rows (the group and the calibration line stay)')
  assert.equal(tlsFindings(seed).length, 1, 'the rows give only the calibration line; the judged line is the ledger group')
})

// One cell, two shares (issue 52): F6's line and the April claim read Traefik's RSA-4096 open cell at the
// tls-open rate through one row rule (rows: open); F6 counts dropped iterations as failed over every attempt,
// the April claim errors over the requests sent (k6's http_req_failed), and each figure names its share.
test('F6 and april-traefik-cannot-handle-load: the same repeats of one cell, each share named', () => {
  const run = fixtureTables()
  const april = evaluateClaims(ledger, run).find((r) => r.id === 'april-traefik-cannot-handle-load')!
  const collapse = findingsFor(run, ['tls'], { ledger }).find((f) => f.id === 'F6' && /rsa4096 collapses/.test(f.title))!
  const rows = run.measurements.filter((r) => r.series === 'tls-open' && r.proxy === 'traefik' && r.key_type === 'rsa4096' && validButForErrors(r))
  assert.deepEqual(
    april.evidence.map((e) => e.n),
    [rows.length],
    'the rows F6 reads',
  )
  const median = (f: (r: Measurement) => number) => {
    const v = rows.map(f).sort((a, b) => a - b)
    return (v[(v.length - 1) >> 1]! + v[v.length >> 1]!) / 2
  }
  const failed = median((r) => (100 * (r.errors! + r.dropped!)) / (r.requests + r.errors! + r.dropped!))
  const errors = median((r) => (100 * r.errors!) / (r.requests + r.errors!))
  assert.ok(collapse.figure.includes(`traefik: rsa4096 at 2700 rps: ${fmt(failed)}% failed (errors + dropped) of attempts`), collapse.figure)
  assert.ok(april.measured.startsWith(`traefik pool-added tls-open rsa4096 open@2700: ${fmt(errors)}% [`), april.measured)
  assert.match(april.measured, /\] errors of requests sent; wanted >= 1$/)
})
