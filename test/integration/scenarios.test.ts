import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { catalogCellPlan, withVerifiedStack, type CellPlan, type CellContext } from '../../lib/measure/cell.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { loadgenRequests } from '../../lib/roles/loadgen.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'

interface Seen {
  status: string
  reason: string
  url?: string
  ok?: number
  log?: string
}

const outcome = { failed: (reason: string): Seen => ({ status: 'failed', reason }), invalid: (reason: string): Seen => ({ status: 'invalid', reason }) }

// Every proxy's http and logging variants on the real binaries (no load window: the cell
// protocol's start, verification and access-log check, plus 1000 requests), and /json
// bodies of a stated size through a proxy and straight to the backend.
test('http listeners answer plain HTTP, logging variants write a line per request, /json has the asked size', async () => {
  const log = memoryLogger()
  const runtime = new NativeRuntime(`scenarios-${process.pid}`)
  const out = mkdtempSync(join(tmpdir(), 'pb-scenarios-'))
  const ctx: CellContext = {
    runtime,
    runId: 'scenarios',
    runDir: out,
    cpus: defaultCpuLayout(),
    profile: PROFILES.smoke!,
    certs: await ensureCerts(certsDir, { force: false, log }),
  }
  // 1000 requests: Envoy's file logger flushes when its 64 KiB buffer fills (or every 10 s).
  const through = (cell: CellPlan) =>
    withVerifiedStack(cell, `t-${cell.proxy}-${cell.variant}-${cell.bodyBytes ?? 0}`, ctx, outcome, async ({ url, scratch }) => {
      const r = await loadgenRequests({
        url,
        n: 1000,
        c: 4,
        cacert: ctx.certs.ca,
        ...(cell.bodyBytes ? { expectBytes: cell.bodyBytes } : { expectBody: 'hello world' }),
      })
      const file = cell.stack?.variants[cell.variant]?.access_log
      return {
        status: 'valid',
        reason: '',
        url,
        ok: r.ok,
        log: file && existsSync(join(scratch, 'proxy', file)) ? readFileSync(join(scratch, 'proxy', file), 'utf8') : undefined,
      }
    })
  try {
    for (const proxy of PROXIES) {
      const http = await through(catalogCellPlan(proxy, { series: 'scenarios', variant: 'http', connections: 50 }))
      assert.equal(http.status, 'valid', `${proxy} http: ${http.reason}`)
      assert.match(http.url!, /^http:\/\/127\.0\.0\.1:\d+\/$/)
      assert.equal(http.ok, 1000)
      const logging = await through(catalogCellPlan(proxy, { series: 'scenarios', variant: 'logging', connections: 50 }))
      assert.equal(logging.status, 'valid', `${proxy} logging: ${logging.reason}`)
      assert.match(logging.url!, /^https:/)
      // Each format names the request: a line per request, the verification's 20 as well (Envoy may hold its last buffer).
      const lines = logging.log!.split('\n').filter((l) => /GET|"method":"GET"/.test(l)).length
      assert.ok(lines >= (proxy === 'envoy' ? 500 : 1020), `${proxy}: ${lines} access log lines`)
    }
    const json = await through({
      ...catalogCellPlan('nginx', { series: 'scenarios', variant: 'pool-added', connections: 50 }),
      path: '/json',
      bodyBytes: 10240,
    })
    assert.equal(json.status, 'valid', json.reason)
    assert.match(json.url!, /^https:\/\/127\.0\.0\.1:\d+\/json\?size=10240$/)
    assert.equal(json.ok, 1000)
    const direct = await through({
      series: 'scenarios',
      proxy: 'direct',
      version: 'test',
      variant: 'direct',
      keyType: 'ec256',
      connections: 50,
      scheme: 'http',
      path: '/json',
      bodyBytes: 100000,
    })
    assert.equal(direct.status, 'valid', direct.reason)
    assert.equal(direct.ok, 1000)
    // A size other than the one asked for is a mismatch, never an ok.
    const wrong = await withVerifiedStack(
      { ...catalogCellPlan('haproxy', { series: 'scenarios', variant: 'http', connections: 50 }), path: '/json', bodyBytes: 2048 },
      't-wrong',
      ctx,
      outcome,
      async ({ url }) => {
        const r = await loadgenRequests({ url, n: 10, c: 1, expectBytes: 2047 })
        return { status: 'valid', reason: '', ok: r.ok }
      },
    )
    assert.equal(wrong.ok, 0)
  } finally {
    await runtime.stopAll()
  }
})
