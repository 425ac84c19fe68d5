import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mannWhitney, median, medianCI, quantile, summarize } from '../../lib/core/stats.ts'

const close = (a: number, b: number, eps = 1e-3) => assert.ok(Math.abs(a - b) < eps, `${a} ≈ ${b}`)

test('median and quantiles match numpy (type 7)', () => {
  assert.equal(median([3, 1, 2]), 2)
  assert.equal(median([4, 1, 3, 2]), 2.5)
  close(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9.1)
})

test('CI of the median: order statistics with exact binomial coverage', () => {
  // n=10: (x_(2), x_(9)) covers 97.85%; (x_(3), x_(8)) only 89%.
  const { ci, level } = medianCI([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
  assert.deepEqual(ci, [2, 9])
  close(level, 0.978515625)
  // n=5: min..max covers 93.75% < 95%
  const small = medianCI([5, 1, 4, 2, 3])
  assert.deepEqual(small.ci, [1, 5])
  close(small.level, 0.9375)
})

test('summary: CV and warnings for few or noisy samples', () => {
  const s = summarize([100, 110, 90])
  close(s.cv, 0.1)
  assert.ok(s.warnings.some((w) => w.startsWith('noisy: CV 10.0%')))
  assert.ok(s.warnings.some((w) => w.includes('too few for a 95% CI')))
  assert.deepEqual(
    summarize([5, 5]).warnings.filter((w) => w.startsWith('only')),
    ['only 2 samples: no spread can be judged'],
  )
  assert.deepEqual(summarize([]).warnings, ['no valid samples'])
})

test('Mann-Whitney U: exact p for small samples (scipy reference values)', () => {
  // scipy.stats.mannwhitneyu([1,2,3,4,5],[6,7,8,9,10], method='exact') -> U=0, p=0.007937
  const r = mannWhitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
  assert.equal(r.u, 0)
  close(r.p, 0.0079365)
  // [1,3,5] vs [2,4,6] -> U=3, p=0.7
  close(mannWhitney([1, 3, 5], [2, 4, 6]).p, 0.7)
  // 2 vs 2 can never reach 0.05: the smallest two-sided p is 1/3
  const tiny = mannWhitney([1, 2], [3, 4])
  close(tiny.p, 1 / 3)
  assert.ok(tiny.warnings.length > 0)
})

test('Mann-Whitney U with ties uses the corrected normal approximation', () => {
  // scipy.stats.mannwhitneyu([1,2,2,3,4,5],[3,4,5,6,6,7], method='asymptotic') -> U=4.5, p=0.035720
  const r = mannWhitney([1, 2, 2, 3, 4, 5], [3, 4, 5, 6, 6, 7])
  assert.equal(r.u, 4.5)
  close(r.p, 0.03572, 1e-4)
})
