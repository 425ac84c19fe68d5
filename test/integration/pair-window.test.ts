import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadStack } from '../../lib/catalog/stack.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { rawFile, repeatStem } from '../../lib/data/raw-files.ts'
import { catalogCellPlan } from '../../lib/measure/cell.ts'
import { measureClosedPair } from '../../lib/measure/pair-window.ts'
import { parseWrkOutput } from '../../lib/roles/wrk.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { thenContext } from '../../lib/series/then.ts'
import { resolveThenBuild } from '../../lib/setup/then-builds.ts'
import { smokeContext, waitForRunLock } from './support/smoke-cell.ts'

// A real HAProxy pair at one instant (native runtime): today's build and a copy of it as a
// second process (--pair-same: one version, one config, so the two stacks' roles must be told
// apart), both proxies on the proxy's core, each loaded by its own wrk. Each side's row is its
// own: its requests from its own backend and wrk report, its CPU from its own proxy's cgroup.
test('a pair at one instant: both sides served, verified and counted apart in one window', { timeout: 300_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'pb-pair-window-'))
  const release = await waitForRunLock(out)
  const runtime = new NativeRuntime(`pair-window-${process.pid}`)
  // Which cgroups the window read: each side's proxy's own.
  const read = new Set<string>()
  const cpuNs = runtime.cpuNs.bind(runtime)
  runtime.cpuNs = (role) => (read.add(role.spec.name), cpuNs(role))
  try {
    const ctx = await smokeContext(runtime, 'pair-window', out, memoryLogger())
    const now = catalogCellPlan('haproxy', { series: 'pool-added', variant: 'pool-added', connections: ctx.connections })
    const copy = await resolveThenBuild(loadStack('haproxy'), {
      proxy: 'haproxy',
      baseline: 'test',
      version: now.version,
      sha256: null,
      now: now.stackVersion!,
      pairSame: true,
      configs: 'today',
    })
    assert.equal(copy.side.how, 'copy', copy.side.note)
    const then = { ...now, build: copy.build! }
    const thenCtx = thenContext(ctx)
    const [n, t] = await measureClosedPair(now, then, 1, ctx, thenCtx)
    for (const [side, row, dir] of [
      ['now', n, out],
      ['then', t, join(out, 'then')],
    ] as const) {
      assert.equal(row.status, 'valid', `${side}: ${row.reason}`)
      assert.ok(row.requests > 100, `${side}: ${row.requests} requests`)
      // Its wrk's own report, under its own raw/, counted the requests its own backend counted (validity compares the two).
      const report = parseWrkOutput(readFileSync(rawFile(dir, repeatStem(row === n ? now : then, 1), 'wrk.txt'), 'utf8'))
      assert.ok(report && report.requests >= row.requests, `${side}: wrk ${report?.requests} against ${row.requests}`)
      // A pooled proxy: few backend connections per request.
      assert.ok(row.backend_conns_per_1k_req! < 100, `${side}: ${row.backend_conns_per_1k_req} backend conns per 1k`)
      assert.ok(row.proxy_cpu_us_per_req! > 0 && row.proxy_cpu_share! > 0)
    }
    assert.notEqual(n.requests, t.requests, 'each side counts its own requests')
    // Two proxies on one core: their shares of it add up to at most the core.
    assert.ok(n.proxy_cpu_share! + t.proxy_cpu_share! <= 1.05, `shares ${n.proxy_cpu_share} + ${t.proxy_cpu_share}`)
    const proxies = [...read].filter((name) => name.startsWith('proxy-haproxy-'))
    assert.equal(proxies.length, 2, `each side's proxy read from its own cgroup: ${proxies.join(', ')}`)
    // One window: one judgement for both.
    assert.equal(n.foreign_cpu_share, t.foreign_cpu_share)
    assert.equal(n.started_at.slice(0, 19), t.started_at.slice(0, 19))

    // An even round starts the then stack first (an order effect cancels over the rounds): the rows come back now, then.
    const [n2, t2] = await measureClosedPair(now, then, 2, ctx, thenCtx)
    assert.deepEqual([n2.version, t2.version, n2.repeat, t2.repeat], [now.version, then.version, 2, 2])
    assert.ok(n2.status === 'valid' && t2.status === 'valid', `${n2.reason} ${t2.reason}`)
    assert.ok(existsSync(rawFile(join(out, 'then'), repeatStem(then, 2), 'wrk.txt')) && existsSync(rawFile(out, repeatStem(now, 2), 'wrk.txt')))

    // A then side that cannot start: its row says why, and now is measured alone, with all the connections.
    for (const repeat of [3, 4]) {
      const [alone, gone] = await measureClosedPair(now, { ...then, unrunnable: 'not here' }, repeat, ctx, thenCtx)
      assert.deepEqual([gone.status, gone.reason], ['failed', 'not here'])
      assert.equal(alone.status, 'valid', alone.reason)
      assert.ok(!existsSync(rawFile(join(out, 'then'), repeatStem(then, repeat), 'wrk.txt')))
    }
  } finally {
    await runtime.stopAll()
    release()
  }
})
