import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bisectState, type BisectState } from '../../lib/core/bisect.ts'
import type { Repeats } from '../../lib/core/intervals.ts'

/** Synthetic cells: five repeats around a level, the same small spread for every version. */
const cell = (level: number): Repeats => new Map([0.98, 1.01, 0.99, 1.02, 1.0].map((f, i) => [i + 1, level * f]))
const VERSIONS = ['1.20.0', '1.22.1', '1.24.0', '1.26.3', '1.28.0', '1.29.6', '1.29.7', '1.30.6', '1.31.3']

/** Runs a search to its end the way the runner does: measure what it asks for, ask again. */
function search(versions: readonly string[], level: (v: string) => number): { state: BisectState; measured: string[] } {
  const cells = new Map<string, Repeats>()
  const measured: string[] = []
  for (let i = 0; i < 50; i++) {
    const state = bisectState(versions, cells)
    if (state.kind !== 'measure') return { state, measured }
    for (const v of state.versions) {
      measured.push(v)
      cells.set(v, cell(level(v)))
    }
  }
  throw new Error('the search did not end')
}

test('one step: halving names the adjacent pair around it, measuring log2(n) + 2 versions', () => {
  const { state, measured } = search(VERSIONS, (v) => (VERSIONS.indexOf(v) >= VERSIONS.indexOf('1.29.7') ? 2.1 : 1))
  assert.equal(state.kind, 'step')
  if (state.kind !== 'step') return
  assert.deepEqual([state.older, state.newer], ['1.29.6', '1.29.7'])
  assert.ok(Math.abs(state.judgement.ratio.value - 2.1) < 1e-9)
  assert.ok(state.judgement.ratio.lo > 1.9 && state.judgement.p < 0.05)
  assert.deepEqual(state.notes, [])
  assert.ok(measured.length <= 2 + Math.ceil(Math.log2(VERSIONS.length - 1)), measured.join(' '))
  assert.deepEqual(measured.slice(0, 2), ['1.20.0', '1.31.3'], 'the ends first')
})

test('a step down (fewer backend connections) is found the same way', () => {
  const { state } = search(VERSIONS, (v) => (VERSIONS.indexOf(v) >= 3 ? 205 : 1001))
  assert.equal(state.kind, 'step')
  if (state.kind === 'step') assert.deepEqual([state.older, state.newer], ['1.24.0', '1.26.3'])
})

test('no significant step: equal ends stop after two versions; a change below the minimum effect is none', () => {
  const flat = search(VERSIONS, () => 80)
  assert.equal(flat.state.kind, 'no step')
  assert.deepEqual(flat.measured, ['1.20.0', '1.31.3'])
  const small = search(VERSIONS, (v) => (v === '1.31.3' ? 84 : 80))
  assert.equal(small.state.kind, 'no step', 'a 5% change is below the 10% minimum')
})

test('two steps: the search reports the larger one and says it assumes one step', () => {
  const { state } = search(VERSIONS, (v) => {
    const i = VERSIONS.indexOf(v)
    return i >= 6 ? 4 : i >= 2 ? 1.5 : 1
  })
  assert.equal(state.kind, 'step')
  if (state.kind !== 'step') return
  assert.deepEqual([state.older, state.newer], ['1.29.6', '1.29.7'])
  assert.match(state.notes.join(' '), /another change lies between 1.20.0 and 1.28.0 .*assumes one step/)
})

test('a drift spread over releases is no single step', () => {
  const { state } = search(VERSIONS, (v) => 1 + 0.06 * VERSIONS.indexOf(v))
  assert.equal(state.kind, 'no single step')
})

test('two versions are one comparison; fewer is no bisect; noise with two repeats decides nothing', () => {
  assert.equal(search(['1.22.1', '1.31.3'], (v) => (v === '1.31.3' ? 2 : 1)).state.kind, 'step')
  assert.equal(bisectState(['1.22.1'], new Map()).kind, 'too few versions')
})

test('too few valid repeats: inconclusive where the search stands, and a measured version is never asked for again', () => {
  const two = (x: number): Repeats =>
    new Map([
      [1, x],
      [2, x * 1.01],
    ])
  // Mann-Whitney cannot reach p < 0.05 with 2 + 2 repeats, whatever the ratio: not judged at all.
  const ends = bisectState(
    ['a', 'b'],
    new Map([
      ['a', two(1)],
      ['b', two(3)],
    ]),
  )
  assert.equal(ends.kind, 'inconclusive')
  assert.match(ends.kind === 'inconclusive' ? ends.notes.join(' ') : '', /a has 2 valid repeats of the 4 a comparison needs/)
  // The middle version measured, every window disturbed: the interval so far, not a request to measure it again.
  const cells = new Map([
    ['1.22.1', cell(1)],
    ['1.31.3', cell(2)],
    ['1.26.3', new Map()],
  ])
  const mid = bisectState(['1.22.1', '1.26.3', '1.31.3'], cells, undefined, new Set(cells.keys()))
  assert.equal(mid.kind, 'inconclusive')
  if (mid.kind === 'inconclusive') {
    assert.deepEqual([mid.older, mid.newer], ['1.22.1', '1.31.3'])
    assert.match(mid.notes.join(' '), /narrowing stopped: 1.26.3 has 0 valid repeats/)
  }
})
