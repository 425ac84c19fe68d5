import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadRun } from '../../lib/data/run-data.ts'
import {
  busyIdleRatios,
  busyRounds,
  disturbanceEffects,
  formatBusyMachine,
  roundFollower,
  sideFacts,
  splitByRound,
  verdictChanges,
  wallByPhase,
} from '../../lib/bench/busy-machine.ts'
import type { VerdictLine } from '../../lib/bench/stability.ts'
import { FIXTURE_RUN } from '../fixtures/run.ts'
import { measurement } from '../fixtures/rows.ts'
import type { RunData } from '../../lib/data/run-data.ts'
import { progressLine } from '../../lib/run/phase.ts'

const line = (id: string, verdicts: (string | null)[]): VerdictLine => ({ kind: 'claim', id, title: id, verdicts, flips: 0, same: false })

test('busyRounds: one round of each pair, drawn from the seed and replayed by it; a round past the planned ones is busy', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const busy = busyRounds(8, seed)
    for (let r = 1; r <= 8; r += 2) assert.notEqual(busy(r), busy(r + 1), `seed ${seed} rounds ${r}-${r + 1}`)
    assert.ok(busy(9) && busy(20))
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map(busyRounds(8, seed)), [1, 2, 3, 4, 5, 6, 7, 8].map(busy))
  }
  const orders = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => [1, 3, 5, 7].map(busyRounds(8, seed)).join()))
  assert.ok(orders.size > 1, 'the first round of a pair is not always the busy one')
  // An odd last round has no partner: it is busy.
  assert.ok(busyRounds(3, 1)(3))
})

test('decided verdicts that differ between the idle and the busy rounds; inconclusive ones do not count', () => {
  const lines = [
    line('flipped', ['held', 'not held']),
    line('inconclusive-busy', ['held', 'inconclusive']),
    line('idle-undecided', ['inconclusive', 'held']),
    line('missing', ['held', null]),
    line('same', ['reproduced', 'reproduced']),
  ]
  assert.deepEqual(
    verdictChanges(lines).map((l) => l.id),
    ['flipped'],
  )
})

test("the fixture run split by its rounds: every row on one side, each side's cells at a minimum of one valid window", () => {
  const run = loadRun(FIXTURE_RUN)
  const isBusy = busyRounds(2, 1)
  const { idle, busy } = splitByRound(run, isBusy)
  assert.equal(idle.measurements.length + busy.measurements.length, run.measurements.length)
  assert.ok(idle.measurements.every((r) => !isBusy(r.repeat)) && busy.measurements.every((r) => isBusy(r.repeat)))
  const facts = [sideFacts('idle', idle, 1), sideFacts('busy', busy, 1)]
  for (const f of facts) assert.ok(f.reached.length > 0 && f.reached.length <= f.cellsPlanned, `${f.name}: ${f.reached.length} of ${f.cellsPlanned}`)
  assert.equal(facts[0]!.quiet.disturbed + facts[1]!.quiet.disturbed, 57)
})

test("busy/idle per cell from its pairs of rounds; a spoiled busy window's place taken by the cell's next redone window", () => {
  const isBusy = (r: number) => r === 2 || r === 3 || r > 4
  const row = (repeat: number, v: number, status: 'valid' | 'invalid' = 'valid', proxy = 'haproxy') =>
    measurement({ repeat, proxy, proxy_cpu_us_per_req: v, status, reason: status === 'valid' ? '' : 'disturbed: x' })
  const run = {
    measurements: [
      // haproxy: pair 1-2 reads 11/10, pair 3-4's busy round 3 spoiled, redone as 5: 13/10.
      row(1, 10),
      row(2, 11),
      row(3, 30, 'invalid'),
      row(4, 10),
      row(5, 13),
      // nginx: its idle window of pair 3-4 invalid: one pair.
      row(1, 20, 'valid', 'nginx'),
      row(2, 21, 'valid', 'nginx'),
      row(3, 22, 'valid', 'nginx'),
      row(4, 99, 'invalid', 'nginx'),
    ],
    handshakes: [],
    websocket: [],
  } as unknown as RunData
  const ratios = busyIdleRatios(run, 4, isBusy)
  assert.deepEqual(
    ratios.map((r) => [r.cell.includes('haproxy') ? 'haproxy' : 'nginx', Number(r.ratio.toFixed(3)), r.pairs]),
    [
      ['haproxy', 1.2, 2],
      ['nginx', 1.05, 1],
    ],
  )
})

