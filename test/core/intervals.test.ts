import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  bootstrapFigure,
  chiSquareQuantile,
  fmtInterval,
  medianInterval,
  methodText,
  normalQuantile,
  overlaps,
  placeInterval,
  ratioInterval,
  relativeHalfWidth,
  sideOfOne,
  repeatsOf,
  MAX_SPAN,
  spansTooWide,
  withPooledNoise,
} from '../../lib/core/intervals.ts'
import { seededRandom } from '../../lib/core/shuffle.ts'

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
  const a = reps(100, 112, 95, 103),
    b = reps(40, 44, 39, 41)
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
})

test('helpers: repeats from rows, overlap, relative half-width, formatting', () => {
  const m = repeatsOf(
    [
      { repeat: 1, v: 3 },
      { repeat: 2, v: null },
      { repeat: 3, v: 5 },
    ],
    (r) => r.v,
  )
  assert.deepEqual(
    [...m],
    [
      [1, 3],
      [3, 5],
    ],
  )
  assert.ok(overlaps({ lo: 1, hi: 2 }, { lo: 2, hi: 3 }))
  assert.ok(!overlaps({ lo: 1, hi: 1.9 }, { lo: 2, hi: 3 }))
  assert.equal(relativeHalfWidth({ lo: 97, hi: 103, value: 100 }), 0.03)
  assert.equal(fmtInterval({ value: 1.39, lo: 1.21, hi: 1.62, method: 'paired bootstrap' }), '1.39 [1.21, 1.62]')
})

test('normal and chi-square quantiles match tables', () => {
  assert.ok(Math.abs(normalQuantile(0.975) - 1.959964) < 1e-6)
  assert.ok(Math.abs(normalQuantile(0.999) - 3.090232) < 1e-6)
  assert.ok(Math.abs(normalQuantile(0.001) + 3.090232) < 1e-6)
  assert.equal(normalQuantile(0.5), 0)
  // Exact: chi2(0.999; 1) = 10.828, (0.999; 4) = 18.467, (0.95; 10) = 18.307.
  for (const [p, df, exact] of [
    [0.999, 1, 10.828],
    [0.999, 4, 18.467],
    [0.95, 10, 18.307],
  ] as const) {
    assert.ok(Math.abs(chiSquareQuantile(p, df) / exact - 1) < 0.04, `${p} ${df}: ${chiSquareQuantile(p, df)}`)
  }
})

const logSd = (...xs: number[]) => {
  const l = xs.map(Math.log)
  const m = l.reduce((a, b) => a + b) / l.length
  return l.reduce((a, x) => a + (x - m) ** 2, 0)
}

test('pooled noise: the log spread within cells over their degrees of freedom; a bimodal cell is unstable and left out of the pool', () => {
  const stable = [reps(100, 110), reps(50, 52, 48), reps(20, 21)]
  const out = withPooledNoise(stable)
  const ss = logSd(100, 110) + logSd(50, 52, 48) + logSd(20, 21)
  assert.equal(out[0]!.noise!.df, 4)
  assert.ok(Math.abs(out[0]!.noise!.sd - Math.sqrt(ss / 4)) < 1e-12)
  assert.ok(out.every((c) => !c.unstable))
  // nginx 1.31.3 upstream-default in a quick run: one repeat pooled its backend connections (18.3 against 40.2 µs/req).
  const withBimodal = withPooledNoise([...stable, reps(40.151, 18.27)])
  assert.equal(withBimodal[3]!.unstable, true)
  assert.ok(Math.abs(withBimodal[3]!.noise!.sd - Math.sqrt(ss / 4)) < 1e-12, 'the unstable cell stays out of the pool')
  // Too few degrees of freedom, or a value <= 0: no noise, the cells as they were.
  assert.equal(withPooledNoise([reps(1, 2)])[0]!.noise, undefined)
  assert.equal(withPooledNoise([...stable, reps(0, 1)])[0]!.noise, undefined)
})

test('noise floor: two repeats that happen to agree no longer decide alone; an unstable cell makes its figure inconclusive', () => {
  const family = withPooledNoise([reps(100, 120), reps(50, 60), reps(30, 25), reps(80, 70), reps(101, 100), reps(50, 50.5)])
  const plain = ratioInterval(reps(101, 100), reps(50, 50.5))
  const floored = ratioInterval(family[4]!, family[5]!)
  assert.equal(floored.value, plain.value)
  assert.ok(floored.lo < plain.lo && floored.hi > plain.hi, `${fmtInterval(floored)} against ${fmtInterval(plain)}`)
  assert.equal(floored.floor, 'run noise')
  assert.equal(methodText(floored), 'paired bootstrap, widened by run noise')
  // The quick run's F7 cells: [0.25, 0.56] would hold "<= 0.6"; with the bimodal cell unstable it cannot.
  const quick = withPooledNoise([
    reps(40.151, 18.27),
    reps(71.897, 72.689),
    reps(72.642, 72.816),
    reps(43.312, 41.489),
    reps(41.855, 42.118),
    reps(71.694, 66.887),
  ])
  const f7 = ratioInterval(quick[0]!, quick[1]!)
  assert.equal(placeInterval(ratioInterval(reps(40.151, 18.27), reps(71.897, 72.689)), { max: 0.6 }), 'inside')
  assert.equal(f7.floor, 'unstable cell')
  assert.equal(placeInterval(f7, { max: 0.6 }), 'straddles', fmtInterval(f7))
  // One cell's median gets the floor too; a cell without noise keeps its order statistics.
  assert.ok(medianInterval(family[4]!).lo < 100)
  assert.deepEqual([medianInterval(reps(101, 100)).lo, medianInterval(reps(101, 100)).hi], [100, 101])
})

