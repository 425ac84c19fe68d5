import assert from 'node:assert/strict'
import { test } from 'node:test'
import { interleavedOrder, seededRandom, shuffled } from '../../lib/core/shuffle.ts'

test('the same seed gives the same order; another seed another', () => {
  const a = shuffled([1, 2, 3, 4, 5, 6, 7, 8], seededRandom(42))
  assert.deepEqual(shuffled([1, 2, 3, 4, 5, 6, 7, 8], seededRandom(42)), a)
  assert.notDeepEqual(shuffled([1, 2, 3, 4, 5, 6, 7, 8], seededRandom(43)), a)
  assert.deepEqual([...a].sort(), [1, 2, 3, 4, 5, 6, 7, 8])
})

test('repeats are interleaved: every cell once per round, rounds in order', () => {
  const order = interleavedOrder(['a', 'b', 'c'], 3, 7)
  assert.equal(order.length, 9)
  for (let r = 1; r <= 3; r++) {
    const round = order.slice((r - 1) * 3, r * 3)
    assert.ok(round.every((x) => x.repeat === r))
    assert.deepEqual(round.map((x) => x.cell).sort(), ['a', 'b', 'c'])
  }
})
