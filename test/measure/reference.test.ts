import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { catalogCellPlan, type CellContext } from '../../lib/measure/cell.ts'
import { measureClosed } from '../../lib/measure/closed.ts'
import { measureHandshakes } from '../../lib/measure/handshake.ts'
import { parseReferenceOutput, REFERENCE_RATE, referenceColumns, startReference } from '../../lib/measure/reference.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'

test("a reading is the round trips' CPU over its window; a row's cost is divided by its own window's reading", () => {
  const r = parseReferenceOutput(
    '{"round_trips":2000,"size":1,"duration_s":2.0,"wall_us_per_rt":1000,"cpu_us_per_rt":50,"parent_cpu_us":60000,"child_cpu_us":40000}\n',
    'rtt@1000/s',
  )
  assert.deepEqual(r, { kind: 'rtt@1000/s', cpuUsPerOp: 50, ops: 2000, cpuShare: 0.05, cpuNs: 100_000_000 })
  assert.deepEqual(referenceColumns(r, 25), {
    reference_kind: 'rtt@1000/s',
    reference_cpu_us_per_op: 50,
    reference_cpu_share: 0.05,
    proxy_cpu_per_reference: 0.5,
  })
  assert.deepEqual(referenceColumns(r, null).proxy_cpu_per_reference, null)
  assert.deepEqual(referenceColumns({ error: 'gone' }, 25), {
    reference_kind: 'failed',
    reference_cpu_us_per_op: null,
    reference_cpu_share: null,
    proxy_cpu_per_reference: null,
  })
  assert.deepEqual(referenceColumns(null, 25).reference_kind, '')
  assert.throws(() => parseReferenceOutput('{"round_trips":0}', 'x'), /unexpected output/)
  assert.equal(startReference({ cpus: defaultCpuLayout() }, { warmupS: 0, durationS: 1 }), null, 'none unless the run asks')
})

// The real reference beside real cells (HAProxy behind the cell protocol, smoke windows):
// every row carries its own window's reading, at about the fixed rate, and its cost in that unit;
// a reference that cannot start leaves the row's figures and says why.
test("the concurrent reference on a real short run: closed-model and handshake rows carry their window's reading", async () => {
  assert.equal((await ensureGoBuild('loadgen')).error, undefined)
  assert.equal((await ensureGoBuild('backend')).error, undefined)
  const runtime = new NativeRuntime(`reference-${process.pid}`)
  const out = mkdtempSync(join(tmpdir(), 'pb-reference-'))
  const profile = { ...PROFILES.smoke!, durationS: 2 }
  const ctx: CellContext = {
    runtime,
    runId: 'reference',
    runDir: out,
    cpus: defaultCpuLayout(),
    profile,
    certs: await ensureCerts(certsDir, { force: false, log: memoryLogger() }),
    reference: 'rtt',
  }
  try {
    const row = await measureClosed(catalogCellPlan('haproxy', { series: 'same', variant: 'article', connections: 20 }), 1, ctx)
    assert.notEqual(row.status, 'failed', row.reason)
    assert.equal(row.reference_kind, `rtt@${REFERENCE_RATE}/s`, row.reason)
    assert.ok(row.reference_cpu_us_per_op! > 0 && row.reference_cpu_share! > 0 && row.reference_cpu_share! < 0.5, JSON.stringify(row))
    assert.ok(
      Math.abs(row.proxy_cpu_per_reference! - row.proxy_cpu_us_per_req! / row.reference_cpu_us_per_op!) < 0.01 * row.proxy_cpu_per_reference!,
      JSON.stringify(row),
    )
    assert.doesNotMatch(row.reason, /reference/)

    const hs = await measureHandshakes(catalogCellPlan('haproxy', { series: 'tls-handshake', variant: 'pool-added', connections: 2 }), 1, ctx)
    assert.notEqual(hs.status, 'failed', hs.reason)
    assert.equal(hs.reference_kind, `rtt@${REFERENCE_RATE}/s`, hs.reason)
    assert.ok(hs.proxy_cpu_per_reference! > 0, JSON.stringify(hs))

    const broken = await measureClosed(catalogCellPlan('haproxy', { series: 'same', variant: 'article', connections: 20 }), 2, {
      ...ctx,
      launcher: ['/nonexistent/launcher'],
    })
    assert.notEqual(broken.status, 'failed', broken.reason)
    assert.ok(broken.proxy_cpu_us_per_req! > 0)
    assert.equal(broken.reference_kind, 'failed')
    assert.equal(broken.proxy_cpu_per_reference, null)
    assert.match(broken.reason, /reference rtt@1000\/s exited/)
  } finally {
    await runtime.stopAll()
  }
})
