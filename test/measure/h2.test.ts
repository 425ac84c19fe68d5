import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { h2Issue } from '../../lib/measure/h2.ts'
import { h2loadLog, h2loadProtocol } from '../../lib/roles/h2load.ts'
import { h2Cells } from '../../lib/series/h2.ts'

// Real output of nghttp / h2load 1.52.0 against HAProxy 2.6.12: its h2 variant and pool-added (no alpn on the bind).
const fixture = (f: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'h2load', f), 'utf8')

test('h2 verification: ALPN chose h2, status 200 and the body', () => {
  assert.equal(h2Issue(fixture('nghttp-h2-haproxy-2.6.12.txt'), 0, 'hello world'), null)
  assert.equal(h2Issue(fixture('nghttp-h2-haproxy-2.6.12.txt'), 0, 'hello json'), 'h2 body is not "hello json"')
})

test('h2 verification: a listener without h2 in ALPN is named, though nghttp exits 0', () => {
  assert.equal(
    h2Issue(fixture('nghttp-h1-only-haproxy-2.6.12.txt'), 0, 'hello world'),
    'no h2 via ALPN: [ERROR] HTTP/2 protocol was not selected. (nghttp2 expects h2)',
  )
  assert.equal(
    h2Issue('[ERROR] Could not connect to the address 127.0.0.1\n', 1, 'hello world'),
    'no h2 via ALPN: [ERROR] Could not connect to the address 127.0.0.1',
  )
})

test('h2load falls back to HTTP/1.1 on a listener without h2 and succeeds: its protocol line is what tells', () => {
  assert.equal(h2loadProtocol(fixture('h1-only-haproxy-2.6.12.txt')), 'http/1.1')
})

test('h2load interrupted by SIGINT prints no summary, but its protocol line came before the run', () => {
  assert.equal(h2loadProtocol(fixture('interrupted-haproxy-2.6.12.txt')), 'h2')
  assert.equal(h2loadProtocol('starting benchmark...\n'), null)
})

test('h2load log file as h2load writes it: start µs since the epoch, status, µs to the end of the response', () => {
  const text = fixture('log-haproxy-2.6.12.tsv')
  const first = Number(text.split('\t')[0])
  const r = h2loadLog(text, first, first + 10_000_000)
  assert.equal(r.ok, 20)
  assert.equal(r.errors, 0)
  assert.equal(r.latency!.count, 20)
  assert.ok(r.latency!.p50 > 0 && r.latency!.p50 <= r.latency!.max)
})

test('h2load log: non-2xx answers and failed streams (status -1) are errors; a line cut short by the kill is no request', () => {
  // A real log through a frontend answering 503 to one request in fifty, then the two other kinds.
  const real = fixture('log-non2xx-haproxy-2.6.12.tsv')
  const first = Number(real.split('\t')[0])
  const text = `${real}${first + 1000}\t-1\t5000021\n${first + 2000}\t20`
  const r = h2loadLog(text, first, first + 10_000_000)
  assert.deepEqual([r.ok, r.errors], [39, 7])
  // Every request that ended is in the window's latencies, failed ones included.
  assert.equal(r.latency!.count, 46)
})

test('h2 series: quick has the HTTP/1.1 reference and h2 at one stream per proxy; standard 1, 10 and 100 streams', () => {
  const quick = h2Cells(['haproxy', 'caddy'], 200, 'quick')
  assert.deepEqual(
    quick.map((c) => `${c.series} ${c.proxy} ${c.variant} ${c.streams ?? '-'}`),
    ['h2-h1 haproxy h2 -', 'h2 haproxy h2 1', 'h2-h1 caddy h2 -', 'h2 caddy h2 1'],
  )
  assert.deepEqual(
    h2Cells(['nginx'], 200, 'standard').map((c) => c.streams ?? null),
    [null, 1, 10, 100],
  )
})
