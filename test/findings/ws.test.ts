import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { WebSocketRow } from '../../lib/data/schema.ts'
import { wsFindings } from '../../lib/findings/ws.ts'
import { websocketRow } from '../fixtures/rows.ts'

const w = (proxy: string, variant: string, mode: 'echo' | 'hold', f: Partial<WebSocketRow> = {}): WebSocketRow => {
  const conns = mode === 'echo' ? 200 : 5000
  return websocketRow({ series: `ws-${mode}`, proxy, variant, mode, conns_target: conns, conns_established: conns, p99_ms: 2, survived: mode === 'hold' ? 5000 : null, refused: 0, closed_early: 0, ...f })
}

test('F8 from rows shaped like the seed: echo within 20%, nginx article fails, Envoy stops at 1024', () => {
  const rows = [
    w('haproxy', 'ws', 'echo', { proxy_cpu_us_per_msg: 28 }), w('nginx', 'ws', 'echo', { proxy_cpu_us_per_msg: 31 }), w('envoy', 'ws', 'echo', { proxy_cpu_us_per_msg: 33 }),
    w('nginx', 'article', 'echo', { status: 'failed', reason: 'upgrade failed: HTTP 400 × 200', conns_established: 0, proxy_cpu_us_per_msg: null }),
    w('envoy', 'ws', 'hold', { conns_established: 1024, survived: 1024, reason: 'refused 3976: upgrade: timeout × 3976' }),
    w('envoy', 'ws-raised', 'hold'), w('nginx', 'ws', 'hold', { p99_ms: 97 }), w('nginx', 'ws', 'hold', { repeat: 2, p99_ms: 155 }),
  ]
  const [echo, nginx, cap, others] = wsFindings(rows)
  assert.equal(echo!.verdict, 'held')
  assert.equal(echo!.figure, 'envoy 33.0, haproxy 28.0, nginx 31.0 µs/msg; median 31.0')
  assert.equal(nginx!.verdict, 'held')
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
