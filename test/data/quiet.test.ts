import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseCulprits, quietLine, quietSummary, tooBusyLines } from '../../lib/data/quiet.ts'
import { measurement } from '../fixtures/rows.ts'

const disturbed = (repeat: number, culprits: string, o = {}) =>
  measurement({
    repeat,
    status: 'invalid',
    reason: "disturbed: steal 0.0% / foreign CPU 45% on the proxy's cores",
    duration_s: 2,
    foreign_processes: culprits,
    ...o,
  })

test('parseCulprits reads the foreign_processes column back; malformed parts are skipped', () => {
  assert.deepEqual(parseCulprits('python3 63%, cc1 21%'), [
    ['python3', 0.63],
    ['cc1', 0.21],
  ])
  assert.deepEqual(parseCulprits('pb neighbour 40%, garbage'), [['pb neighbour', 0.4]])
  assert.deepEqual(parseCulprits(undefined), [])
})

test('the end summary line: windows disturbed, redone (a later window of the cell exists), time waited, the top 3 commands by core-seconds', () => {
  const rows = [
    disturbed(1, 'python3 50%, cc1 20%'),
    measurement({ repeat: 2 }),
    disturbed(3, 'python3 40%, node 30%, make 5%'),
    measurement({ repeat: 4 }),
    // Another cell: its last window was disturbed and never redone (a budget ended it).
    disturbed(1, 'cc1 90%', { variant: 'pool-added' }),
  ]
  const s = quietSummary(
    { measurements: rows, handshakes: [], websocket: [] },
    { budget_s: 240, settle_s: 1.5, preflight: null, waits: 3, waited_s: 12.4, unquiet_waits: 0, spent_s: 18.4 },
  )
  assert.deepEqual([s.disturbed, s.redone, s.waitedS, s.waits], [3, 2, 12.4, 3])
  assert.deepEqual(
    s.top.map((t) => [t.command, Number(t.coreS.toFixed(2))]),
    [
      ['python3', 1.8],
      ['cc1', 2.2],
      ['node', 0.6],
    ].sort((a, b) => (b[1] as number) - (a[1] as number)),
  )
  assert.equal(
    quietLine(s),
    'other work: 3 windows disturbed, 2 redone, waited 12 s (3 waits); most CPU taken from the bench: cc1 2.2 core-s, python3 1.8 core-s, node 0.6 core-s',
  )
  // A part of a run (the busy bench's sides): the waits are the run's, left out.
  assert.equal(
    quietLine(s, { waits: false }),
    'other work: 3 windows disturbed, 2 redone; most CPU taken from the bench: cc1 2.2 core-s, python3 1.8 core-s, node 0.6 core-s',
  )
  // A quiet run says so; a run written before waits were recorded does not claim it waited 0 s.
  assert.equal(
    quietLine(
      quietSummary(
        { measurements: [measurement({})], handshakes: [], websocket: [] },
        { budget_s: 240, settle_s: 1.5, preflight: null, waits: 0, waited_s: 0, unquiet_waits: 0, spent_s: 0 },
      ),
    ),
    'other work: no window disturbed, nothing waited',
  )
  assert.match(
    quietLine(quietSummary({ measurements: rows, handshakes: [], websocket: [] }, undefined)),
    /redone, waits not recorded \(a run written before them\);/,
  )
})

test('windows counted from their clean slices are counted apart, not as disturbed, and their culprits count', () => {
  const rows = [
    measurement({ repeat: 1, counted_share: 0.6, duration_s: 2, foreign_processes: 'pb-neighbour 40%', reason: 'counted 1.2 of 2.0 s' }),
    measurement({ repeat: 2, counted_share: 1 }),
    disturbed(3, 'pb-neighbour 50%'),
    measurement({ repeat: 4 }),
  ]
  const s = quietSummary(
    { measurements: rows, handshakes: [], websocket: [] },
    { budget_s: 240, settle_s: 1.5, preflight: null, waits: 1, waited_s: 3, unquiet_waits: 0, spent_s: 5 },
  )
  assert.deepEqual([s.disturbed, s.redone, s.counted], [1, 1, 1])
  assert.equal(
    quietLine(s),
    'other work: 1 window disturbed, 1 redone, 1 counted from their clean slices (0.8 s of disturbed slices left out), waited 3 s (1 wait); most CPU taken from the bench: pb-neighbour 1.8 core-s',
  )
})

