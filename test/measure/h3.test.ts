import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { CellContext } from '../../lib/measure/cell.ts'
import { acrossHostsIssue, h3CheckIssue, h3Generator } from '../../lib/measure/h3.ts'
import { h3Argv, h3ProtocolIssue, type H3Result } from '../../lib/roles/loadgen.ts'

const ok = { requests: 20, ok: 20, errors: 0, error_samples: [], status: { '200': 20 }, conns_opened: 2, alpn: 'h3', proto: 'HTTP/3.0' } as unknown as H3Result

test('the h3 check passes only when every answer came over h3', () => {
  assert.equal(h3CheckIssue(ok, 0), null)
  assert.equal(h3CheckIssue(null, 2), 'loadgen h3 printed no summary (exit 2)')
  assert.equal(
    h3CheckIssue({ ...ok, ok: 0, requests: 0, errors: 2, conns_opened: 0, alpn: '', error_samples: ['dial: timeout: no recent network activity'] }, 1),
    'no QUIC connection with ALPN h3 (dial: timeout: no recent network activity)',
  )
  assert.equal(h3CheckIssue({ ...ok, ok: 18, errors: 2, error_samples: ['status 502'] }, 0), '18/20 ok over h3 (status 502)')
  assert.equal(h3ProtocolIssue({ alpn: 'h3', proto: 'HTTP/1.1', ok: 3 }), 'protocol HTTP/1.1, expected HTTP/3.0')
  assert.equal(h3ProtocolIssue({ alpn: '', proto: '', ok: 0 }), 'ALPN none, expected h3')
})

test('across hosts, a QUIC check that opened no connection names UDP between the hosts and the fix; other issues stay as they are', () => {
  const url = 'https://10.203.77.11:40123/'
  assert.equal(
    acrossHostsIssue('no QUIC connection with ALPN h3 (timeout: no recent network activity)', url),
    "no QUIC connection with ALPN h3 (timeout: no recent network activity): TCP from the generator's host reached 10.203.77.11, UDP to port 40123 got no answer; let UDP from the generator's host through to 10.203.77.11 (its firewall or security group; ports are picked per cell, as for TCP), or run h3 on one machine",
  )
  assert.equal(acrossHostsIssue('18/20 ok over h3 (status 502)', url), '18/20 ok over h3 (status 502)')
  assert.equal(acrossHostsIssue(null, url), null)
})

test('loadgen h3 argv: connections, streams, the run and the warm-up, the body check', () => {
  const argv = h3Argv({
    url: 'https://127.0.0.1:8443/',
    connections: 200,
    streams: 10,
    seconds: 3,
    warmupS: 0.5,
    cacert: '/c/ca.crt',
    expectBody: 'hello world',
  })
  assert.deepEqual(argv.slice(1), [
    'h3',
    '-url',
    'https://127.0.0.1:8443/',
    '-cacert',
    '/c/ca.crt',
    '-server-name',
    'localhost',
    '-c',
    '200',
    '-m',
    '10',
    '-d',
    '3s',
    '-warmup',
    '0.5s',
    '-expect-body',
    'hello world',
  ])
})

test('a closed-model h3 cell lets a request wait the whole run: a queue of 100 streams per connection is not failed at 5 s', () => {
  const ctx = { profile: { warmupS: 1, durationS: 5 }, certs: { ca: '/c/ca.crt' } } as unknown as CellContext
  const cell = { series: 'h3', proxy: 'haproxy', version: '3.4.7', variant: 'h3', keyType: 'ec256', connections: 200, protocol: 'h3', streams: 100 } as const
  const argv = h3Generator(cell, 100, ctx).argv({ url: '', threads: 1, connections: 200, seconds: 7 })
  const flag = (name: string) => argv[argv.indexOf(name) + 1]
  assert.equal(flag('-m'), '100')
  assert.equal(flag('-d'), '7s')
  assert.equal(flag('-timeout'), '7s')
})
