import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { exec } from '../../lib/core/exec.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { certsDir } from '../../lib/core/paths.ts'
import { catalogCellPlan, withVerifiedStack, type CellPlan, type CellContext } from '../../lib/measure/cell.ts'
import { measureH3 } from '../../lib/measure/h3.ts'
import { measureHandshakes } from '../../lib/measure/handshake.ts'
import { measureOpen } from '../../lib/measure/open.ts'
import { h3Cells, h3HandshakeCells } from '../../lib/series/h3.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { loadgenArgv, type HandshakeResult } from '../../lib/roles/loadgen.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { ensureCerts } from '../../lib/setup/certs.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'

// The real binaries, on loopback UDP: each proxy's h3 variant carries an h3 cell through the
// closed-model protocol; Caddy's h2 variant (protocols h1 h2, no UDP listener) is caught by
// the h3 verification; the direct row runs against the backend's own HTTP/3 listener.
// Counts and protocols only, no timings.
test('an h3 cell per capable proxy is valid over h3, a Caddy without h3 is caught, the direct row speaks h3', async () => {
  for (const p of ['loadgen', 'backend'] as const) assert.equal((await ensureGoBuild(p)).error, undefined)
  const log = memoryLogger()
  const runtime = new NativeRuntime(`h3-${process.pid}`)
  const out = mkdtempSync(join(tmpdir(), 'pb-h3-'))
  // A longer warm-up than smoke's: on a busy machine the generator's QUIC handshakes may outlast 1 s.
  const ctx: CellContext = {
    runtime,
    runId: 'h3',
    runDir: out,
    cpus: defaultCpuLayout(),
    profile: { ...PROFILES.smoke!, warmupS: 2, durationS: 2 },
    certs: await ensureCerts(certsDir, { force: false, log }),
  }
  const h3 = (c: CellPlan): CellPlan => ({ ...c, protocol: 'h3', streams: 2 })
  try {
    const row = await measureH3(h3(catalogCellPlan('caddy', { series: 'h3', variant: 'h3', connections: 4 })), 1, ctx)
    assert.equal(row.streams, 2)
    assert.equal(row.series, 'h3')
    // The machine may be busy (disturbed, generator share): anything but a failed cell or a protocol problem.
    assert.notEqual(row.status, 'failed', row.reason)
    assert.doesNotMatch(row.reason, /verification|ALPN|HTTP\/3|no request/)
    assert.ok(row.requests > 0 && (row.proxy_cpu_us_per_req ?? 0) > 0 && row.p50_ms !== null && row.p99_ms! >= row.p50_ms!, JSON.stringify(row))
    // Caddy's backend side stays pooled HTTP/1.1.
    assert.ok((row.backend_conns_per_1k_req ?? 1000) < 100, JSON.stringify(row))
    // Both ways per request: at least one datagram carries two requests or answers, and acknowledgements add a few (bounds fixed before the data).
    assert.ok(row.udp_datagrams_per_req !== null && row.udp_datagrams_per_req! >= 1 && row.udp_datagrams_per_req! <= 20, JSON.stringify(row))

    // Every other proxy's h3 cell on the version the series picks (its newest build that speaks HTTP/3).
    for (const c of h3Cells(['haproxy', 'nginx', 'envoy', 'traefik'], 4, 'smoke', 'test').filter(
      (x) => x.series === 'h3' && x.proxy !== 'direct' && !x.unrunnable,
    )) {
      const r = await measureH3({ ...c, streams: 2 }, 1, ctx)
      assert.notEqual(r.status, 'failed', `${c.proxy} ${c.version}: ${r.reason}`)
      assert.doesNotMatch(r.reason, /verification|ALPN|HTTP\/3|no request/, `${c.proxy} ${c.version}`)
      assert.ok(r.requests > 0 && (r.proxy_cpu_us_per_req ?? 0) > 0, `${c.proxy}: ${JSON.stringify(r)}`)
      assert.ok((r.udp_datagrams_per_req ?? 0) >= 1, `${c.proxy}: ${JSON.stringify(r)}`)
    }

    // The open model over QUIC through Caddy: a virtual user is a QUIC connection.
    const open = await measureOpen({ ...catalogCellPlan('caddy', { series: 'h3-open', variant: 'h3', connections: 50 }), protocol: 'h3' }, 1, 200, ctx)
    assert.notEqual(open.status, 'failed', open.reason)
    assert.doesNotMatch(open.reason, /verification|ALPN|HTTP\/3/)
    assert.ok(open.model === 'open' && open.requests > 0 && (open.udp_datagrams_per_req ?? 0) >= 1 && (open.max_vus ?? 0) >= 1, JSON.stringify(open))

    const noH3 = await measureH3(h3(catalogCellPlan('caddy', { series: 'h3', variant: 'h2', connections: 4 })), 1, ctx)
    assert.equal(noH3.status, 'invalid')
    assert.match(noH3.reason, /^verification failed: no QUIC connection with ALPN h3/)

    const direct = await measureH3(h3({ series: 'h3', proxy: 'direct', version: 'test', variant: 'direct', keyType: 'ec256', connections: 4 }), 1, ctx)
    assert.notEqual(direct.status, 'failed', direct.reason)
    assert.doesNotMatch(direct.reason, /verification|ALPN|HTTP\/3|no request/)
    assert.equal(direct.proxy_cpu_us_per_req, null)
    // Over the backend's QUIC listener: the connections opened stay the generator's 4 (plus none per request).
    assert.ok(direct.requests > 0 && (direct.backend_conns_per_1k_req ?? 1000) < 100, JSON.stringify(direct))
  } finally {
    await runtime.stopAll()
  }
})