test('closed windows longer than the profile window extended themselves: counted, with the seconds they added', () => {
  const rows = [
    // Extended to 3.5 s of a 2 s window and counted from its clean slices.
    measurement({ repeat: 1, model: 'closed', counted_share: 0.6, duration_s: 3.5, foreign_processes: 'pb-neighbour 40%' }),
    // Extended to the bound and still short: disturbed, redone.
    disturbed(2, 'pb-neighbour 60%', { model: 'closed', duration_s: 4 }),
    measurement({ repeat: 3, model: 'closed', duration_s: 2 }),
    // An open-model run is not extended, whatever its length.
    measurement({ repeat: 1, model: 'open', duration_s: 8, variant: 'pool-added' }),
  ]
  const s = quietSummary({ measurements: rows, handshakes: [], websocket: [] }, undefined, { repeats: 1, duration_s: 2 })
  assert.deepEqual([s.extended, s.extendedS], [2, 3.5])
  assert.match(
    quietLine(s),
    /, 1 counted from their clean slices \(1\.4 s of disturbed slices left out\), 2 extended by 3\.5 s for clean time, waits not recorded/,
  )
  // Without the profile's window (a caller that does not know it), nothing is judged extended.
  assert.equal(quietSummary({ measurements: rows, handshakes: [], websocket: [] }, undefined).extended, 0)
})

test('a cell other work left short of its minimum valid repeats is not measured: machine too busy, with its culprits', () => {
  const quiet = { budget_s: 240, settle_s: 0.5, preflight: null, waits: 6, waited_s: 90, unquiet_waits: 2, spent_s: 240 }
  const busy = { variant: 'pool-added' }
  const errors = { variant: 'pool-removed' }
  const rows = [
    // Two valid repeats: measured, whatever was disturbed beside them.
    measurement({ repeat: 1 }),
    disturbed(2, 'pb-neighbour 50%'),
    measurement({ repeat: 3 }),
    // One valid, three disturbed: short of two for other work.
    measurement({ repeat: 1, ...busy }),
    disturbed(2, 'pb-neighbour 40%, node 10%', busy),
    disturbed(3, 'pb-neighbour 60%', busy),
    disturbed(4, 'pb-neighbour 50%', busy),
    // Short for its own errors, one window disturbed besides: its result, not the machine's.
    measurement({ repeat: 1, status: 'invalid', reason: 'errors 5.0% >= 1%', ...errors }),
    measurement({ repeat: 2, status: 'invalid', reason: 'errors 4.0% >= 1%', ...errors }),
    disturbed(3, 'pb-neighbour 50%', errors),
  ]
  const tables = { measurements: rows, handshakes: [], websocket: [] }
  const s = quietSummary(tables, quiet, { repeats: 2 })
  assert.equal(s.tooBusy.length, 1)
  assert.deepEqual([s.tooBusy[0]!.windows, s.tooBusy[0]!.disturbed], [4, 3])
  assert.match(s.tooBusy[0]!.cell, /pool-added/)
  const [line] = tooBusyLines(s)
  assert.match(
    line!,
    /^same haproxy .*pool-added.*: not measured: machine too busy \(3 of 4 windows disturbed, 75%; culprits pb-neighbour 3\.0 core-s, node 0\.2 core-s\)$/,
  )
  assert.match(quietLine(s), /^other work: 5 windows disturbed, 3 redone, 1 cell not measured, waited 90 s/)
  // Without the minimum (a caller that does not know it), no cell is judged short.
  assert.deepEqual(quietSummary(tables, quiet).tooBusy, [])
})

test('rows that record their disturbed slices: the too-busy line and the summary say what share of slices was disturbed', () => {
  const busy = { variant: 'pool-added' }
  const rows = [
    measurement({ repeat: 1, disturbed_slice_share: 0, duration_s: 2 }),
    measurement({ repeat: 2, disturbed_slice_share: 0.25, counted_share: 0.75, duration_s: 2 }),
    measurement({ repeat: 1, disturbed_slice_share: 0, duration_s: 2, ...busy }),
    disturbed(2, 'pb-neighbour 40%', { disturbed_slice_share: 0.8, ...busy }),
    disturbed(3, 'pb-neighbour 60%', { disturbed_slice_share: 0.9, duration_s: 4, ...busy }),
    // A row of a run before the column: left out of the shares, not read as 0.
    disturbed(4, 'pb-neighbour 50%', busy),
  ]
  const s = quietSummary({ measurements: rows, handshakes: [], websocket: [] }, undefined, { repeats: 2 })
  // Busy cell: (0 × 2 + 0.8 × 2 + 0.9 × 4) / 8 s read in slices.
  assert.equal(s.tooBusy[0]!.disturbedSliceShare, 0.65)
  assert.match(tooBusyLines(s)[0]!, /: not measured: machine too busy \(65% of slices disturbed, 3 of 4 windows; culprits pb-neighbour/)
  // The run: (0.5 + 1.6 + 3.6) s of 12 s.
  assert.deepEqual([s.slicedS, Number(s.disturbedSliceS.toFixed(2))], [12, 5.7])
  assert.match(quietLine(s), /^other work: 48% of slices disturbed, 3 windows disturbed, /)
})