test('wall time per series and side: a task lasts until the next starts; an attempt end closes the task before it', () => {
  const isBusy = (r: number) => r === 2
  const walls = wallByPhase(
    [
      { atMs: 0, phase: 'pooling', repeat: 1 },
      { atMs: 10_000, phase: 'pooling', repeat: 2 },
      { atMs: 25_000, phase: '', repeat: 0 },
      { atMs: 900_000, phase: 'pooling', repeat: 2 },
      { atMs: 905_000, phase: 'tls', repeat: 1 },
    ],
    isBusy,
    908_000,
  )
  assert.deepEqual(walls, [
    { phase: 'pooling', idleS: 10, busyS: 20 },
    { phase: 'tls', idleS: 3, busyS: 0 },
  ])
})

test("the bench's table and criteria: cells the idle rounds reached, the median pair ratio, wall per series", () => {
  const run = loadRun(FIXTURE_RUN)
  const idle = sideFacts('idle', run, 1)
  const f = {
    idle,
    busy: { ...idle, name: 'busy', reached: idle.reached.slice(1) },
    walls: [
      { phase: 'pooling', idleS: 100, busyS: 150 },
      { phase: 'tls', idleS: 100, busyS: 210 },
    ],
    ratios: [{ ratio: 1.01 }, { ratio: 1.03 }, { ratio: 1.2 }],
    changes: [line('flipped', ['held', 'not held'])],
    effects: disturbanceEffects(run),
    neighbour: 'pb-neighbour',
    neighbourInReport: true,
  }
  const text = formatBusyMachine(f)
  const n = idle.reached.length
  assert.match(
    text,
    new RegExp(`busy rounds: ${n - 1} of the ${n} cells the idle rounds brought to their minimum did too .*: ${(n - 1) / n >= 0.9 ? 'yes' : 'NO'}`),
  )
  assert.match(text, /busy\/idle on the median cell, from the pairs: 1\.030 \(3 cells\) \(wanted within ±5%\): yes/)
  assert.match(text, /decided verdicts that differ .*: 1 \(wanted 0\): NO \(flipped\)/)
  assert.match(text, /the slowest series: 2\.10x the idle rounds' \(wanted <= 2x\): NO/)
  assert.match(text, /tls +1m40s +3m30s +2\.10x/)
  assert.match(text, /in the report's setup section: yes/)
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

test('the round follower: the neighbour on for a busy round, off for an idle one, in order; each task start recorded; the end stops it', async () => {
  const events: string[] = []
  const recorded: { phase: string; repeat: number }[] = []
  let t = 0
  const follower = roundFollower((r) => r === 2 || r > 2, {
    record: (s) => void recorded.push({ phase: s.phase, repeat: s.repeat }),
    // A slow start: a later switch still waits for it.
    neighbour: async (on) => {
      await new Promise((r) => setTimeout(r, on ? 20 : 1))
      events.push(on ? 'on' : 'off')
    },
    now: () => t++,
  })
  const task = (label: string) => progressLine('pooling', 0, 4, label, 1)
  for (const l of [
    task('same haproxy 3.4.7 article r1'),
    'warning: something',
    task('same haproxy 3.4.7 article r2'),
    task('same nginx 1.31.3 article r2'),
    task('same haproxy 3.4.7 article r1'),
  ])
    follower.line(l)
  await follower.end()
  assert.deepEqual(events, ['off', 'on', 'on', 'off', 'off'])
  assert.deepEqual(
    recorded.map((r) => `${r.phase}:${r.repeat}`),
    ['pooling:1', 'pooling:2', 'pooling:2', 'pooling:1', ':0'],
  )
})
