import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadStack, newestVersion, PROXIES } from '../../lib/catalog/stack.ts'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { memoryLogger } from '../../lib/core/log.ts'
import { appendRow, MEASUREMENTS } from '../../lib/data/tables.ts'
import { poolingOpenRate } from '../../lib/series/open-rate.ts'
import { customVariants, poolingCells, poolingSeries } from '../../lib/series/pooling.ts'
import type { SeriesContext } from '../../lib/series/types.ts'
import { measurement } from '../fixtures/rows.ts'

test('pooling plan: three main series per proxy, the extras, and one direct row', () => {
  const cells = poolingCells(PROXIES, { connections: 200, backendVersion: 'b' })
  const names = cells.map((c) => `${c.series} ${c.proxy} ${c.version} ${c.variant}`)
  assert.equal(cells.filter((c) => c.proxy === 'direct').length, 1)
  for (const p of PROXIES)
    for (const s of ['same', 'pool-added', 'pool-removed']) assert.equal(cells.filter((c) => c.proxy === p && c.series === s).length, 1, `${p} ${s}`)
  for (const v of ['reuse-never', 'server-close', 'httpclose'])
    assert.ok(names.includes(`haproxy-reuse haproxy ${newestVersion(loadStack('haproxy')).version} ${v}`), v)
  for (const v of ['1.22.1', '1.31.3'])
    for (const variant of ['literal', 'upstream-default', 'upstream-keepalive'])
      assert.ok(names.includes(`nginx-keepalive nginx ${v} ${variant}`), `${v} ${variant}`)
  // 'keepalive 32 local' exists from 1.29.7 (stack.yaml since): only on the newer version.
  assert.ok(names.includes('nginx-keepalive nginx 1.31.3 upstream-keepalive-local'))
  assert.ok(!names.includes('nginx-keepalive nginx 1.22.1 upstream-keepalive-local'))
  // nginx's extras on all four catalog versions (upstream-keepalive-local on 1.30.6 and 1.31.3);
  // --versions ends keeps 1.22.1 and 1.31.3 (lib/catalog/version-choice.ts).
  assert.equal(cells.length, 33)
  assert.equal(poolingCells(PROXIES, { connections: 200, backendVersion: 'b', versions: { kind: 'ends' } }).length, 26)
})

test('custom configs join as custom:<file> on the newest version', () => {
  const cells = poolingCells(['nginx'], { connections: 200, backendVersion: 'b', custom: [{ proxy: 'nginx', file: '/x/my.conf' }] })
  const c = cells.find((c) => c.series === 'custom')!
  assert.equal(c.variant, 'custom:my.conf')
  assert.equal(c.version, '1.31.3')
  assert.equal(c.template, '/x/my.conf')
})

test('two custom configs with one file name get distinct variants, the same on every resume; the same path twice is one config', () => {
  const a = { proxy: 'haproxy' as const, file: '/a/x.cfg' }
  const b = { proxy: 'haproxy' as const, file: '/b/x.cfg' }
  const other = { proxy: 'nginx' as const, file: '/c/x.cfg' }
  const names = [...customVariants([a, b, other, a]).values()]
  assert.equal(names.length, 3)
  assert.match(names[0]!, /^custom:x\.cfg#[0-9a-f]{6}$/)
  assert.match(names[1]!, /^custom:x\.cfg#[0-9a-f]{6}$/)
  assert.notEqual(names[0], names[1])
  assert.equal(names[2], 'custom:x.cfg', 'no clash on another proxy')
  // The order of the flags does not rename them.
  assert.deepEqual([...customVariants([b, a]).values()].reverse(), names.slice(0, 2))
  const cells = poolingCells(['haproxy'], { connections: 200, backendVersion: 'b', custom: [a, b] }).filter((c) => c.series === 'custom')
  assert.deepEqual(
    cells.map((c) => [c.variant, c.template]),
    [
      [names[0], '/a/x.cfg'],
      [names[1], '/b/x.cfg'],
    ],
  )
})

test('pooling-open: no valid closed ceiling → phase skipped with a warning', () => {
  const rows = [measurement({ series: 'same', status: 'invalid', reason: 'x' }), measurement({ series: 'direct', proxy: 'direct', variant: 'direct' })]
  assert.equal(poolingOpenRate(rows), null)
  const log = memoryLogger()
  const phase = poolingSeries().phases.find((p) => p.name === 'pooling-open')!
  const runDir = mkdtempSync(join(tmpdir(), 'pb-open-'))
  for (const r of rows) appendRow(runDir, MEASUREMENTS, r)
  assert.deepEqual(
    phase.tasks({ runDir, log, proxies: ['haproxy'], seed: 1, connections: 200, backendVersion: 'b', plan: { custom: [] } } as unknown as SeriesContext),
    [],
  )
  assert.match(log.lines.join('\n'), /pooling-open: no valid closed-model ceiling.*phase skipped/)
})

test('same-own-rate: each article config at half its OWN closed ceiling, not the lowest of all cells', () => {
  // The catalog's newest versions: the versions the pooling cells are planned on.
  const newest = (p: 'haproxy' | 'nginx') => newestVersion(loadStack(p)).version
  const rows = [
    measurement({ series: 'same', proxy: 'haproxy', version: newest('haproxy'), variant: 'article', rps: 12_000 }),
    measurement({ series: 'same', proxy: 'haproxy', version: newest('haproxy'), variant: 'article', rps: 12_400, repeat: 2 }),
    measurement({ series: 'same', proxy: 'nginx', version: newest('nginx'), variant: 'article', rps: 3_000 }),
    // The lowest ceiling of all pooling cells (what pooling-open's one rate follows): no bearing on the own rates.
    measurement({ series: 'pool-removed', proxy: 'caddy', version: '2.11.7', variant: 'pool-removed', rps: 900 }),
  ]
  const runDir = mkdtempSync(join(tmpdir(), 'pb-own-'))
  for (const r of rows) appendRow(runDir, MEASUREMENTS, r)
  const log = memoryLogger()
  const phase = poolingSeries().phases.find((p) => p.name === 'same-own-rate')!
  const tasks = phase.tasks({
    runDir,
    log,
    proxies: ['haproxy', 'nginx', 'caddy'],
    seed: 1,
    connections: 200,
    backendVersion: 'b',
    profile: { repeats: 1 },
    plan: { custom: [] },
  } as unknown as SeriesContext)
  // Only the proxies whose article cell has a ceiling here (caddy's is absent), each at its own rate, in its own series.
  const planned = tasks.map((t) => t.key.split('|'))
  const versions = new Map(planned.map((k) => [k[1], k]))
  assert.deepEqual([...versions.keys()].sort(), ['haproxy', 'nginx'])
  for (const k of planned) assert.equal(k[0], 'same-own-rate')
  assert.match(log.lines.join('\n'), /same-own-rate: each article config at 50% of its own closed ceiling/)
})
