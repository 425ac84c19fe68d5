import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { thenKey } from '../../lib/data/then.ts'
import { adaptiveSettings, decideCell, needsMorePairs, nextRound, type AdaptiveSettings, type CellProgress } from '../../lib/run/adaptive.ts'

const S: AdaptiveSettings = { minRepeats: 3, maxRepeats: 10, precision: 0.03, maxDisturbed: 3, budgetS: 600 }
const cell = (values: number[], o: Partial<CellProgress> = {}): CellProgress => ({ id: 'c', values, repeats: values.length, disturbed: 0, ...o })
const plenty = { remainingS: 1e6, costS: 20 }
/** n values within ±0.5% of 100: precise once n >= 6. */
const tight = (n: number) => Array.from({ length: n }, (_, i) => 100 + (i % 3) - 1)
/** n values spread ±20%: never precise. */
const wide = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? 80 : 120) + i)

test('a precise cell stops only once its interval has 95% coverage (n >= 6), never as min..max of fewer', () => {
  for (const n of [3, 4, 5]) {
    const d = decideCell(cell(tight(n)), S)
    assert.equal(d.more, true, `n=${n}: ${d.reason}`)
    assert.ok(d.level < 0.95)
    assert.match(d.reason, /not yet ±3\.0% \(at ±\d.*%, \d+% interval\)/)
  }
  const d = decideCell(cell(tight(6)), S)
  assert.equal(d.more, false)
  assert.ok(d.level >= 0.95)
  assert.match(d.reason, /^reached ±[01]\.\d%$/)
})

test('an imprecise cell goes on until its repeat budget, and says where it stopped', () => {
  assert.equal(decideCell(cell(wide(9)), S).more, true)
  const d = decideCell(cell(wide(10)), S)
  assert.equal(d.more, false)
  assert.match(d.reason, /^budget: 10 repeats \(at ±\d+\.\d%\)$/)
  // The quick profile: max = min, so no round beyond the minimum.
  assert.match(decideCell(cell(wide(2)), adaptiveSettings(PROFILES.quick!)).reason, /^budget: 2 repeats/)
})

