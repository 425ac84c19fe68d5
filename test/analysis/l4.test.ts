import assert from 'node:assert/strict'
import { test } from 'node:test'
import { haproxyNginxRatios, l4Cells } from '../../lib/analysis/l4.ts'
import type { TcpRow } from '../../lib/data/schema.ts'
import { tcpRow } from '../fixtures/tcp-rows.ts'

const stream = (f: Partial<TcpRow>) => tcpRow({ series: 'l4-stream', mode: 'stream', msg_bytes: 0, stream_bytes: 16 << 20, proxy_cpu_us_per_mib: 1500, ...f })

test('l4 cells: per connection from the short rows, per MiB from the stream rows, invalid rows counted and never in the figure', () => {
  const rows = [
    tcpRow({ repeat: 1, proxy_cpu_us_per_conn: 80 }),
    tcpRow({ repeat: 2, proxy_cpu_us_per_conn: 90 }),
    tcpRow({ repeat: 3, proxy_cpu_us_per_conn: 85 }),
    tcpRow({ repeat: 4, proxy_cpu_us_per_conn: 500, status: 'invalid', reason: 'disturbed: foreign CPU 40%' }),
    stream({ repeat: 1, proxy_cpu_us_per_mib: 1500 }),
    stream({ repeat: 2, proxy_cpu_us_per_mib: 1600 }),
    tcpRow({ proxy: 'nginx', version: '1.31.3', status: 'failed', reason: 'did not start', proxy_cpu_us_per_conn: null, conn_rate: null }),
  ]
  const [h, n] = l4Cells(rows)
  assert.equal(h!.perConn!.value, 85)
  assert.equal(h!.perConn!.n, 3)
  assert.equal(h!.perMiB!.value, 1550)
  assert.deepEqual([h!.valid, h!.rows, h!.backendConnsPerConn], [5, 6, 1])
  assert.deepEqual([h!.disturbed, h!.reasons], [1, []])
  assert.deepEqual([n!.proxy, n!.perConn, n!.perMiB, n!.connRate, n!.valid], ['nginx', null, null, null, 0])
})

test('HAProxy / nginx per short connection and per MiB: paired over the repeats, per variant; no figure without both', () => {
  const rows = [1, 2, 3, 4, 5, 6].flatMap((repeat) => [
    tcpRow({ repeat, proxy_cpu_us_per_conn: 70 + repeat }),
    tcpRow({ repeat, proxy: 'nginx', proxy_cpu_us_per_conn: 100 + repeat }),
    tcpRow({ repeat, variant: 'l4-terminate', proxy_cpu_us_per_conn: 300 }),
    stream({ repeat, proxy_cpu_us_per_mib: 2000 }),
    stream({ repeat, proxy: 'nginx', proxy_cpu_us_per_mib: 1000 }),
  ])
  const ratios = haproxyNginxRatios(rows)
  assert.deepEqual(
    ratios.map((r) => `${r.variant} ${r.per}`),
    ['l4-tcp connection', 'l4-tcp MiB'],
  )
  assert.equal(ratios[1]!.ratio.value, 2)
  const r = ratios[0]!.ratio
  assert.equal(r.method, 'paired bootstrap')
  assert.ok(Math.abs(r.value - 73.5 / 103.5) < 1e-9)
  assert.ok(r.lo <= r.value && r.value <= r.hi && r.hi < 1)
})
