import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import type { WebSocketRow } from '../../lib/data/schema.ts'
import { findingsFor, type Finding } from '../../lib/findings/index.ts'
import { two, websocketRow } from '../fixtures/rows.ts'

// F8's four lines are groups of ledger claims (baselines/published/findings.yaml): read through the ws series.
const ledger = loadLedger()
const wsFindings = (rows: WebSocketRow[]): Finding[] => findingsFor({ measurements: [], handshakes: [], websocket: rows }, ['ws'], { ledger })

const FIVE = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
const w = (proxy: string, variant: string, mode: 'echo' | 'hold', f: Partial<WebSocketRow> = {}): WebSocketRow => {
  const conns = mode === 'echo' ? 200 : 5000
  return websocketRow({
    series: `ws-${mode}`,
    proxy,
    variant,
    mode,
    conns_target: conns,
    conns_established: conns,
    p99_ms: 2,
    survived: mode === 'hold' ? 5000 : null,
    refused: 0,
    closed_early: 0,
    ...f,
  })
}
/** Two interleaved echo repeats (median = cost). */
const echo = (proxy: string, cost: number) => two<WebSocketRow>((f) => w(proxy, 'ws', 'echo', f), {}, 'proxy_cpu_us_per_msg', cost)
const refused = { status: 'failed', reason: 'upgrade failed: HTTP 400 × 200', conns_established: 0, proxy_cpu_us_per_msg: null } as const
const holds = (f: Partial<WebSocketRow> = {}) => FIVE.filter((p) => p !== 'envoy').map((p) => w(p, 'ws', 'hold', f))

test('F8 from rows shaped like the seed: echo within 20%, nginx article fails, Envoy stops at 1024, the others hold all', () => {
  const rows = [
    ...echo('haproxy', 28),
    ...echo('nginx', 31),
    ...echo('envoy', 33),
    ...echo('traefik', 30),
    ...echo('caddy', 32),
    w('nginx', 'article', 'echo', refused),
    w('nginx', 'article', 'echo', { ...refused, repeat: 2 }),
    ...[1, 2].map((repeat) => w('envoy', 'ws', 'hold', { repeat, conns_established: 1024, survived: 1024, reason: 'refused 3976: upgrade: timeout × 3976' })),
    ...[1, 2].map((repeat) => w('envoy', 'ws-raised', 'hold', { repeat })),
    ...holds(),
    ...holds({ repeat: 2 }),
  ]
  const [echoF, nginx, cap, others] = wsFindings(rows)
  assert.equal(echoF!.verdict, 'held', echoF!.figure)
  assert.equal(echoF!.intervals?.length, 5)
  assert.equal(nginx!.verdict, 'held', nginx!.figure)
  assert.equal(cap!.verdict, 'held', cap!.figure)
  assert.equal(others!.verdict, 'held', others!.figure)
})

test('F8 says not held when a proxy drops held connections, the nginx article passes or a proxy is outside ±20%', () => {
  const [echoF, nginx, , others] = wsFindings([
    ...echo('haproxy', 28),
    ...echo('nginx', 31),
    ...echo('envoy', 45),
    w('nginx', 'article', 'echo'),
    // Two repeats: a single one decides nothing (the ledger's rule; the hand-written line took its majority).
    ...[1, 2].map((repeat) => w('haproxy', 'ws', 'hold', { repeat, survived: 4990, closed_early: 10 })),
  ])
  // Three proxies measured: each against the median of those three.
  assert.equal(echoF!.verdict, 'not held', echoF!.figure)
  assert.equal(nginx!.verdict, 'not held', nginx!.figure)
  assert.equal(others!.verdict, 'not held', others!.figure)
  assert.ok(wsFindings([]).every((f) => f.verdict === 'not measured'))
})

test('F8 echo: single repeats decide nothing', () => {
  const single = FIVE.map((p, i) => w(p, 'ws', 'echo', { proxy_cpu_us_per_msg: 28 + i }))
  assert.equal(wsFindings(single)[0]!.verdict, 'inconclusive')
})
