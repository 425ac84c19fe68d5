import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { requestTarget, cellScheme } from '../../lib/measure/cell.ts'
import { cellRowKey } from '../../lib/series/tasks.ts'
import { CONNECTION_COUNTS, JSON_SIZES, S004_L7, scenarioCells } from '../../lib/series/scenarios.ts'

const roomy = { max: 100_000, why: '' }
const name = (c: ReturnType<typeof scenarioCells>[number]) => `${c.proxy} ${c.variant} ${cellScheme(c)} ${requestTarget(c)} ${c.connections}`

test('quick (one): per proxy the reference, http, logging, one /json size and one connection count; the direct floors', () => {
  const cells = scenarioCells(['haproxy', 'nginx'], { connections: 200, backendVersion: 'b', set: 'one', limit: roomy })
  assert.deepEqual(cells.map(name), [
    'direct direct http / 200',
    'direct direct http /json?size=10240 200',
    'direct direct http / 1000',
    'haproxy pool-added https / 200',
    'haproxy http http / 200',
    'haproxy logging https / 200',
    'haproxy pool-added https /json?size=10240 200',
    'haproxy http http / 1000',
    'nginx pool-added https / 200',
    'nginx http http / 200',
    'nginx logging https / 200',
    'nginx pool-added https /json?size=10240 200',
    'nginx http http / 1000',
  ])
  assert.ok(cells.every((c) => c.series === 'scenarios' && !c.unrunnable))
  // Every cell is its own row key: a resume never takes one for another.
  assert.equal(new Set(cells.map((c) => cellRowKey(c, 1))).size, cells.length)
})

test("standard (all): every size and connection count for every proxy, the profile's own count not twice", () => {
  const cells = scenarioCells(PROXIES, { connections: 500, backendVersion: 'b', set: 'all', limit: roomy })
  // + seed 004's dynamic L7 cell (plain HTTP /json at 2000) per proxy and its direct floor
  const per = 3 + JSON_SIZES.all.length + CONNECTION_COUNTS.all.length - 1 + 1
  assert.equal(cells.length, PROXIES.length * per + 1 + JSON_SIZES.all.length + CONNECTION_COUNTS.all.length - 1 + 1)
  assert.deepEqual(
    [...new Set(cells.map((c) => c.connections))].sort((a, b) => a - b),
    [500, 1000, 2000],
  )
  assert.equal(new Set(cells.map((c) => cellRowKey(c, 1))).size, cells.length)
  const s004 = cells.filter((c) => c.path === '/json' && c.connections === S004_L7.connections)
  assert.deepEqual(
    s004.map((c) => `${c.proxy} ${c.variant} ${c.bodyBytes}`),
    ['direct direct 10240', ...PROXIES.map((p) => `${p} http 10240`)],
  )
  // quick ('one') measures no such cell
  assert.ok(!scenarioCells(PROXIES, { connections: 200, backendVersion: 'b', set: 'one', limit: roomy }).some((c) => c.connections === 2000))
})

test("a connection count above the machine's limit is kept as a cell that fails with the limit in words", () => {
  const limit = { max: 1500, why: 'ulimit -n is 3128: at most 1500 clients' }
  const cells = scenarioCells(['haproxy'], { connections: 200, backendVersion: 'b', set: 'all', limit })
  const over = cells.filter((c) => c.unrunnable)
  assert.deepEqual(
    over.map((c) => `${c.proxy} ${c.connections}${c.path === '/json' ? ' /json' : ''}`),
    ['direct 2000', 'direct 2000 /json', 'haproxy 2000', 'haproxy 2000 /json'],
  )
  assert.equal(over[0]!.unrunnable, '2000 connections do not fit this machine: ulimit -n is 3128: at most 1500 clients')
})