type H3HandshakeResult = HandshakeResult & { early_data: number; alpn: string }

// The generator's handshake modes on the real binaries: full, resumed by ticket, and 0-RTT
// (Caddy accepts early data by default; HAProxy's h3 bind has no allow-0rtt, so it resumes without it).
test('h3-handshake: full, ticket-resumed and 0-RTT QUIC handshakes through Caddy and HAProxy', async () => {
  for (const p of ['loadgen', 'backend'] as const) assert.equal((await ensureGoBuild(p)).error, undefined)
  const runtime = new NativeRuntime(`h3hs-${process.pid}`)
  const ctx: CellContext = {
    runtime,
    runId: 'h3hs',
    runDir: mkdtempSync(join(tmpdir(), 'pb-h3hs-')),
    cpus: defaultCpuLayout(),
    profile: PROFILES.smoke!,
    certs: await ensureCerts(certsDir, { force: false, log: memoryLogger() }),
  }
  type Seen = { reason: string; modes?: Record<string, H3HandshakeResult> }
  const outcome = { failed: (reason: string): Seen => ({ reason }), invalid: (reason: string): Seen => ({ reason }) }
  try {
    for (const [proxy, acceptsEarly] of [
      ['caddy', true],
      ['haproxy', false],
    ] as const) {
      const seen = await withVerifiedStack(
        catalogCellPlan(proxy, { series: 'h3', variant: 'h3', connections: 1 }),
        `hs-${proxy}`,
        ctx,
        outcome,
        async ({ url }): Promise<Seen> => {
          const modes: Record<string, H3HandshakeResult> = {}
          for (const resume of ['none', 'tickets', '0rtt']) {
            const argv = loadgenArgv('h3-handshake', url, ctx.certs.ca, { c: 1, n: 10, resume, 'expect-body': 'hello world' })
            const r = await exec(argv[0]!, argv.slice(1), { timeoutMs: 60_000 })
            modes[resume] = JSON.parse(r.stdout) as H3HandshakeResult
          }
          return { reason: '', modes }
        },
      )
      assert.ok(seen.modes, `${proxy}: ${seen.reason}`)
      const { none, tickets, '0rtt': early } = seen.modes
      for (const m of [none!, tickets!, early!]) assert.equal(m.requests_ok, 10, `${proxy}: ${JSON.stringify(m)}`)
      assert.equal(none!.resumed, 0, proxy)
      // Each run's first handshake finds no ticket; the other nine resume.
      assert.equal(tickets!.resumed, 9, proxy)
      assert.equal(tickets!.early_data, 0, proxy)
      assert.equal(early!.resumed, 9, proxy)
      assert.equal(early!.early_data, acceptsEarly ? 9 : 0, proxy)
    }
  } finally {
    await runtime.stopAll()
  }
})

