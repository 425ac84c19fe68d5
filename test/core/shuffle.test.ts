import assert from 'node:assert/strict'
import { test } from 'node:test'
import { blockOrder, interleavedOrder, seededRandom, shuffled } from '../../lib/core/shuffle.ts'

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

test('blocks run together in a fresh order each round; blocks of one keep the order a seed always gave', () => {
  const order = blockOrder([['a', "a'"], ['b', "b'"], ['c']], 4, 11)
  assert.equal(order.length, 20)
  const firsts = new Set<string>()
  for (let r = 1; r <= 4; r++) {
    const round = order.filter((x) => x.repeat === r).map((x) => x.cell)
    assert.deepEqual([...round].sort(), ['a', "a'", 'b', "b'", 'c'])
    // a block's cells are next to each other
    for (const k of ['a', 'b']) assert.equal(Math.abs(round.indexOf(k) - round.indexOf(`${k}'`)), 1)
    firsts.add(round.find((x) => x.startsWith('a'))!)
  }
  // within the block, now first in some rounds and then first in others (this seed)
  assert.deepEqual([...firsts].sort(), ['a', "a'"])
  // The order before blocks: one shuffle per round over the cells, nothing else drawn.
  const random = seededRandom(5)
  const before: string[] = []
  for (let r = 1; r <= 3; r++) before.push(...shuffled(['x', 'y', 'z', 'w'], random))
  assert.deepEqual(
    interleavedOrder(['x', 'y', 'z', 'w'], 3, 5).map((x) => x.cell),
    before,
  )
})
