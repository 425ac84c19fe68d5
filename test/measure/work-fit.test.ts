import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fitTwo, fitWork, idleRate, type Batch, type Round } from '../../lib/measure/work-fit.ts'

const batch = (units: number, perUnit: number, o: Partial<Batch> & { constant?: number; perCycle?: number } = {}): Batch => {
  const gcCycles = o.gcCycles ?? 0
  const seconds = o.seconds ?? units / 1000
  return { units, gcCycles, seconds, instructions: (o.constant ?? 1e6) + perUnit * units + gcCycles * (o.perCycle ?? 0) + (o.instructions ?? 0) }
}

test('the slope cancels what every batch pays once; identical rounds give a zero-width interval', () => {
  const rounds: Round[] = [1, 2, 3].map(() => ({ small: batch(200, 28_000, { constant: 5e6 }), large: batch(600, 28_000, { constant: 5e6 }) }))
  const fit = fitWork(rounds, [])
  assert.equal(fit.perUnit, 28_000)
  assert.equal(fit.low, 28_000)
  assert.equal(fit.high, 28_000)
  assert.equal(fit.batches, 6)
  assert.equal(fit.perGcCycle, null)
})

test('idle work at its rate is taken off each batch by its length, and its share is stated', () => {
  // 10,000 idle instructions a second; the large batch lasts 3x the small one.
  const idle = [{ instructions: 20_000, seconds: 2 }]
  assert.equal(idleRate(idle), 10_000)
  const r = { small: batch(100, 50_000, { seconds: 1, instructions: 10_000 }), large: batch(300, 50_000, { seconds: 3, instructions: 30_000 }) }
  const fit = fitWork([r, r], idle)
  assert.ok(Math.abs(fit.perUnit - 50_000) < 1e-6, `${fit.perUnit}`)
  assert.ok(fit.idleShare > 0 && fit.idleShare < 0.01)
})

test('a GC cycle is a step in whichever batch it falls: the fit takes it off and puts it back at its long-run rate', () => {
  // 200k instructions per request, 35M per cycle, cycles landing unevenly (Traefik's shape).
  const perCycle = 35e6
  const rounds: Round[] = [
    { small: batch(300, 200_000, { gcCycles: 0, perCycle }), large: batch(900, 200_000, { gcCycles: 1, perCycle }) },
    { small: batch(300, 200_000, { gcCycles: 1, perCycle }), large: batch(900, 200_000, { gcCycles: 1, perCycle }) },
    { small: batch(300, 200_000, { gcCycles: 0, perCycle }), large: batch(900, 200_000, { gcCycles: 2, perCycle }) },
  ]
  const fit = fitWork(rounds, [])
  assert.ok(Math.abs(fit.perGcCycle! - perCycle) < 1, `${fit.perGcCycle}`)
  // 5 cycles in 3,600 requests: 35M x 5 / 3,600 on top of the 200k.
  const expected = 200_000 + (perCycle * 5) / 3600
  assert.ok(Math.abs(fit.perUnit - expected) < 1e-3, `${fit.perUnit} vs ${expected}`)
  assert.ok(fit.high - fit.low < 1e-3, 'once the cycles are accounted for, the rounds agree')
  // Uncorrected, the raw slopes would disagree by 35M / 600 = 58k per request.
  const raw = rounds.map((r) => (r.large.instructions - r.small.instructions) / 600)
  assert.ok(Math.max(...raw) - Math.min(...raw) > 50_000)
})

test('cycles that cannot be told apart from the units (or none) leave the slope as it is', () => {
  assert.equal(fitTwo([1, 2, 3, 4].map((i) => ({ y: i * 10, x1: i, x2: i * 2 }))), null, 'collinear')
  assert.equal(fitTwo([1, 2, 3, 4].map((i) => ({ y: i * 10, x1: i, x2: 1 }))), null, 'constant')
  assert.equal(fitTwo([1, 2, 3].map((i) => ({ y: i, x1: i, x2: i % 2 }))), null, 'too few batches')
})

test('rounds that disagree widen the interval (a t-interval of their mean); one round has none', () => {
  const rounds: Round[] = [27_900, 28_000, 28_100].map((u) => ({ small: batch(200, u), large: batch(600, u) }))
  const fit = fitWork(rounds, [])
  assert.ok(Math.abs(fit.perUnit - 28_000) < 1e-6)
  // sd 100, n 3: t(0.975, 2) 4.30 x 100 / sqrt(3) = 248.
  assert.ok(Math.abs(fit.high - fit.perUnit - 248.4) < 1, `${fit.high - fit.perUnit}`)
  const one = fitWork(rounds.slice(0, 1), [])
  assert.ok(Number.isNaN(one.low) && Number.isNaN(one.high))
  assert.throws(() => fitWork([], []), /no rounds/)
  assert.throws(() => fitWork([{ small: batch(600, 1), large: batch(200, 1) }], []), /must exceed/)
})
