import type { Variant } from '../../lib/catalog/variants.ts'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { exec } from '../../lib/core/exec.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { catalogCellPlan, withVerifiedStack, type CellContext } from '../../lib/measure/cell.ts'
import { measureH2, verifyH2 } from '../../lib/measure/h2.ts'
import { measureHandshakes } from '../../lib/measure/handshake.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { parseH2loadOutput } from '../../lib/roles/h2load.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'

interface Seen {
  status: string
  reason: string
  h2?: string | null
  load?: ReturnType<typeof parseH2loadOutput>
}
const outcome = { failed: (reason: string): Seen => ({ status: 'failed', reason }), invalid: (reason: string): Seen => ({ status: 'invalid', reason }) }

// The real binaries: every proxy's h2 variant answers h2 by ALPN (nghttp) and carries an
// h2load run; a listener without h2 is caught; one h2 cell and ticket resumption through
// the cell protocol on HAProxy. Counts and protocols only, no timings.
test('h2 variants speak h2 to h2load, an h1-only listener is caught, a ticket-offering client resumes', async () => {
  assert.equal((await ensureGoBuild('loadgen')).error, undefined)
  const log = memoryLogger()
  const runtime = new NativeRuntime(`protocols-${process.pid}`)
  const out = mkdtempSync(join(tmpdir(), 'pb-protocols-'))
  const ctx: CellContext = {
    runtime,
    runId: 'protocols',
    runDir: out,
    cpus: defaultCpuLayout(),
    profile: PROFILES.smoke!,
    certs: await ensureCerts(certsDir, { force: false, log }),
  }
  try {
    for (const proxy of PROXIES) {
      const seen = await withVerifiedStack(
        catalogCellPlan(proxy, { series: 'h2', variant: 'h2', connections: 4 }),
        `p-${proxy}`,
        ctx,
        outcome,
        async ({ url }) => {
          const r = await exec('h2load', ['-c', '4', '-m', '10', '-n', '400', url])
          return { status: 'valid', reason: '', h2: await verifyH2(url, ctx.certs.ca), load: parseH2loadOutput(r.stdout) }
        },
      )
      assert.equal(seen.status, 'valid', `${proxy}: ${seen.reason}`)
      assert.equal(seen.h2, null, `${proxy}: ${seen.h2}`)
      assert.equal(seen.load?.protocol, 'h2', proxy)
      assert.equal(seen.load?.requests.succeeded, 400, proxy)
    }
    // nginx's pool-added has no http2: nghttp exits 0 but the check names it. (HAProxy's newest
    // build offers h2 on a bind without alpn; 2.6.12 does not.)
    const h1 = await withVerifiedStack(
      catalogCellPlan('nginx', { series: 'h2', variant: 'pool-added', connections: 4 }),
      'p-h1',
      ctx,
      outcome,
      async ({ url }) => ({ status: 'valid', reason: '', h2: await verifyH2(url, ctx.certs.ca) }),
    )
    assert.match(h1.h2 ?? '', /^no h2 via ALPN/)

    // One h2 cell through the closed-model protocol: the row names its streams and has a window of h2 requests.
    const row = await measureH2({ ...catalogCellPlan('haproxy', { series: 'h2', variant: 'h2', connections: 10 }), streams: 10 }, 1, ctx)
    assert.equal(row.streams, 10)
    assert.notEqual(row.status, 'failed', row.reason)
    assert.doesNotMatch(row.reason, /verification|h2load|not h2/)
    assert.ok(row.requests > 0 && (row.proxy_cpu_us_per_req ?? 0) > 0 && row.p50_ms !== null && row.p99_ms! >= row.p50_ms!, JSON.stringify(row))

    const hs = (resumption: 'none' | 'tickets' | 'tickets-tls12', proxy: 'haproxy' | 'nginx' = 'haproxy', variant: Variant = 'pool-added') =>
      measureHandshakes({ ...catalogCellPlan(proxy, { series: 'resumption', variant, connections: 2 }), resumption }, 1, ctx)
    const full = await hs('none')
    assert.equal(full.resumption, 'none')
    assert.ok(full.handshakes > 0 && full.resumed === 0, JSON.stringify(full))
    const resumed = await hs('tickets')
    assert.equal(resumed.resumption, 'tickets')
    // Each client's first handshake is full; HAProxy resumes the rest by its tickets (on by default).
    assert.ok(resumed.resumed > 0 && resumed.resumed / resumed.handshakes > 0.9, JSON.stringify(resumed))
    assert.doesNotMatch(resumed.reason, /resumed/)
    // TLS 1.2 tickets on nginx's documented cache settings (the standard profile's extra cells).
    const tls12 = await hs('tickets-tls12', 'nginx', 'session-cache')
    assert.equal(tls12.resumption, 'tickets-tls12')
    assert.ok(tls12.resumed > 0 && tls12.resumed / tls12.handshakes > 0.9, JSON.stringify(tls12))
  } finally {
    await runtime.stopAll()
  }
})
