import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { WebSocketRow } from '../../lib/data/schema.ts'
import { wsFindings } from '../../lib/findings/ws.ts'
import { two, websocketRow } from '../fixtures/rows.ts'

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

test('F8 from rows shaped like the seed: echo within 20%, nginx article fails, Envoy stops at 1024', () => {
  const rows = [
    ...echo('haproxy', 28),
    ...echo('nginx', 31),
    ...echo('envoy', 33),
    w('nginx', 'article', 'echo', refused),
    w('nginx', 'article', 'echo', { ...refused, repeat: 2 }),
    w('envoy', 'ws', 'hold', { conns_established: 1024, survived: 1024, reason: 'refused 3976: upgrade: timeout × 3976' }),
    w('envoy', 'ws-raised', 'hold'),
    w('nginx', 'ws', 'hold', { p99_ms: 97 }),
    w('nginx', 'ws', 'hold', { repeat: 2, p99_ms: 155 }),
  ]
  const [echoF, nginx, cap, others] = wsFindings(rows)
  assert.equal(echoF!.verdict, 'held')
  assert.equal(echoF!.figure, 'envoy 33.0 (1.06x [1.06, 1.06]), haproxy 28.0 (0.90x [0.90, 0.90]), nginx 31.0 (1.00x [1.00, 1.00]) µs/msg; median 31.0')
  assert.equal(echoF!.intervals!.length, 3)
  assert.equal(nginx!.verdict, 'held')
  assert.equal(nginx!.figure, '2/2 repeats refused: upgrade failed: HTTP 400 × 200')
  assert.equal(cap!.verdict, 'held')
  assert.equal(cap!.figure, '1024/5000 established (refused 3976: upgrade: timeout × 3976)')
  assert.equal(others!.verdict, 'held')
  assert.equal(others!.figure, 'envoy ws-raised 5000/5000 p99 2.0 ms, nginx 5000/5000 p99 126.0 ms')
})

test('F8 says not held when a proxy drops held connections or the nginx article passes', () => {
  const [, nginx, , others] = wsFindings([w('nginx', 'article', 'echo'), w('haproxy', 'ws', 'hold', { survived: 4990, closed_early: 10 })])
  assert.equal(nginx!.verdict, 'not held')
  assert.equal(others!.verdict, 'not held')
  assert.equal(wsFindings([])[0]!.verdict, 'not measured')
})

test('F8 echo: a proxy outside ±20% is not held; single repeats or a lone proxy decide nothing', () => {
  assert.equal(wsFindings([...echo('haproxy', 28), ...echo('nginx', 31), ...echo('envoy', 45)])[0]!.verdict, 'not held')
  assert.equal(
    wsFindings([w('haproxy', 'ws', 'echo', { proxy_cpu_us_per_msg: 28 }), w('nginx', 'ws', 'echo', { proxy_cpu_us_per_msg: 31 })])[0]!.verdict,
    'inconclusive',
  )
  assert.equal(wsFindings(echo('haproxy', 28))[0]!.verdict, 'not measured')
})

test('F8 nginx article: every repeat counts, and a tie between a refused and a passing repeat is inconclusive', () => {
  const [, tie] = wsFindings([w('nginx', 'article', 'echo', refused), w('nginx', 'article', 'echo', { repeat: 2 })])
  assert.equal(tie!.verdict, 'inconclusive')
  assert.equal(tie!.figure, '1/2 repeats refused: upgrade failed: HTTP 400 × 200')
  const [, passed] = wsFindings([
    w('nginx', 'article', 'echo', refused),
    w('nginx', 'article', 'echo', { repeat: 2 }),
    w('nginx', 'article', 'echo', { repeat: 3 }),
  ])
  assert.equal(passed!.verdict, 'not held')
  // A proxy that did not start says nothing about WebSockets.
  assert.equal(wsFindings([w('nginx', 'article', 'echo', { status: 'failed', reason: 'proxy did not start' })])[1]!.verdict, 'not measured')
})

test('F8 hold: the median repeat decides, invalid rows are left out, and no other proxy is not measured', () => {
  const rows = [
    w('nginx', 'ws', 'hold'),
    w('nginx', 'ws', 'hold', { repeat: 2 }),
    w('nginx', 'ws', 'hold', { repeat: 3, survived: 4990, closed_early: 10 }),
    w('haproxy', 'ws', 'hold', { survived: 10, status: 'invalid', reason: 'generator saturated: 95% of its cpuset >= 90%' }),
    w('haproxy', 'ws', 'hold', { repeat: 2 }),
    w('haproxy', 'ws', 'hold', { repeat: 3 }),
  ]
  const [, , , others] = wsFindings(rows)
  assert.equal(others!.verdict, 'held', others!.figure)
  assert.equal(others!.figure, 'nginx 5000/5000 p99 2.0 ms, haproxy 5000/5000 p99 2.0 ms')
  const [, , cap, none] = wsFindings([w('envoy', 'ws', 'hold', { conns_established: 1024, survived: 1024 })])
  assert.equal(cap!.verdict, 'held')
  assert.equal(none!.verdict, 'not measured')
  const [, , split] = wsFindings([w('envoy', 'ws', 'hold', { conns_established: 1024, survived: 1024 }), w('envoy', 'ws', 'hold', { repeat: 2 })])
  assert.equal(split!.verdict, 'inconclusive')
})
