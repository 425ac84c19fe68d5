import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cellValue, buildCellGroups } from '../../lib/claims/cells.ts'
import { driftFactor, MIN_PAIRED_ROUNDS, sharedRounds } from '../../lib/claims/rounds.ts'
import { LEVEL, studentQuantile } from '../../lib/core/intervals.ts'
import { CELL_DRIFT } from '../../lib/data/between-run-prior.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { evalCheck } from '../fixtures/ledger.ts'
import { measurement as m } from '../fixtures/rows.ts'

/** A round's start: round r of phase p, cell i of the round a few seconds in. */
const at = (phase: number, round: number, i: number) => new Date(Date.UTC(2026, 11, 4, 10, phase * 30 + round * 5, i * 20)).toISOString()

/** A cell's rows, one per round, `values[r - 1]` in round r of `phase`. */
const cell = (variant: string, metric: 'rps' | 'proxy_cpu_us_per_req', values: number[], phase: number, i: number, f: Partial<Measurement> = {}) =>
  values.map((v, k) => m({ proxy: 'nginx', series: 'scenarios', variant, repeat: k + 1, [metric]: v, started_at: at(phase, k + 1, i), invocation: 1, ...f }))

const ratio = (rows: Measurement[], bounds: object) =>
  evalCheck(
    { kind: 'ratio', metric: 'rps', select: { series: 'scenarios', proxy: 'nginx' }, a: { variant: 'pool-added' }, b: { variant: 'logging' }, ...bounds },
    { measurements: rows },
  )

// Five rounds in which the machine moved both cells by -20% .. +20% together.
const DRIFT = [0.8, 0.9, 1, 1.1, 1.2]

/** pool-added at 1500 rps and logging at 1000 rps, both drifting with DRIFT; logging in `phase`, at place `i` of its rounds. */
const driftingPair = (logging: { phase: number; i: number }) => [
  ...cell(
    'pool-added',
    'rps',
    DRIFT.map((k) => 1500 * k),
    0,
    0,
  ),
  ...cell(
    'logging',
    'rps',
    DRIFT.map((k) => 1000 * k),
    logging.phase,
    logging.i,
  ),
]

test('paired: sides measured in the same rounds, drifting together, give a tight interval and a decided verdict', () => {
  const rows = driftingPair({ phase: 0, i: 1 })
  const r = ratio(rows, { min: 1.3 })
  assert.equal(r.verdict, 'reproduced')
  assert.equal(r.interval!.method, 'paired bootstrap')
  assert.ok(r.interval!.hi / r.interval!.lo < 1.001, `${r.measured}`)
  assert.doesNotMatch(r.measured, /drift/)
})

test('unpaired: the same figures with side b measured in a later phase: widened by the drift, inconclusive', () => {
  const rows = driftingPair({ phase: 1, i: 0 })
  const r = ratio(rows, { min: 1.3 })
  assert.equal(r.verdict, 'inconclusive')
  // Equal repeat numbers in two phases are not rounds: the old rule paired them.
  assert.equal(r.interval!.method, 'bootstrap')
  assert.match(r.measured, /; measured apart \(not in the same rounds\): ×\/÷1\.\d\d for drift; wanted >= 1\.3$/)
})

test('a verdict the drift could flip is inconclusive when the sides were measured apart; the old rule decided it', () => {
  // Tight cells (±1%), 1.5 apart, bound 1.1: decided by their repeats alone, not against a drift of ×/÷1.49.
  const a = cell('pool-added', 'rps', [1485, 1500, 1515], 0, 0)
  const apart = ratio([...a, ...cell('logging', 'rps', [990, 1000, 1010], 1, 0)], { min: 1.1 })
  assert.equal(apart.verdict, 'inconclusive')
  assert.ok(apart.interval!.lo < 1.1 && apart.interval!.lo > 0.9, apart.measured)
  // The same cells in the same rounds: paired, decided.
  const together = ratio([...a, ...cell('logging', 'rps', [990, 1000, 1010], 0, 1)], { min: 1.1 })
  assert.equal(together.verdict, 'reproduced')
})

