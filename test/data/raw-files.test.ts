import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cellStem, configCopy, parseRawName, rawFile, repeatStem } from '../../lib/data/raw-files.ts'

const cell = { series: 'tls-open', proxy: 'haproxy', version: '2.8.25', variant: 'pool-added', keyType: 'rsa4096', connections: 1000 }

test('raw file names round-trip for every kind, with the rate or WebSocket mode', () => {
  assert.equal(rawFile('/r', repeatStem(cell, 2, { rate: 700 }), 'open.json'), '/r/raw/tls-open-haproxy-2.8.25-pool-added-rsa4096-c1000-700rps-r2.open.json')
  assert.deepEqual(parseRawName('tls-open-haproxy-2.8.25-pool-added-rsa4096-c1000-700rps-r2.open.json'), { ...cell, rate: 700, mode: null, repeat: 2, kind: 'open.json' })
  const ws = { ...cell, series: 'ws-hold', proxy: 'envoy', version: '1.40.0', variant: 'ws-raised', keyType: 'ec256', connections: 1500 }
  assert.deepEqual(parseRawName(`${repeatStem(ws, 1, { mode: 'hold' })}.ws-hold.json`), { ...ws, rate: null, mode: 'hold', repeat: 1, kind: 'ws-hold.json' })
  const direct = { series: 'direct', proxy: 'direct', version: 'ce391f9ff9ea99eb', variant: 'direct', keyType: 'ec256', connections: 200 }
  assert.deepEqual(parseRawName(`${repeatStem(direct, 3)}.wrk.txt`), { ...direct, rate: null, mode: null, repeat: 3, kind: 'wrk.txt' })
  // A repeat's latency spectrum sits beside its generator output under the same stem.
  assert.deepEqual(parseRawName(`${repeatStem(cell, 2, { rate: 700 })}.latency.json`), { ...cell, rate: 700, mode: null, repeat: 2, kind: 'latency.json' })
})

test("a user config's file name is made safe in raw and config names", () => {
  const custom = { ...cell, series: 'custom', variant: 'custom:my conf;1.cfg' }
  assert.equal(cellStem(custom), 'custom-haproxy-2.8.25-custom_my_conf_1.cfg-rsa4096-c1000')
  assert.equal(configCopy('/r', custom, 'cfg'), '/r/configs/haproxy-2.8.25-custom_my_conf_1.cfg.cfg')
})

test('other files are not raw outputs', () => {
  for (const f of ['notes.txt', 'tls-open-haproxy-2.8.25-pool-added-rsa4096-c1000-r1.json', 'x-apache-1-article-ec256-c1-r1.wrk.txt']) assert.equal(parseRawName(f), null, f)
})
