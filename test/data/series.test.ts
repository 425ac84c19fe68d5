import { workCells, workHandshakeCells } from '../../lib/series/work.ts'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROXIES } from '../../lib/catalog/stack.ts'
import { BISECT_SERIES } from '../../lib/data/bisect.ts'
import { DEFAULT_KEY_SERIES } from '../../lib/data/default-keys.ts'
import { OWN_RATE_SERIES, ROW_SERIES, type RowSeries } from '../../lib/data/series.ts'
import { capacityCells } from '../../lib/series/capacity.ts'
import { h2Cells } from '../../lib/series/h2.ts'
import { h3Cells, h3HandshakeCells, h3OpenCombos } from '../../lib/series/h3.ts'
import { measurement } from '../fixtures/rows.ts'
import { l4Series } from '../../lib/series/l4.ts'
import { poolingCells } from '../../lib/series/pooling.ts'
import { resumptionCells } from '../../lib/series/resumption.ts'
import { scenarioCells } from '../../lib/series/scenarios.ts'
import { tlsSeries } from '../../lib/series/tls.ts'
import { versionsSeries } from '../../lib/series/versions.ts'
import { wsSeries } from '../../lib/series/ws.ts'

test('ROW_SERIES lists exactly the series the harness writes (lib/series)', () => {
  const pooling = poolingCells(PROXIES, { connections: 10, backendVersion: 'x', custom: [{ proxy: 'nginx', file: '/tmp/my.conf' }] }).map((c) => c.series)
  const capacity = capacityCells({ proxies: PROXIES, plan: { custom: [] } }).map((c) => c.series)
  const scenarios = scenarioCells(PROXIES, { connections: 10, backendVersion: 'x', set: 'all', limit: { max: 100000, why: '' } }).map((c) => c.series)
  const capable = () => ({ capable: true, reason: 'test' })
  const h3 = h3Cells(PROXIES, 10, 'standard', 'x', capable)
  const h3Open = h3OpenCombos(
    h3,
    h3.filter((c) => c.series === 'h3' && c.streams === 1).map((c) => measurement({ series: 'h3', proxy: c.proxy, version: c.version, streams: 1, rps: 1000 })),
  ).map((x) => x.cell)
  const protocols = [
    ...h2Cells(PROXIES, 10, 'standard'),
    ...h3,
    ...h3Open,
    ...h3HandshakeCells(PROXIES, 'standard', capable),
    ...resumptionCells(PROXIES, 'standard'),
  ].map((c) => c.series)
  const written = new Set([
    ...pooling,
    OWN_RATE_SERIES,
    ...capacity,
    ...scenarios,
    ...protocols,
    BISECT_SERIES,
    ...[...workCells(PROXIES, {}, true), ...workHandshakeCells(PROXIES, {})].map((c) => c.series),
    ...[versionsSeries(), tlsSeries(), wsSeries(), l4Series()].flatMap((x) => x.phases.map((p) => p.name)),
  ])
  // tls-default-key writes default-keys.csv (lib/data/default-keys.ts), no table of ROW_SERIES.
  written.delete(DEFAULT_KEY_SERIES)
  assert.deepEqual([...new Set(Object.values(ROW_SERIES).flat())].sort(), [...written].sort())
  assert.deepEqual(ROW_SERIES.handshakes, ['work', 'tls-handshake', 'h3-handshake', 'h3-handshake-tcp', 'resumption'])
  assert.deepEqual(ROW_SERIES.websocket, ['ws-echo', 'ws-hold'])
})

test('RowSeries is the names of SERIES_ROWS: a name no series writes is a type error (tsc checks the expect-error)', () => {
  const known: RowSeries[] = ['pool-added', 'tls-open', 'ws-hold', 'l4-stream', 'h3-handshake-tcp', OWN_RATE_SERIES]
  // @ts-expect-error 'pool-aded' is not a row series
  const typo: RowSeries = 'pool-aded'
  assert.ok(known.every((s) => Object.values(ROW_SERIES).flat().includes(s)) && typo)
})
