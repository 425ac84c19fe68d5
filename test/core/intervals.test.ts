import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  bootstrapFigure, fmtInterval, medianInterval, overlaps, placeInterval, ratioInterval, relativeHalfWidth, repeatsOf, threeWay,
} from '../../lib/core/intervals.ts'

const reps = (...xs: number[]) => new Map(xs.map((x, i) => [i + 1, x]))

test('median interval: order statistics with their exact coverage', () => {
  // n=10: (x_(2), x_(9)) covers 97.85%.
  const iv = medianInterval(reps(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
  assert.equal(iv.value, 5.5)
  assert.deepEqual([iv.lo, iv.hi], [2, 9])
  assert.ok(Math.abs(iv.level - 0.978515625) < 1e-9)
  assert.equal(medianInterval(reps(7)).method, 'single repeat')
})

test('bootstrap ratio: constant cells give a point, and the interval contains the point figure', () => {
  const flat = ratioInterval(reps(10, 10, 10), reps(5, 5, 5))
  assert.deepEqual([flat.value, flat.lo, flat.hi], [2, 2, 2])
  assert.equal(flat.method, 'paired bootstrap')
  const iv = ratioInterval(reps(100, 110, 90, 105, 95), reps(50, 52, 48, 51, 49))
  assert.equal(iv.value, 2)
  assert.ok(iv.lo <= 2 && iv.hi >= 2 && iv.lo < iv.hi, fmtInterval(iv))
})

test('paired bootstrap: a round that moves both cells together leaves their ratio certain', () => {
  // Each round scales both cells by the same machine factor: the ratio is exactly 3 in every round.
  const a = reps(30, 60, 33, 90, 45)
  const b = reps(10, 20, 11, 30, 15)
  const paired = ratioInterval(a, b)
  assert.equal(paired.method, 'paired bootstrap')
  assert.deepEqual([paired.lo, paired.hi], [3, 3])
  // The same values without common rounds are resampled independently: a wide interval.
  const unpaired = ratioInterval(a, new Map([...b].map(([r, v]) => [r + 10, v])))
  assert.equal(unpaired.method, 'bootstrap')
  assert.ok(unpaired.hi - unpaired.lo > 1, fmtInterval(unpaired))
})

test('bootstrap percentiles match a known case: the median of {1..5} resampled', () => {
  // Exact distribution of the median of 5 draws from {1,2,3,4,5}: P(med <= 1) = 0.058, P(med >= 5) = 0.058,
  // so the 2.5% and 97.5% quantiles are 1 and 5; P(med <= 2) = 0.317 keeps 2 off the lower end.
  const iv = bootstrapFigure([reps(1, 2, 3, 4, 5)], ([m]) => m!, 4000)
  assert.equal(iv.value, 3)
  assert.deepEqual([iv.lo, iv.hi], [1, 5])
})

test('the bootstrap is seeded from the data: the same rows give the same interval', () => {
  const a = reps(100, 112, 95, 103), b = reps(40, 44, 39, 41)
  assert.deepEqual(ratioInterval(a, b), ratioInterval(a, b))
})

test('fewer than two repeats: a point marked "single repeat", never decided', () => {
  const iv = ratioInterval(reps(10), reps(5))
  assert.equal(iv.method, 'single repeat')
  assert.equal(placeInterval(iv, { min: 1 }), 'straddles')
  assert.equal(fmtInterval(iv), '2.00 [1 repeat]')
})

test('three-way rule: inside, outside, straddling a band', () => {
  const iv = (lo: number, hi: number) => ({ lo, hi, method: 'paired bootstrap' as const })
  assert.equal(placeInterval(iv(1.8, 2.2), { min: 1.7 }), 'inside')
  assert.equal(placeInterval(iv(1.21, 1.62), { min: 1.7 }), 'outside')
  assert.equal(placeInterval(iv(1.6, 1.9), { min: 1.7 }), 'straddles')
  assert.equal(placeInterval(iv(0.99, 1.1), { min: 0.9, max: 1.2 }), 'inside')
  assert.equal(placeInterval(iv(1.25, 1.4), { min: 0.9, max: 1.2 }), 'outside')
  assert.equal(placeInterval(iv(NaN, 2), { min: 1 }), 'straddles')
  assert.equal(threeWay('inside', 'held', 'not held'), 'held')
  assert.equal(threeWay('outside', 'held', 'not held'), 'not held')
  assert.equal(threeWay('straddles', 'held', 'not held'), 'inconclusive')
})

test('helpers: repeats from rows, overlap, relative half-width, formatting', () => {
  const m = repeatsOf([{ repeat: 1, v: 3 }, { repeat: 2, v: null }, { repeat: 3, v: 5 }], (r) => r.v)
  assert.deepEqual([...m], [[1, 3], [3, 5]])
  assert.ok(overlaps({ lo: 1, hi: 2 }, { lo: 2, hi: 3 }))
  assert.ok(!overlaps({ lo: 1, hi: 1.9 }, { lo: 2, hi: 3 }))
  assert.equal(relativeHalfWidth({ lo: 97, hi: 103, value: 100 }), 0.03)
  assert.equal(fmtInterval({ value: 1.39, lo: 1.21, hi: 1.62, method: 'paired bootstrap' }), '1.39 [1.21, 1.62]')
})
