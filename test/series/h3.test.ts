import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ProxyName, StackVersion } from '../../lib/catalog/stack.ts'
import { h3Cells, h3HandshakeCells, h3OpenCombos } from '../../lib/series/h3.ts'
import type { H3Support } from '../../lib/setup/h3-support.ts'
import { measurement } from '../fixtures/rows.ts'

// A stand-in probe (the real one runs the binaries): nginx's newest build cannot, its 1.30.6 can; HAProxy none.
const support = (p: ProxyName, v: StackVersion): H3Support =>
  p === 'haproxy'
    ? { capable: false, reason: 'built without QUIC (haproxy -vv: -QUIC)' }
    : p === 'nginx' && v.version !== '1.30.6' && v.version !== '1.26.3'
      ? { capable: false, reason: 'built without --with-http_v3_module (nginx -V)' }
      : { capable: true, reason: 'yes' }
const names = (cells: ReturnType<typeof h3Cells>) =>
  cells.map((c) => `${c.series} ${c.proxy} ${c.version} ${c.variant} ${c.protocol ?? 'h1'} m${c.streams ?? '-'}${c.unrunnable ? ` (${c.unrunnable})` : ''}`)

test('h3 quick: the direct row, then per capable proxy an h3-h1 and an h3 m1 cell on its newest capable version', () => {
  assert.deepEqual(names(h3Cells(['caddy', 'nginx'], 200, 'quick', 'b1', support)), [
    'h3 direct b1 direct h3 m1',
    'h3-h1 caddy 2.11.7 h3 h1 m-',
    'h3 caddy 2.11.7 h3 h3 m1',
    // The newest nginx cannot: a row that says so, and the newest that can is measured instead.
    'h3 nginx 1.31.3 h3 h3 m1 (not measured: nginx 1.31.3: built without --with-http_v3_module (nginx -V))',
    'h3-h1 nginx 1.30.6 h3 h1 m-',
    'h3 nginx 1.30.6 h3 h3 m1',
  ])
})

test('h3: a proxy with no capable build is one not-measured row; standard adds 10 and 100 streams', () => {
  const cells = h3Cells(['haproxy', 'traefik'], 200, 'standard', 'b1', support)
  assert.deepEqual(
    names(cells).filter((n) => n.includes('haproxy')),
    ['h3 haproxy 3.4.7 h3 h3 m1 (not measured: haproxy 3.4.7: built without QUIC (haproxy -vv: -QUIC))'],
  )
  assert.deepEqual(
    cells.filter((c) => c.proxy === 'traefik' && c.series === 'h3').map((c) => c.streams),
    [1, 10, 100],
  )
  assert.deepEqual(
    cells.filter((c) => c.proxy === 'direct').map((c) => c.streams),
    [1, 10, 100],
  )
  assert.ok(cells.every((c) => c.connections === 200 && c.keyType === 'ec256'))
})

const handshakeNames = (cells: ReturnType<typeof h3HandshakeCells>) =>
  cells.map((c) => `${c.series} ${c.proxy} ${c.version} ${c.variant} ${c.keyType} ${c.resumption}${c.protocol ? ' quic' : ''} c${c.connections}`)

test('h3 handshakes, quick: per key type full over QUIC and TCP+TLS; resumed and 0-RTT on EC P-256 only, 0-RTT where the template accepts it', () => {
  const cells = h3HandshakeCells(['caddy', 'nginx', 'haproxy'], 'quick', support)
  assert.deepEqual(handshakeNames(cells), [
    'h3-handshake caddy 2.11.7 h3 ec256 none quic c4',
    'h3-handshake-tcp caddy 2.11.7 h3 ec256 none c4',
    'h3-handshake caddy 2.11.7 h3 ec256 tickets quic c4',
    'h3-handshake-tcp caddy 2.11.7 h3 ec256 tickets c4',
    // Caddy's h3 template accepts early data (stack.yaml early_data).
    'h3-handshake caddy 2.11.7 h3 ec256 0rtt quic c4',
    'h3-handshake caddy 2.11.7 h3 rsa2048 none quic c4',
    'h3-handshake-tcp caddy 2.11.7 h3 rsa2048 none c4',
    'h3-handshake caddy 2.11.7 h3 rsa4096 none quic c4',
    'h3-handshake-tcp caddy 2.11.7 h3 rsa4096 none c4',
    // nginx on its newest capable build, no 0-RTT (ssl_early_data off); HAProxy has no capable build: no cell (the h3 phase's row says why).
    'h3-handshake nginx 1.30.6 h3 ec256 none quic c4',
    'h3-handshake-tcp nginx 1.30.6 h3 ec256 none c4',
    'h3-handshake nginx 1.30.6 h3 ec256 tickets quic c4',
    'h3-handshake-tcp nginx 1.30.6 h3 ec256 tickets c4',
    'h3-handshake nginx 1.30.6 h3 rsa2048 none quic c4',
    'h3-handshake-tcp nginx 1.30.6 h3 rsa2048 none c4',
    'h3-handshake nginx 1.30.6 h3 rsa4096 none quic c4',
    'h3-handshake-tcp nginx 1.30.6 h3 rsa4096 none c4',
  ])
})

test('h3 handshakes, standard: every key type full, resumed and (Envoy, Caddy) 0-RTT', () => {
  const cells = h3HandshakeCells(['envoy', 'traefik'], 'standard', support)
  const count = (p: string, series: string, r: string) => cells.filter((c) => c.proxy === p && c.series === series && c.resumption === r).map((c) => c.keyType)
  assert.deepEqual(count('envoy', 'h3-handshake', '0rtt'), ['ec256', 'rsa2048', 'rsa4096'])
  assert.deepEqual(count('traefik', 'h3-handshake', '0rtt'), [])
  assert.deepEqual(count('traefik', 'h3-handshake-tcp', 'tickets'), ['ec256', 'rsa2048', 'rsa4096'])
  assert.ok(cells.every((c) => (c.series === 'h3-handshake') === (c.protocol === 'h3')))
})

test('h3 open model: each proxy at half its own valid h3 m1 closed rate, over h3 and over HTTP/1.1 through the same config', () => {
  const closed = h3Cells(['caddy', 'nginx', 'haproxy'], 200, 'standard', 'b1', support)
  const rows = [
    ...[4000, 4400, 9999].map((rps, i) =>
      measurement({ series: 'h3', proxy: 'caddy', version: '2.11.7', variant: 'h3', streams: 1, repeat: i + 1, rps, status: i === 2 ? 'invalid' : 'valid' }),
    ),
    // Another stream count, and the direct row, give no rate.
    measurement({ series: 'h3', proxy: 'nginx', version: '1.30.6', variant: 'h3', streams: 10, rps: 8000 }),
    measurement({ series: 'h3', proxy: 'direct', version: 'b1', variant: 'direct', streams: 1, rps: 8000 }),
  ]
  const combos = h3OpenCombos(closed, rows)
  assert.deepEqual(
    combos.map(
      (x) =>
        `${x.cell.series} ${x.cell.proxy} ${x.cell.version} ${x.cell.variant} ${x.cell.protocol ?? 'h1'} ${x.cell.streams ?? '-'} c${x.cell.connections} ${x.rate}`,
    ),
    ['h3-open caddy 2.11.7 h3 h3 - c200 2100', 'h3-open-h1 caddy 2.11.7 h3 h1 - c200 2100'],
  )
})