test('noise floor coverage: two repeats per cell, 20 cells with 8% log noise; the floored ratio covers the true ratio >= 90% of the time, the bare one does not', () => {
  const random = seededRandom(12345)
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const trials = 200
  let bare = 0
  let floored = 0
  for (let t = 0; t < trials; t++) {
    // True medians 100 and 60: the true ratio is 0.6.
    const truth = Array.from({ length: 20 }, (_, i) => (i === 1 ? 60 : 100))
    const cells = truth.map((m) => new Map([1, 2].map((r) => [r, m * Math.exp(0.08 * normal())])))
    const plain = ratioInterval(cells[1]!, cells[0]!)
    const noisy = withPooledNoise(cells)
    const iv = ratioInterval(noisy[1]!, noisy[0]!)
    if (plain.lo <= 0.6 && plain.hi >= 0.6) bare++
    if (iv.lo <= 0.6 && iv.hi >= 0.6) floored++
  }
  assert.ok(floored / trials >= 0.9, `floored coverage ${floored / trials}`)
  assert.ok(bare / trials < 0.8, `bare coverage ${bare / trials}`)
})

test('repeats that disagree: an unstable cell of two repeats prints "value (repeats disagree: a vs b)", never its interval, and decides nothing', () => {
  // The quick run's F7 cells again: the first cell's two repeats are 40.2 and 18.3, far beyond the others' noise.
  const quick = withPooledNoise([
    reps(40.151, 18.27),
    reps(71.897, 72.689),
    reps(72.642, 72.816),
    reps(43.312, 41.489),
    reps(41.855, 42.118),
    reps(71.694, 66.887),
  ])
  const cell = medianInterval(quick[0]!)
  assert.deepEqual(cell.disagree, { lo: 18.27, hi: 40.151 })
  assert.equal(fmtInterval(cell, 1), '29.2 (repeats disagree: 18.3 vs 40.2)')
  assert.equal(placeInterval(cell, { min: 0 }), 'straddles', 'a band that holds the whole interval still decides nothing')
  // A ratio on it: the figure of each interleaved round.
  const f7 = ratioInterval(quick[0]!, quick[1]!)
  assert.deepEqual(
    [f7.disagree!.lo, f7.disagree!.hi].map((x) => Number(x.toFixed(4))),
    [Number((18.27 / 72.689).toFixed(4)), Number((40.151 / 71.897).toFixed(4))],
  )
  assert.match(fmtInterval(f7), /^0\.40 \(repeats disagree: 0\.25 vs 0\.56\)$/)
  // A stable cell keeps its interval.
  assert.equal(medianInterval(quick[1]!).disagree, undefined)
  assert.match(fmtInterval(medianInterval(quick[1]!)), /^72\.29 \[/)
})

test(`no printed interval spans more than ${MAX_SPAN}×: a wider one, whatever made it, is shown as its repeats`, () => {
  const wide = { value: 16.2, lo: 7.57e-7, hi: 2284919196, level: 0.95, method: 'paired bootstrap' as const, n: 2 }
  assert.equal(spansTooWide(wide), true)
  assert.equal(fmtInterval(wide, 1), '16.2 (repeats disagree)')
  assert.equal(placeInterval(wide, { min: 1e-9 }), 'straddles')
  assert.equal(fmtInterval({ ...wide, disagree: { lo: 7.6, hi: 34.5 } }, 1), '16.2 (repeats disagree: 7.6 vs 34.5)')
  // 100× exactly is still an interval; intervals reaching 0 are judged by their own rules.
  assert.equal(spansTooWide({ lo: 1, hi: 100 }), false)
  assert.equal(spansTooWide({ lo: -1, hi: 1e6 }), false)
  // A bootstrap over cells whose repeats differ 1000-fold gets their range attached.
  const huge = bootstrapFigure([reps(1, 1000), reps(1000, 1)], ([a, b]) => a! / b!)
  assert.ok(huge.disagree, fmtInterval(huge))
  assert.match(fmtInterval(huge), /repeats disagree: /)
})

test('a ratio has a side only when its whole interval is on it; one repeat or disagreeing repeats decide none', () => {
  const iv = { value: 0.9, lo: 0.8, hi: 0.95, level: 0.95, method: 'paired bootstrap' as const, n: 5 }
  assert.equal(sideOfOne(iv), 'below')
  assert.equal(sideOfOne({ ...iv, lo: 1.05, hi: 1.2 }), 'above')
  assert.equal(sideOfOne({ ...iv, hi: 1.01 }), 'neither')
  assert.equal(sideOfOne({ ...iv, method: 'single repeat' }), 'one repeat')
  assert.equal(sideOfOne({ ...iv, disagree: { lo: 0.5, hi: 1.4 } }), 'repeats disagree')
})
