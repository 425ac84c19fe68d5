import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { h2Issue } from '../../lib/measure/h2.ts'
import { h2loadLatencies, parseH2loadOutput } from '../../lib/roles/h2load.ts'
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
  const r = parseH2loadOutput(fixture('h1-only-haproxy-2.6.12.txt'))!
  assert.equal(r.requests.succeeded, 50)
  assert.equal(r.protocol, 'http/1.1')
})

test('h2load log file as h2load writes it: start µs since the epoch, status, µs to the end of the response', () => {
  const text = fixture('log-haproxy-2.6.12.tsv')
  const first = Number(text.split('\t')[0])
  const l = h2loadLatencies(text, first, first + 10_000_000)!
  assert.equal(l.count, 20)
  assert.ok(l.p50 > 0 && l.p50 <= l.max)
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