test('disturbed windows are not repeats: a cell short of its minimum is re-measured, within the disturbed budget', () => {
  // 3 rounds run, one disturbed: 2 repeats of 3.
  const short = decideCell(cell([100, 101], { repeats: 2, disturbed: 1 }), S)
  assert.equal(short.more, true)
  assert.equal(short.reason, '2 of 3 repeats (1 disturbed)')
  // A machine that stays busy: the disturbed budget ends it.
  assert.equal(decideCell(cell([], { repeats: 0, disturbed: 3 }), S).more, true, '3 re-measurements allowed')
  const busy = decideCell(cell([], { repeats: 0, disturbed: 4 }), S)
  assert.deepEqual([busy.more, busy.reason], [false, 'disturbed budget: 4 windows disturbed'])
  // Past the minimum the disturbed budget still ends the rounds.
  assert.match(decideCell(cell(wide(4), { disturbed: 4 }), S).reason, /^disturbed budget: 4 windows disturbed \(at/)
  // Disturbed values are not in `values`: a precise cell with disturbed windows on the side still reaches.
  assert.match(decideCell(cell(tight(6), { disturbed: 2 }), S).reason, /^reached/)
})

test('invalid or failed repeats are the result: a cell without two valid values is not re-measured', () => {
  const d = decideCell(cell([], { repeats: 3 }), S)
  assert.deepEqual([d.more, d.reason], [false, '0 valid of 3 repeats'])
  assert.deepEqual(decideCell(cell([100], { repeats: 3 }), S).reason, '1 valid of 3 repeats')
  // One invalid among several: still adapts on the valid ones.
  assert.equal(decideCell(cell(wide(3), { repeats: 4 }), S).more, true)
})

test('the time budget: a round must fit; short cells first, then those within the precision that lack only coverage, then the least precise', () => {
  const cells = [
    { ...cell(wide(4)), id: 'wide' },
    { ...cell([100, 100.5, 99.5, 100.2]), id: 'almost' },
    { ...cell([100, 101], { repeats: 2, disturbed: 1 }), id: 'short' },
    { ...cell(tight(6)), id: 'done' },
  ]
  const all = nextRound(cells, S, plenty)
  assert.deepEqual(
    all
      .filter((d) => d.more)
      .map((d) => d.id)
      .sort(),
    ['almost', 'short', 'wide'],
  )
  const two = nextRound(cells, S, { remainingS: 45, costS: 20 })
  // Room for two: the short cell, then the one already at ±0.5% that needs only n >= 6; decisions keep the cells' order.
  assert.deepEqual(
    two.filter((d) => d.more).map((d) => d.id),
    ['almost', 'short'],
  )
  assert.match(two.find((d) => d.id === 'wide')!.reason, /^time budget \(at ±\d/)
  // Room for three: the widest comes last.
  assert.deepEqual(
    nextRound(cells, S, { remainingS: 65, costS: 20 })
      .filter((d) => d.more)
      .map((d) => d.id),
    ['wide', 'almost', 'short'],
  )
  // Among imprecise cells the least precise still goes first.
  const imprecise = [
    { ...cell([100, 104, 96, 101]), id: 'mid' },
    { ...cell(wide(4)), id: 'wide' },
  ]
  assert.deepEqual(
    nextRound(imprecise, S, { remainingS: 25, costS: 20 })
      .filter((d) => d.more)
      .map((d) => d.id),
    ['wide'],
  )
  assert.match(two.find((d) => d.id === 'done')!.reason, /^reached/)
  const none = nextRound(cells, S, { remainingS: 10, costS: 20 })
  assert.equal(none.filter((d) => d.more).length, 0)
  assert.match(none.find((d) => d.id === 'short')!.reason, /^time budget/)
})

test('resume: the rows already on disk decide, so a resumed run continues the rounds where they stopped', () => {
  // A standard run killed after 7 repeats of an imprecise cell and 6 of a precise one.
  const rows = [
    { ...cell(wide(7)), id: 'a' },
    { ...cell(tight(6)), id: 'b' },
  ]
  const d = nextRound(rows, S, plenty)
  assert.deepEqual(
    d.map((x) => [x.id, x.more]),
    [
      ['a', true],
      ['b', false],
    ],
  )
  // Killed at its budget: nothing more to do.
  assert.equal(nextRound([{ ...cell(wide(10)), id: 'a' }], S, plenty)[0]!.more, false)
})

test('profile settings: smoke and quick keep their length, standard and full adapt; a profile without them runs its repeats', () => {
  for (const p of ['smoke', 'quick']) assert.equal(adaptiveSettings(PROFILES[p]!).maxRepeats, PROFILES[p]!.repeats)
  const std = adaptiveSettings(PROFILES.standard!)
  assert.ok(std.maxRepeats >= 6 && std.precision <= 0.05 && std.budgetS > 0, JSON.stringify(std))
  assert.deepEqual(adaptiveSettings({ name: 't', repeats: 2, warmupS: 1, durationS: 1, tailS: 1 }), {
    minRepeats: 2,
    maxRepeats: 2,
    precision: 0.03,
    maxDisturbed: 0,
    budgetS: 0,
  })
})

/** A then twin's cell: the now cell's under then/, at the baseline's version. */
const thenOf = (id: string) => thenKey(`${id} at the baseline's version`)

/** A paired cell's two sides (`id` now, its then twin), one value a round each, now = then × ratio of that round. */
const pair = (id: string, then: readonly number[], ratios: readonly number[]): CellProgress[] => {
  const side = (cellId: string, pairOf: string, values: readonly number[]): CellProgress => ({
    ...cell([...values]),
    id: cellId,
    pairOf,
    byRepeat: new Map(values.map((v, i) => [i + 1, v])),
  })
  return [
    side(
      id,
      thenOf(id),
      then.map((v, i) => v * ratios[i]!),
    ),
    side(thenOf(id), id, then),
  ]
}
/** Then values that drift ±20% round to round: never a precise median, on either side. */
const drifting = (n: number) => Array.from({ length: n }, (_, i) => 100 * (i % 2 ? 1.2 : 0.8) + i)

test("Pinpoint's rule: a paired cell goes on while its change straddles the no-change band, until its budget", () => {
  const noise = { sd: 0.04, df: 40 }
  const at = (logs: number[], rounds = logs.length) => needsMorePairs({ logs, rounds }, S, noise, 1)
  // A clear change: decided, whatever the sides' own precision.
  assert.match(at([0.2, 0.21, 0.19, 0.2]).reason, /^decided: dearer \(now ÷ then 1\.22\d/)
  assert.equal(at([0.2, 0.21, 0.19, 0.2]).more, false)
  // No change, its interval inside ±3%: decided.
  const none = at(Array.from({ length: 10 }, (_, i) => (i % 2 ? 0.005 : -0.005)))
  assert.deepEqual([none.more, none.reason.replace(/ \(.*/, '')], [false, 'decided: no change beyond ±3.0%'])
  // Too few pairs for an interval inside the band: undecided, more rounds, until the repeat budget.
  const undecided = at([0.01, -0.01, 0.01])
  assert.deepEqual([undecided.more, undecided.reason.replace(/ \(.*/, '')], [true, 'undecided: straddles ±3.0%'])
  assert.match(at([0.01, -0.01, 0.01], 10).reason, /^budget: 10 rounds, undecided \(/)
  // Invalid windows are the result: fewer than 2 pairs is not re-measured.
  assert.deepEqual([at([0.01], 4).more, at([0.01], 4).reason], [false, '1 valid pairs of 4 rounds'])
})

test('nextRound: an undecided pair gets a round of both sides; a decided one stops though its medians are imprecise', () => {
  // Both pairs' sides drift ±20% (the machine), which cancels in the pair.
  const changed = pair('changed', drifting(4), [1.3, 1.31, 1.29, 1.3])
  const close = pair('close', drifting(4), [1.03, 0.97, 1.04, 0.96])
  const d = nextRound([...changed, ...close], S, plenty)
  assert.deepEqual(
    d.map((x) => [x.id, x.more, x.reason.replace(/ \(.*/, '')]),
    [
      ['changed', false, 'decided: dearer'],
      [thenOf('changed'), false, 'decided: dearer'],
      ['close', true, 'undecided: straddles ±3.0%'],
      [thenOf('close'), true, 'undecided: straddles ±3.0%'],
    ],
  )
  // Alone, each side's median is far from ±3%: the precision rule would have re-measured all four.
  assert.ok(decideCell(changed[0]!, S).more && decideCell(changed[1]!, S).more)
  // A pair's round is a window of each side: 30 s for one pair at 20 s a window does not fit, 40 s does.
  const refused = nextRound(close, S, { remainingS: 30, costS: 20 })
  assert.deepEqual(
    refused.map((x) => [x.more, x.reason.replace(/ \(.*/, '')]),
    [
      [false, 'time budget'],
      [false, 'time budget'],
    ],
  )
  assert.deepEqual(
    nextRound(close, S, { remainingS: 40, costS: 20 }).map((x) => x.more),
    [true, true],
  )
  // A side short of its minimum is re-measured by its own rule first.
  const short = pair('short', drifting(2), [1.01, 0.99])
  assert.match(nextRound(short, S, plenty)[0]!.reason, /^2 of 3 repeats/)
  // Past its repeat budget an undecided pair stops.
  const spent = pair('spent', drifting(10), [1.06, 0.94, 1.05, 0.95, 1.06, 0.94, 1.05, 0.95, 1.06, 0.94])
  assert.match(nextRound(spent, S, plenty)[0]!.reason, /^budget: 10 rounds, undecided/)
})
