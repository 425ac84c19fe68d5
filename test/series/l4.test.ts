import assert from 'node:assert/strict'
import { test } from 'node:test'
import { precisionMetric } from '../../lib/data/precision.ts'
import { loadgenTcpArgv } from '../../lib/roles/loadgen.ts'
import { L4_VARIANTS, l4Cells, l4Proxies } from '../../lib/series/l4.ts'

test('l4 plan: quick has one cell of each kind per proxy, standard every variant in both modes; Caddy has no L4 variant', () => {
  const all = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy'] as const
  assert.deepEqual(l4Proxies(all), ['haproxy', 'nginx', 'envoy', 'traefik'])
  const quickShort = l4Cells(all, 'short', 'quick')
  const quickStream = l4Cells(all, 'stream', 'quick')
  assert.equal(quickShort.length, 4 * 3)
  assert.deepEqual(
    quickStream.map((c) => `${c.proxy} ${c.variant}`),
    ['haproxy l4-tcp', 'nginx l4-tcp', 'envoy l4-tcp', 'traefik l4-tcp'],
  )
  assert.ok([...quickShort, ...quickStream].every((c) => c.series === (quickShort.includes(c) ? 'l4-short' : 'l4-stream')))
  assert.deepEqual([32, 4], [quickShort[0]!.connections, quickStream[0]!.connections])
  const standard = [...l4Cells(all, 'short', 'standard'), ...l4Cells(all, 'stream', 'standard')]
  assert.equal(standard.length, 4 * L4_VARIANTS.length * 2)
  // Each on the proxy's newest version, its stack.yaml saying what the client and the backend speak.
  for (const c of standard) assert.ok(c.stack!.variants[c.variant]!.l4, `${c.proxy} ${c.variant}`)
  assert.deepEqual(
    standard.filter((c) => c.proxy === 'nginx').map((c) => c.version),
    Array(6).fill('1.31.3'),
  )
})

test('tcp rows are judged on µs per connection (short) or per MiB (stream)', () => {
  assert.equal(precisionMetric('tcp', { proxy: 'haproxy', mode: 'short' } as never), 'proxy_cpu_us_per_conn')
  assert.equal(precisionMetric('tcp', { proxy: 'haproxy', mode: 'stream' } as never), 'proxy_cpu_us_per_mib')
})

test('loadgen tcp argv: tls:// verifies our CA as localhost (the SNI a passthrough router matches), tcp:// has no TLS flags', () => {
  const tls = loadgenTcpArgv('tls://127.0.0.1:9', '/c/ca.crt', { mode: 'short', c: 2 })
  assert.deepEqual(tls.slice(1), ['tcp', '-url', 'tls://127.0.0.1:9', '-cacert', '/c/ca.crt', '-server-name', 'localhost', '-mode', 'short', '-c', '2'])
  assert.deepEqual(loadgenTcpArgv('tcp://127.0.0.1:9', '/c/ca.crt', { mode: 'stream' }).slice(1), ['tcp', '-url', 'tcp://127.0.0.1:9', '-mode', 'stream'])
})