test('s004-nginx-access-log-off-gain: the fresh quick run four figures are no longer decided not reproduced', () => {
  // Log on read 33.9 and 24.1 µs/req, log off 43.1 and 42.9, in the same two rounds (rps at a saturated core).
  const rps = (us: number) => Math.round(0.95e6 / us)
  const rows = (phaseB: number) => [...cell('pool-added', 'rps', [43.1, 42.9].map(rps), 0, 0), ...cell('logging', 'rps', [33.9, 24.1].map(rps), phaseB, 1)]
  const published = (data: Measurement[]) =>
    evalCheck(
      {
        kind: 'ratio',
        metric: 'rps',
        select: { series: 'scenarios', proxy: 'nginx', model: 'closed', key_type: 'ec256', path: '/' },
        a: { variant: 'pool-added' },
        b: { variant: 'logging' },
        same: ['connections'],
        min: 1.1,
        max: 1.2,
      },
      { measurements: data },
    )
  // Same rounds: the two rounds' ratios (0.79, 0.56) disagree; a t of 1 degree of freedom on them.
  const paired = published(rows(0))
  assert.equal(paired.verdict, 'inconclusive')
  assert.match(paired.measured, /^r = 0\.6\d* \[0\.0\d+, [4-6]\.\d+\] .*; by round: 2 rounds; wanted 1\.1\.\.1\.2$/)
  // Different phases: widened by the drift.
  const apart = published(rows(1))
  assert.equal(apart.verdict, 'inconclusive')
  assert.ok(apart.interval!.hi >= 1.1, apart.measured)
})

test('sharedRounds: rounds in time order by one invocation pair; another invocation, no start time or one round does not', () => {
  const groups = (rows: Measurement[]) => buildCellGroups('measurements', rows).map((g) => cellValue(g, 'rps', 'valid'))
  const a = cell('pool-added', 'rps', [10, 11, 12], 0, 0)
  const b = cell('logging', 'rps', [20, 21, 22], 0, 1)
  assert.deepEqual(sharedRounds(groups([...a, ...b])), { pairing: 'rounds', shared: [1, 2, 3], why: '' })
  // Adaptive rounds beyond the shared ones are read unpaired; the shared ones still pair.
  assert.equal(sharedRounds(groups([...a, ...b, ...cell('logging', 'rps', [0, 0, 0, 23], 0, 1).slice(3)])).pairing, 'rounds')
  const resumed = b.map((r) => (r.repeat === 3 ? { ...r, invocation: 2 } : r))
  assert.equal(sharedRounds(groups([...a, ...resumed])).why, 'round 3 by several invocations')
  assert.equal(sharedRounds(groups([...a, ...b.map((r) => ({ ...r, started_at: '' }))])).why, 'rows without a start time')
  assert.equal(sharedRounds(groups([...a.slice(0, 1), ...b.slice(0, 1)])).why, '1 shared round')
  assert.equal(MIN_PAIRED_ROUNDS, 2)
})

test('the drift comes from the between-run prior: σ√2 at its Student t; counts are not widened', () => {
  const { sd, df } = CELL_DRIFT
  assert.equal(driftFactor('rps'), Math.exp(studentQuantile(1 - (1 - LEVEL) / 2, df) * sd * Math.SQRT2))
  assert.equal(driftFactor('proxy_cpu_us_per_req'), driftFactor('rps'))
  assert.equal(driftFactor('proxy_syscalls_per_req'), null)
  assert.equal(driftFactor('backend_conns_per_1k_req'), null)
  const counts = evalCheck(
    {
      kind: 'ratio',
      metric: 'backend_conns_per_1k_req',
      select: { series: 'scenarios', proxy: 'nginx' },
      a: { variant: 'pool-added' },
      b: { variant: 'logging' },
      min: 1.5,
    },
    {
      measurements: [
        ...cell('pool-added', 'rps', [1, 1, 1], 0, 0).map((r) => ({ ...r, backend_conns_per_1k_req: 2 })),
        ...cell('logging', 'rps', [1, 1, 1], 1, 0).map((r) => ({ ...r, backend_conns_per_1k_req: 1 })),
      ],
    },
  )
  assert.doesNotMatch(counts.measured, /drift/)
})
