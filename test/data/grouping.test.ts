import assert from 'node:assert/strict'
import { test } from 'node:test'
import { summarizeCells, TABLE_SPECS } from '../../lib/analysis/cells.ts'
import { buildCellGroups, type Row } from '../../lib/claims/cells.ts'
import {
  CELL_COLUMNS,
  cellIdOf,
  cellOfRepeatId,
  groupBy,
  groupCells,
  groupRows,
  keyId,
  noisyCells,
  projectId,
  projectKey,
  repeatIdOf,
  type TableName,
} from '../../lib/data/grouping.ts'
import { DEFAULT_KEYS } from '../../lib/data/default-keys.ts'
import { MEASUREMENTS, TABLES } from '../../lib/data/tables.ts'
import { fixtureTables } from '../fixtures/run.ts'
import { measurement } from '../fixtures/rows.ts'

test('a key is its values in column order; null, absent and empty are one value, as a CSV reads them back', () => {
  assert.equal(keyId(['same', 'haproxy', 200, null, undefined, '']), 'same|haproxy|200|||')
  assert.equal(keyId([null]), keyId(['']))
  assert.notEqual(keyId(['a', 'b']), keyId(['b', 'a']))
  const row = { proxy: 'nginx', version: '1.31.3', variant: 'article', body_bytes: null }
  assert.deepEqual(projectKey(row, ['proxy', 'body_bytes', 'streams']), { proxy: 'nginx', body_bytes: null, streams: null })
  // A projected key has the identity of the row it came from.
  assert.equal(projectId(projectKey(row, ['proxy', 'variant', 'streams']), ['proxy', 'variant', 'streams']), projectId(row, ['proxy', 'variant', 'streams']))
})

test('a repeat is its cell and its number: what --resume compares, and the cell the adaptive rounds read back from it', () => {
  const r = measurement({ proxy: 'nginx', repeat: 3 })
  const cell = cellIdOf('measurements', r)
  assert.equal(cell, 'same|nginx|1.31.3|article|ec256|closed|200||/||')
  assert.equal(MEASUREMENTS.cellId(r), cell)
  assert.equal(MEASUREMENTS.key(r), repeatIdOf(cell, 3))
  assert.equal(MEASUREMENTS.key(r), `${cell}|3`)
  assert.equal(cellOfRepeatId(MEASUREMENTS.key(r)), cell)
  // Every table, and the default-keys file of one phase, by its own cell columns.
  for (const name of Object.keys(TABLES) as TableName[]) assert.deepEqual(TABLES[name].cellColumns, CELL_COLUMNS[name])
  const served = { series: 'tls-default-key', proxy: 'caddy', version: '2.11.7', variant: 'default-cert', repeat: 2 }
  assert.equal(DEFAULT_KEYS.key(served as never), 'tls-default-key|caddy|2.11.7|default-cert|2')
})

test('rows group in the order their cells first appear, each with its rows in order and the key of its columns', () => {
  const rows = [
    measurement({ proxy: 'nginx', repeat: 1 }),
    measurement({ proxy: 'haproxy', repeat: 1 }),
    measurement({ proxy: 'nginx', repeat: 2 }),
    measurement({ proxy: 'nginx', model: 'open', target_rps: 500, repeat: 1 }),
  ]
  const cells = groupCells('measurements', rows)
  assert.deepEqual(
    cells.map((c) => [c.key.proxy, c.key.target_rps, c.rows.map((r) => r.repeat)]),
    [
      ['nginx', null, [1, 2]],
      ['haproxy', null, [1]],
      ['nginx', 500, [1]],
    ],
  )
  assert.deepEqual(Object.keys(cells[0]!.key), [...CELL_COLUMNS.measurements])
  assert.equal(cells[0]!.id, cellIdOf('measurements', rows[0]!))
  // A projection of fewer columns pools what they do not name.
  assert.deepEqual(
    groupRows(rows, ['proxy']).map((g) => [g.key, g.rows.length]),
    [
      [{ proxy: 'nginx' }, 3],
      [{ proxy: 'haproxy' }, 1],
    ],
  )
  // A derived projection: a column read with its default.
  assert.deepEqual([...groupBy(rows, (r) => [r.streams ?? 1]).keys()], ['1'])
})

test('noisy cells: each group of a projection with the pooled noise of all of them', () => {
  const rows = ['haproxy', 'nginx', 'caddy', 'envoy'].flatMap((proxy, p) =>
    [1, 2, 3].map((repeat) => measurement({ proxy, repeat, proxy_cpu_us_per_req: 20 + 10 * p + repeat / 10 })),
  )
  const cells = noisyCells(rows, ['proxy', 'key_type'], (r) => r.proxy_cpu_us_per_req)
  assert.deepEqual([...cells.keys()], ['haproxy|ec256', 'nginx|ec256', 'caddy|ec256', 'envoy|ec256'])
  const haproxy = cells.get(keyId(['haproxy', 'ec256']))!
  assert.deepEqual(
    [...haproxy.entries()],
    [
      [1, 20.1],
      [2, 20.2],
      [3, 20.3],
    ],
  )
  assert.ok(haproxy.noise && haproxy.noise.df === 8, 'four cells of three repeats: 8 degrees of freedom pooled')
  assert.equal(cells.get(keyId(['caddy', 'ec256']))!.noise, haproxy.noise)
})

test('resume, aggregation and the claims ledger see the same cells of the fixture run', async () => {
  const tables = fixtureTables()
  for (const name of Object.keys(CELL_COLUMNS) as TableName[]) {
    const rows: readonly Row[] = tables[name] ?? []
    const grouped = groupCells(name, rows)
      .map((c) => c.id)
      .sort()
    assert.ok(grouped.length > 0, name)
    assert.deepEqual([...new Set(rows.map((r) => TABLES[name].cellId(r as never)))].sort(), grouped, `${name}: resume`)
    assert.deepEqual((await summarizeCells(TABLE_SPECS[name], rows)).map((c) => projectId(c.key, CELL_COLUMNS[name])).sort(), grouped, `${name}: aggregation`)
    assert.deepEqual(
      buildCellGroups(name, rows)
        .map((c) => c.id)
        .sort(),
      grouped,
      `${name}: claims`,
    )
  }
})