// The h3 series' handshake cells on the real binaries: per capable proxy a full QUIC handshake
// row with its datagrams and the TCP+TLS row through the same config; 0-RTT through Caddy; a
// config without QUIC caught by the h3 check. Counts and protocols only, no timings.
test('h3 handshake cells: QUIC and TCP+TLS per capable proxy, 0-RTT through Caddy, a config without h3 caught', async () => {
  for (const p of ['loadgen', 'backend'] as const) assert.equal((await ensureGoBuild(p)).error, undefined)
  const runtime = new NativeRuntime(`h3hc-${process.pid}`)
  const ctx: CellContext = {
    runtime,
    runId: 'h3hc',
    runDir: mkdtempSync(join(tmpdir(), 'pb-h3hc-')),
    cpus: defaultCpuLayout(),
    profile: PROFILES.smoke!,
    certs: await ensureCerts(certsDir, { force: false, log: memoryLogger() }),
  }
  try {
    const cells = h3HandshakeCells(['haproxy', 'nginx', 'envoy', 'traefik', 'caddy'], 'smoke').filter((c) => c.keyType === 'ec256' && c.resumption === 'none')
    assert.deepEqual(
      [...new Set(cells.map((c) => c.proxy))].sort(),
      ['caddy', 'envoy', 'haproxy', 'nginx', 'traefik'],
      'every proxy has a capable build in this catalog',
    )
    for (const c of cells) {
      const r = await measureHandshakes(c, 1, ctx)
      const what = `${c.series} ${c.proxy} ${c.version}: ${JSON.stringify(r)}`
      assert.notEqual(r.status, 'failed', what)
      assert.doesNotMatch(r.reason, /verification|ALPN|resumed/, what)
      assert.ok(r.handshakes > 0 && r.resumed === 0 && (r.proxy_cpu_us_per_handshake ?? 0) > 0, what)
      if (c.protocol === 'h3') {
        // A full handshake, its GET and the close: Initial and Handshake flights each way, the request, the answer (bounds fixed before the data).
        assert.ok(r.udp_datagrams_per_req !== null && r.udp_datagrams_per_req! >= 4 && r.udp_datagrams_per_req! <= 40, what)
        assert.equal(r.early_data, 0, what)
      } else {
        assert.equal(r.udp_datagrams_per_req, null, what)
      }
    }
    const caddy0rtt = h3HandshakeCells(['caddy'], 'smoke').find((c) => c.resumption === '0rtt')!
    const early = await measureHandshakes(caddy0rtt, 1, ctx)
    assert.notEqual(early.status, 'failed', early.reason)
    assert.doesNotMatch(early.reason, /0-RTT|verification/)
    assert.ok(early.resumed > 0 && (early.early_data ?? 0) > 0, JSON.stringify(early))

    // Caddy's h2 variant (protocols h1 h2: no UDP listener) as a QUIC handshake cell.
    const noH3 = await measureHandshakes(
      { ...catalogCellPlan('caddy', { series: 'h3-handshake', variant: 'h2', connections: 4 }), protocol: 'h3', resumption: 'none' },
      1,
      ctx,
    )
    assert.equal(noH3.status, 'invalid')
    assert.match(noH3.reason, /^verification failed: no QUIC connection with ALPN h3/)
  } finally {
    await runtime.stopAll()
  }
})
