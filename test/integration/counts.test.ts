import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testNeeding } from '../support/needs.ts'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { catalogCellPlan, directCell, type CellContext } from '../../lib/measure/cell.ts'
import { measureClosed } from '../../lib/measure/closed.ts'
import { measureHandshakes } from '../../lib/measure/handshake.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { countingUnavailable } from '../../lib/runtime/counts.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'

// Real HAProxy, backend and generators on the native runtime: the count columns of a closed
// row, of a handshake row and of the direct row; then the same cell with counting switched off. Counts and blanks only, no timings.
const unavailable = await countingUnavailable()
testNeeding(
  'closed and handshake rows carry counts, the direct row none; --no-counts leaves them empty with the reason',
  { id: 'integration/counts', missing: unavailable ?? false, timeout: 300_000 },
  async () => {
    assert.equal((await ensureGoBuild('loadgen')).error, undefined)
    const log = memoryLogger()
    const runtime = new NativeRuntime(`counts-${process.pid}`)
    const out = mkdtempSync(join(tmpdir(), 'pb-counts-int-'))
    const ctx: CellContext = {
      runtime,
      runId: 'counts',
      runDir: out,
      cpus: defaultCpuLayout(),
      profile: { ...PROFILES.smoke!, durationS: 2 },
      certs: await ensureCerts(certsDir, { force: false, log }),
    }
    try {
      const cell = catalogCellPlan('haproxy', { series: 'pool-added', variant: 'pool-added', connections: 20 })
      const row = await measureClosed(cell, 1, ctx)
      assert.notEqual(row.status, 'failed', row.reason)
      assert.equal(row.counts_reason, '', row.counts_reason)
      // A pooled HTTPS proxy reads and writes on both sides of every request: a few calls each, never zero, never hundreds.
      assert.ok(row.proxy_syscalls_per_req! > 1 && row.proxy_syscalls_per_req! < 100, `syscalls/req ${row.proxy_syscalls_per_req}`)
      assert.ok(row.proxy_ctxsw_per_req! >= 0)
      assert.ok(Math.abs(row.proxy_user_us_per_req! + row.proxy_sys_us_per_req! - row.proxy_cpu_us_per_req!) < 0.01, 'user + sys = the CPU figure')

      const direct = await measureClosed(directCell('test', 20), 1, ctx)
      assert.notEqual(direct.status, 'failed', direct.reason)
      assert.equal(direct.proxy_syscalls_per_req, null)
      assert.equal(direct.counts_reason, 'direct row: no proxy')

      const hs = await measureHandshakes(catalogCellPlan('haproxy', { series: 'tls-handshake', variant: 'pool-added', connections: 2 }), 1, ctx)
      assert.notEqual(hs.status, 'failed', hs.reason)
      assert.equal(hs.counts_reason, '', hs.counts_reason)
      assert.ok(hs.proxy_syscalls_per_req! > 3, `a full handshake and its GET: accept, reads, writes, close (${hs.proxy_syscalls_per_req})`)

      const off = await measureClosed(cell, 2, { ...ctx, counts: false })
      assert.notEqual(off.status, 'failed', off.reason)
      assert.equal(off.proxy_syscalls_per_req, null)
      assert.equal(off.counts_reason, 'counting switched off (--no-counts)')
      assert.ok(off.proxy_cpu_us_per_req! > 0, 'the time is measured all the same')
    } finally {
      await runtime.stopAll()
    }
  },
)
