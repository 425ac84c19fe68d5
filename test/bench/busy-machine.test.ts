import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadRun } from '../../lib/data/run-data.ts'
import { busyRunFacts, disturbanceEffects, formatBusyMachine, verdictChanges } from '../../lib/bench/busy-machine.ts'
import type { VerdictLine } from '../../lib/bench/stability.ts'
import { FIXTURE_RUN } from '../fixtures/run.ts'
import { measurement } from '../fixtures/rows.ts'
import type { RunData } from '../../lib/data/run-data.ts'

const line = (id: string, verdicts: (string | null)[]): VerdictLine => ({ kind: 'claim', id, title: id, verdicts, flips: 0, same: false })

test('verdictChanges: a decided busy verdict against agreeing decided idle ones; inconclusive and idle disagreement are allowed', () => {
  const lines = [
    line('flipped', ['held', 'not held', 'held']),
    line('inconclusive-busy', ['held', 'inconclusive', 'held']),
    line('idle-disagree', ['held', 'not held', 'not held']),
    line('idle-undecided', ['inconclusive', 'held', 'inconclusive']),
    line('same', ['reproduced', 'reproduced', 'reproduced']),
  ]
  assert.deepEqual(
    verdictChanges(lines, [0, 2], 1).map((l) => l.id),
    ['flipped'],
  )
})

test('busyRunFacts and the disturbance effects on the fixture run: its disturbed windows counted, cells at the minimum of 2 valid repeats', () => {
  const run = loadRun(FIXTURE_RUN)
  const f = busyRunFacts('fixture', run)
  assert.equal(f.quiet.disturbed, 57)
  assert.ok(f.cellsAtMinimum > 0 && f.cellsAtMinimum < f.cellsPlanned, `${f.cellsAtMinimum} of ${f.cellsPlanned}`)
  const effects = disturbanceEffects(run)
  assert.ok(effects.length > 0)
  for (const e of effects) assert.ok(e.windows > 0 && e.foreignShare > 0.1 && e.worstShift >= e.medianShift, JSON.stringify(e))
  const text = formatBusyMachine([f, { ...f, name: 'busy' }], { idle: [0], busy: 1, neighbour: 'pb-neighbour', changes: [], effects, neighbourInReport: false })
  assert.match(text, /with the neighbour: \d+% of planned cells reached their minimum valid repeats \(wanted >= 95%\): NO/)
  assert.match(
    text,
    new RegExp(
      `with the neighbour: ${f.cellsAtMinimum} of the ${f.cellsAtMinimum} cells every idle run brought to their minimum did too \\(100%\\) \\(wanted >= 90%\\): yes`,
    ),
  )
  // A cell the busy run missed that every idle run reached is counted against it; one no idle run reached is not.
  const missed = formatBusyMachine([f, { ...f, name: 'busy', reached: f.reached.slice(1) }], {
    idle: [0],
    busy: 1,
    neighbour: 'x',
    changes: [],
    effects,
    neighbourInReport: false,
  })
  const n = f.cellsAtMinimum
  assert.match(missed, new RegExp(`${n - 1} of the ${n} cells every idle run .*\\(wanted >= 90%\\): ${(n - 1) / n >= 0.9 ? 'yes' : 'NO'}`))
  const idleMissed = formatBusyMachine([{ ...f, reached: f.reached.slice(1) }, f], {
    idle: [0],
    busy: 1,
    neighbour: 'x',
    changes: [],
    effects,
    neighbourInReport: false,
  })
  assert.match(idleMissed, new RegExp(`${f.cellsAtMinimum - 1} of the ${f.cellsAtMinimum - 1} cells every idle run`))
  assert.match(text, /wall time 1\.00x the slower idle run's \(wanted <= 2x\): yes/)
  assert.match(text, /the neighbour's command \(pb-neighbour\) in the end summary's top 3: NO; in the report's setup section: NO/)
})

test('disturbanceEffects: windows counted from their clean slices are compared with the whole valid ones, apart from disturbed ones', () => {
  const run = {
    measurements: [
      measurement({ repeat: 1, proxy_cpu_us_per_req: 10 }),
      measurement({ repeat: 2, proxy_cpu_us_per_req: 12 }),
      measurement({ repeat: 3, proxy_cpu_us_per_req: 12.1, counted_share: 0.6, foreign_cpu_share: 0.02 }),
      measurement({
        repeat: 4,
        proxy_cpu_us_per_req: 16.5,
        status: 'invalid',
        reason: "disturbed: steal 0.0% / foreign CPU 45% on the proxy's cores",
        foreign_cpu_share: 0.45,
      }),
    ],
    handshakes: [],
    websocket: [],
  } as unknown as RunData
  const effects = disturbanceEffects(run)
  assert.deepEqual(
    effects.map((e) => [e.kind, e.windows, Number(e.medianShift.toFixed(3))]),
    [
      ['counted', 1, 0.1],
      ['disturbed', 1, 0.5],
    ],
  )
})
