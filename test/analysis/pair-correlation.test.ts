import assert from 'node:assert/strict'
import { test } from 'node:test'
import { pairCorrelation, pearson, roundPairs, type RoundPair } from '../../lib/analysis/pair-correlation.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { measurement } from '../fixtures/rows.ts'

const close = (a: number | null, b: number, tol = 1e-9) => assert.ok(a !== null && Math.abs(a - b) < tol, `${a} ≉ ${b}`)

test('pearson: scipy.stats.pearsonr values, and null where no r exists', () => {
  // scipy.stats.pearsonr([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).statistic = 0.8
  close(pearson([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]), 0.8)
  close(pearson([1, 2, 3], [3, 2, 1]), -1)
  assert.equal(pearson([1], [2]), null)
  assert.equal(pearson([1, 1, 1], [1, 2, 3]), null)
  assert.throws(() => pearson([1, 2], [1]), /2 against 1/)
})

test('pairCorrelation: each cell centred on its own means, so cells of different cost do not make a correlation', () => {
  // Two cells 10× apart whose sides are independent within each: pooled over raw values they would correlate near 1.
  const at = (cell: string, scale: number, now: number[], then: number[]): RoundPair[] =>
    now.map((n, i) => ({ cell, round: i + 1, nowCost: scale * n, thenCost: scale * then[i]! }))
  const independent = [...at('a', 1, [1, 1.1, 1, 1.1], [1, 1, 1.1, 1.1]), ...at('b', 10, [1, 1.1, 1, 1.1], [1, 1, 1.1, 1.1])]
  const c = pairCorrelation(independent)
  close(c.pooled, 0)
  assert.equal(c.pairs, 8)
  close(c.ratioVarianceShare, 1)
  assert.deepEqual(
    c.cells.map((x) => [x.cell, x.pairs]),
    [
      ['a', 4],
      ['b', 4],
    ],
  )
})

test('pairCorrelation: sides moving together give r 1 and a ratio that keeps none of their variance', () => {
  const together: RoundPair[] = [1, 1.2, 0.9, 1.1].map((m, i) => ({ cell: 'a', round: i, nowCost: 50 * m, thenCost: 40 * m }))
  const c = pairCorrelation(together)
  close(c.pooled, 1)
  close(c.cells[0]!.r, 1)
  close(c.ratioVarianceShare, 0)
  // Under 3 rounds a cell has no r of its own, but its 2 rounds count in the pooled one; a single round counts in neither.
  const short = pairCorrelation([...together.slice(0, 2), { cell: 'b', round: 1, nowCost: 3, thenCost: 4 }])
  assert.deepEqual(
    short.cells.map((x) => x.r),
    [null, null],
  )
  assert.equal(short.pairs, 2)
  assert.equal(pairCorrelation([]).pooled, null)
})

test('roundPairs: a now and a then row of one cell (its version apart) and one repeat, both valid', () => {
  const row = (version: string, repeat: number, cost: number | null, status: Measurement['status'] = 'valid') =>
    measurement({ proxy: 'nginx', version, repeat, status, proxy_cpu_us_per_req: cost })
  const now = [row('1.31.3', 1, 20), row('1.31.3', 2, 21), row('1.31.3', 3, 22, 'invalid'), row('1.31.3', 4, null)]
  const then = [row('1.29.0', 1, 18), row('1.29.0', 2, 19), row('1.29.0', 3, 19), row('1.29.0', 4, 19), row('1.29.0', 5, 19)]
  const pairs = roundPairs(now, then)
  assert.deepEqual(
    pairs.map((p) => [p.round, p.nowCost, p.thenCost]),
    [
      [1, 20, 18],
      [2, 21, 19],
    ],
  )
  assert.equal(new Set(pairs.map((p) => p.cell)).size, 1)
  // Disturbed rows too, when asked: round 3's now row is invalid, not failed.
  assert.deepEqual(
    roundPairs(now, then, { accept: (r) => r.status !== 'failed' }).map((p) => p.round),
    [1, 2, 3],
  )
})
