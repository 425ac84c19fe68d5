import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseRunOptions } from '../../lib/cli/run-options.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { readTable, TCP } from '../../lib/data/tables.ts'
import { runBench } from '../../lib/run/run.ts'

// The L4 series on real HAProxy (mode tcp) and nginx (stream) with the real loadgen and
// backend echo: plain TCP, TLS passthrough and TLS termination, short connections and a
// stream. Bytes are proven to flow through the proxy: every byte echoed as sent, and the
// backend's echo accepting one connection per client connection. Timing is not asserted.
test('l4 series: bytes flow through HAProxy mode tcp and nginx stream to the backend echo', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'pb-l4-')), 'run')
  const r = await runBench(
    parseRunOptions({ profile: 'smoke', series: 'l4', proxies: 'haproxy,nginx', runtime: 'native', out, seed: '3' }, { install: false, log: memoryLogger() }),
  )
  const rows = readTable(r.runDir, TCP)
  const cells = new Set(rows.map((x) => `${x.series} ${x.proxy} ${x.variant}`))
  assert.deepEqual([...cells].sort(), [
    'l4-short haproxy l4-passthrough',
    'l4-short haproxy l4-tcp',
    'l4-short haproxy l4-terminate',
    'l4-short nginx l4-passthrough',
    'l4-short nginx l4-tcp',
    'l4-short nginx l4-terminate',
    'l4-stream haproxy l4-tcp',
    'l4-stream nginx l4-tcp',
  ])
  for (const x of rows) {
    // A disturbed window is invalid and re-measured, but its figures are still measured: never failed.
    assert.notEqual(x.status, 'failed', JSON.stringify(x))
    // Errors are not asserted: a machine full of TIME_WAIT connections drops SYNs (the row says so); bytes that came back are always right.
    assert.ok(x.conns > 0 && x.mismatches === 0 && x.proxy_cpu_us_per_conn! > 0, JSON.stringify(x))
    assert.ok(Math.abs(x.backend_conns_per_conn! - 1) < 0.02, `each client connection reached the backend: ${JSON.stringify(x)}`)
    if (x.mode === 'stream') assert.ok(x.bytes_echoed >= x.stream_bytes && x.proxy_cpu_us_per_mib! > 0, JSON.stringify(x))
    else assert.ok(x.bytes_echoed >= x.conns * x.msg_bytes, JSON.stringify(x))
  }
})
