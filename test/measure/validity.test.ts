import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  COLLAPSE_SHARE,
  COLLAPSED_PREFIX,
  collapsedRows,
  collapsedWindows,
  invalidReasons,
  MIN_REQUESTS_PER_CONNECTION,
  type CellWindow,
} from '../../lib/measure/validity.ts'

const ok = { generatorRequests: 10_000, generatorErrors: 0, windowRequests: 8_000, generatorCpuShare: 0.5 }

test('a clean window is valid', () => {
  assert.deepEqual(invalidReasons(ok), [])
})

test('errors at 1% or more invalidate the row', () => {
  assert.deepEqual(invalidReasons({ ...ok, generatorRequests: 9_900, generatorErrors: 100 }), ['errors 1.0% >= 1%'])
  assert.deepEqual(invalidReasons({ ...ok, generatorRequests: 9_901, generatorErrors: 99 }), [])
})

test('a saturated generator invalidates the row', () => {
  assert.deepEqual(invalidReasons({ ...ok, generatorCpuShare: 0.93 }), ['generator saturated: 93% of its cpuset >= 90%'])
  assert.deepEqual(invalidReasons({ ...ok, generatorCpuShare: 0.899 }), [])
})

test('failed verification, an exited role and an empty window are reasons too, all reported', () => {
  assert.deepEqual(invalidReasons({ ...ok, verification: '0/20 ok: 502', windowRequests: 0 }), ['verification failed: 0/20 ok: 502'])
  assert.deepEqual(invalidReasons({ ...ok, windowRequests: 0, exited: 'proxy exited (code 1)', generatorErrors: 500 }), [
    'proxy exited (code 1)',
    'errors 4.8% >= 1%',
    'no request completed inside the measurement window',
  ])
})

test('open model: dropped iterations are labelled dropped, not errors; a missed rate is a reason', () => {
  const open = { ...ok, generatorRequests: 9_800, targetRps: 1000, achievedRps: 1000 }
  assert.deepEqual(invalidReasons({ ...open, dropped: 200 }), ['dropped 2.0% >= 1%'])
  assert.deepEqual(invalidReasons({ ...open, dropped: 200, generatorErrors: 0, achievedRps: 980 }), [
    'dropped 2.0% >= 1%',
    'achieved 980 rps < target 1000 rps',
  ])
  assert.deepEqual(invalidReasons({ ...open, achievedRps: 995 }), [])
})

test('a closed window with fewer requests than connections stalled: invalid, the floor named', () => {
  assert.deepEqual(invalidReasons({ ...ok, windowRequests: 1, closedConnections: 200 }), [
    `stalled: 1 requests in the window < 200 (${MIN_REQUESTS_PER_CONNECTION} per connection of the closed model)`,
  ])
  assert.deepEqual(invalidReasons({ ...ok, windowRequests: 200, closedConnections: 200 }), [])
  // Not a closed model (no connections stated): no floor; an empty window keeps its own reason alone.
  assert.deepEqual(invalidReasons({ ...ok, windowRequests: 1 }), [])
  assert.deepEqual(invalidReasons({ ...ok, windowRequests: 0, closedConnections: 200 }), ['no request completed inside the measurement window'])
})

const window = (requests: number, o: Partial<CellWindow> = {}): CellWindow => ({ status: 'valid', requests, rps: requests / 2, ...o })

test('a window under a third of the median rate of its cell’s other valid windows collapsed, with its TIME_WAIT count', () => {
  const cell = [window(13_066), window(13_932), window(1, { time_wait_at_end: 28_100 }), window(335), window(13_500)]
  const collapsed = collapsedWindows(cell)
  assert.deepEqual([...collapsed.keys()], [2, 3])
  assert.equal(collapsed.get(2), `${COLLAPSED_PREFIX} 1 (0.5/s) vs a median 6,642/s of the cell's other windows (ports in TIME_WAIT at the end: 28,100)`)
  assert.match(collapsed.get(3)!, /^requests collapsed: 335 \(168\/s\) vs a median 6,642\/s/)
  // Just above the share: kept; the order of the rows does not matter.
  assert.equal(collapsedWindows([window(3_000), window(1_000 * 3 * COLLAPSE_SHARE + 1)]).size, 0)
  assert.deepEqual([...collapsedWindows([window(1), window(13_000)]).keys()], [0])
})

test('the collapse rule judges valid closed-model windows against valid ones only, and a lone window not at all', () => {
  assert.equal(collapsedWindows([window(1)]).size, 0)
  // An invalid neighbour is no reference, and is not judged again.
  assert.equal(collapsedWindows([window(1), window(13_000, { status: 'invalid' })]).size, 0)
  assert.equal(collapsedWindows([window(1, { status: 'invalid' }), window(13_000)]).size, 0)
  // A row without a rate (nothing measured) is neither.
  assert.equal(collapsedWindows([window(1), window(13_000, { rps: null })]).size, 0)
  // The open model's shortfall is its result (achieved < target judges it), not a collapse.
  assert.equal(collapsedWindows([window(1, { model: 'open' }), window(13_000, { model: 'open' })]).size, 0)
  assert.equal(collapsedWindows([window(1, { model: 'closed' }), window(13_000, { model: 'closed' })]).size, 1)
})

test('the pass over a table marks each cell’s collapsed rows invalid, its earlier reason kept, other cells alone', () => {
  const rows = [
    { cell: 'a', ...window(13_000), reason: '' },
    { cell: 'b', ...window(10), reason: '' },
    { cell: 'a', ...window(5), reason: 'counted 2 of 4 slices' },
    { cell: 'a', ...window(12_000), reason: '' },
  ]
  const marks = collapsedRows(rows, (r) => r.cell)
  assert.deepEqual([...marks.keys()], [2])
  assert.equal(marks.get(2)!.status, 'invalid')
  assert.match(marks.get(2)!.reason, /^requests collapsed: 5 \(2\.5\/s\) vs a median 6,250\/s of the cell's other windows; counted 2 of 4 slices$/)
})
