import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { poolingCells } from '../../lib/series/pooling.ts'

test('pooling plan: three main series per proxy, the extras, and one direct row', () => {
  const cells = poolingCells(PROXIES, { connections: 200, backendVersion: 'b' })
  const names = cells.map((c) => `${c.series} ${c.proxy} ${c.version} ${c.variant}`)
  assert.equal(cells.filter((c) => c.proxy === 'direct').length, 1)
  for (const p of PROXIES) for (const s of ['same', 'pool-added', 'pool-removed']) assert.equal(cells.filter((c) => c.proxy === p && c.series === s).length, 1, `${p} ${s}`)
  assert.ok(names.includes('haproxy-reuse haproxy 2.8.25 reuse-never') && names.includes('haproxy-reuse haproxy 2.8.25 server-close'))
  for (const v of ['1.22.1', '1.31.3']) for (const variant of ['literal', 'upstream-default', 'upstream-keepalive']) assert.ok(names.includes(`nginx-keepalive nginx ${v} ${variant}`), `${v} ${variant}`)
  assert.equal(cells.length, 24)
})

test('custom configs join as custom:<file> on the newest version', () => {
  const cells = poolingCells(['nginx'], { connections: 200, backendVersion: 'b', custom: [{ proxy: 'nginx', file: '/x/my.conf' }] })
  const c = cells.find((c) => c.series === 'custom')!
  assert.equal(c.variant, 'custom:my.conf')
  assert.equal(c.version, '1.31.3')
  assert.equal(c.template, '/x/my.conf')
})
