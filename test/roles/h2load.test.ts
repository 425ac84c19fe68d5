import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { durationUs, h2loadArgv, h2loadLog, parseH2loadOutput } from '../../lib/roles/h2load.ts'

// Real output of h2load 1.52.0 (Debian nghttp2-client) through HAProxy 2.6.12's h2 variant.
const fixture = (f: string) => readFileSync(join(import.meta.dirname, '..', 'fixtures', 'h2load', f), 'utf8')

test('h2load: a timed run through an h2 listener (-D) parses to counts, rate, protocol and request times', () => {
  const r = parseH2loadOutput(fixture('timed-haproxy-2.6.12.txt'))!
  assert.equal(r.protocol, 'h2')
  assert.equal(r.tls_protocol, 'TLSv1.3')
  assert.equal(r.cipher, 'TLS_AES_256_GCM_SHA384')
  assert.deepEqual(r.requests, { total: 77901, started: 77901, done: 77901, succeeded: 77901, failed: 0, errored: 0, timeout: 0 })
  assert.deepEqual(r.status, { '2xx': 77901, '3xx': 0, '4xx': 0, '5xx': 0 })
  assert.equal(r.rps, 25967)
  assert.deepEqual(r.request_us, { min: 60, max: 244030, mean: 3760 })
})

test('h2load: a count run (-n) finished in milliseconds parses the same way', () => {
  const r = parseH2loadOutput(fixture('count-haproxy-2.6.12.txt'))!
  assert.equal(r.protocol, 'h2')
  assert.equal(r.requests.succeeded, 2000)
  assert.equal(r.rps, 5375.42)
  assert.deepEqual(r.request_us, { min: 70, max: 27960, mean: 700 })
})

test('h2load: a refused port is a report with every request failed and no protocol (the row is invalid, not dropped)', () => {
  const r = parseH2loadOutput(fixture('refused.txt'))!
  assert.equal(r.protocol, null)
  assert.equal(r.requests.failed, 100)
  // Cut off before its report (killed): nothing to parse.
  assert.equal(parseH2loadOutput('starting benchmark...\nspawning thread #0: 2 total client(s).\n'), null)
})

test('h2load durations in µs', () => {
  assert.equal(durationUs('192us'), 192)
  assert.equal(durationUs('4.22ms'), 4220)
  assert.equal(durationUs('1.5s'), 1_500_000)
  assert.throws(() => durationUs('1.5m'), /not an h2load duration/)
})

test('h2load argv: connections kept, threads lowered to a divisor, streams and the per-request log', () => {
  assert.deepEqual(h2loadArgv({ url: 'https://127.0.0.1:8443/', threads: 2, connections: 200, streams: 10, seconds: 5.2, logFile: '/tmp/x.log' }), [
    'h2load',
    '-t',
    '2',
    '-c',
    '200',
    '-m',
    '10',
    '-D',
    '6',
    '-N',
    '5',
    '--log-file',
    '/tmp/x.log',
    'https://127.0.0.1:8443/',
  ])
  // 3 connections on 2 threads would be refused by h2load (-c must be a multiple of -t).
  assert.deepEqual(h2loadArgv({ url: 'u', threads: 2, connections: 3, streams: 1, seconds: 1 }).slice(0, 5), ['h2load', '-t', '1', '-c', '3'])
})

test('h2load log: percentiles of the requests that started inside the window', () => {
  // start (µs since the epoch), status, duration (µs): the log-file format of h2load.
  const lines = ['1000\t200\t999999', ...Array.from({ length: 100 }, (_, i) => `${2000 + i}\t200\t${(i + 1) * 10}`), '9000\t200\t999999']
  const l = h2loadLog(lines.join('\n') + '\n', 2000, 3000).latency!
  assert.equal(l.count, 100)
  assert.equal(l.max, 1000)
  assert.equal(l.p50, 505)
  assert.ok(l.p99 > 990 && l.p99 <= 1000)
  assert.equal(h2loadLog('', 0, 1).latency, null)
})
