import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HANDSHAKES, MEASUREMENTS, readTable, WEBSOCKETS } from '../../lib/data/tables.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { parseRunOptions } from '../../lib/cli/run-options.ts'
import { runBench } from '../../lib/run/run.ts'
import { CALIBRATION_STEPS } from '../../lib/series/open-rate.ts'
import { isDisturbed } from '../../lib/data/precision.ts'

const smoke = (series: string, proxies: ('haproxy' | 'nginx')[]) => {
  const out = join(mkdtempSync(join(tmpdir(), `pb-${series}-`)), 'run')
  return runBench(
    parseRunOptions({ profile: 'smoke', series, proxies: proxies.join(','), runtime: 'native', out, seed: '3' }, { install: false, log: memoryLogger() }),
  )
}

// The TLS series on real HAProxy with the real loadgen: handshakes per key type, the
// open model and the calibration steps.
test('tls series: full handshakes per key type, open-model rows, calibration steps', async () => {
  const r = await smoke('tls', ['haproxy'])
  // A window redone after a disturbance leaves its disturbed row beside the redone one: count the cells, not those.
  const hs = readTable(r.runDir, HANDSHAKES).filter((h) => !isDisturbed(h))
  assert.deepEqual(hs.map((h) => h.key_type).sort(), ['ec256', 'rsa2048', 'rsa4096'])
  for (const h of hs) {
    assert.equal(h.resumed, 0, 'no resumption')
    assert.ok(h.handshakes > 0 && h.proxy_cpu_us_per_handshake! > 0, JSON.stringify(h))
  }
  const cost = (kt: string) => hs.find((h) => h.key_type === kt)!.proxy_cpu_us_per_handshake!
  // An RSA-4096 signature costs several times an EC P-256 one on any CPU.
  assert.ok(cost('rsa4096') > 2 * cost('ec256'), `rsa4096 ${cost('rsa4096')} vs ec256 ${cost('ec256')}`)
  const rows = readTable(r.runDir, MEASUREMENTS)
  const open = rows.filter((x) => x.series === 'tls-open')
  // The cells (a disturbed window and its redo are two rows of one cell), as for the handshakes above.
  assert.deepEqual([...new Set(open.map((x) => x.key_type))].sort(), ['ec256', 'rsa4096'])
  for (const x of open) assert.ok(x.model === 'open' && x.target_rps! > 0 && x.max_vus !== null && x.dropped !== null, JSON.stringify(x))
  assert.equal(rows.filter((x) => x.series === 'tls-calibration').length, CALIBRATION_STEPS.length)
  assert.ok(r.findings.some((f) => f.id === 'F5' && f.verdict !== 'not measured'))
})

// The pooling series (closed, then pooling-open at one fixed rate): test/integration/run.test.ts,
// on the run its manifest test reads.

// WebSockets through real HAProxy and nginx: echo works where the config allows it, the
// nginx article config fails with the HTTP status, a hold of 1200 connections survives.
test('ws series: echo, a failed upgrade as data, and a hold', async () => {
  const r = await smoke('ws', ['haproxy', 'nginx'])
  const rows = readTable(r.runDir, WEBSOCKETS)
  // A window disturbed by the machine is an invalid row that is measured again: judge the others.
  const get = (proxy: string, variant: string, mode: string) =>
    rows.find((x) => x.proxy === proxy && x.variant === variant && x.mode === mode && !isDisturbed(x))!
  for (const [p, v] of [
    ['haproxy', 'article'],
    ['haproxy', 'ws'],
    ['nginx', 'ws'],
  ]) {
    const e = get(p!, v!, 'echo')
    assert.equal(e.status, 'valid', `${p} ${v}: ${e.reason}`)
    assert.ok(e.conns_established === 200 && e.messages > 0 && e.proxy_cpu_us_per_msg! > 0)
  }
  const failed = get('nginx', 'article', 'echo')
  assert.equal(failed.status, 'failed')
  assert.match(failed.reason, /upgrade failed: HTTP 400 × 200/)
  for (const p of ['haproxy', 'nginx']) {
    const h = get(p, 'ws', 'hold')
    assert.equal(h.conns_established, 1200, `${p}: ${h.reason}`)
    assert.equal(h.survived, 1200)
    assert.ok(h.messages > 0 && h.p99_ms! > 0)
  }
})
