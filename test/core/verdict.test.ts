import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  CLAIM_VERDICTS,
  claimVerdict,
  FINDING_VERDICTS,
  findingVerdict,
  isDecided,
  markedLabel,
  PLACED,
  verdictRank,
  VERDICTS,
  type Decision,
} from '../../lib/core/verdict.ts'

test('one table: every verdict word has a badge of its own, and one decision is shown with one mark', () => {
  const words = Object.keys(VERDICTS) as (keyof typeof VERDICTS)[]
  assert.equal(new Set(words.map((w) => VERDICTS[w].badge)).size, words.length)
  const marks = new Map<Decision, Set<string>>()
  for (const w of words) marks.set(VERDICTS[w].decision, (marks.get(VERDICTS[w].decision) ?? new Set()).add(VERDICTS[w].mark))
  for (const [d, m] of marks) assert.equal(m.size, 1, `${d}: ${[...m].join(' ')}`)
  // Every word is a claim's or a finding's.
  assert.deepEqual(new Set([...CLAIM_VERDICTS, ...FINDING_VERDICTS]), new Set(words))
})

test('a claim and a finding word the same decision in their own words', () => {
  assert.equal(claimVerdict('holds'), 'reproduced')
  assert.equal(findingVerdict('holds'), 'held')
  assert.equal(claimVerdict('fails'), 'not reproduced')
  assert.equal(findingVerdict('fails'), 'not held')
  for (const d of ['undecided', 'missing'] as const) assert.equal(claimVerdict(d), findingVerdict(d))
  assert.equal(claimVerdict('not runnable'), 'not runnable here')
  assert.equal(findingVerdict('info'), 'info')
})

test('decided means held, not held, reproduced or not reproduced; ranks put decided first and unknown words last', () => {
  assert.deepEqual(Object.keys(VERDICTS).filter(isDecided).sort(), ['held', 'not held', 'not reproduced', 'reproduced'])
  assert.equal(isDecided('maybe'), false)
  assert.ok(verdictRank('not held') < verdictRank('inconclusive'))
  assert.ok(verdictRank('inconclusive') < verdictRank('not measured'))
  assert.ok(verdictRank('info') < verdictRank('maybe'))
  assert.equal(markedLabel('info'), '• figure')
  assert.equal(markedLabel('not measured'), '· not measured')
})

test('the three-way rule: inside holds, outside fails, across the bound undecided', () => {
  assert.deepEqual([PLACED.inside, PLACED.outside, PLACED.straddles].map(findingVerdict), ['held', 'not held', 'inconclusive'])
  assert.deepEqual([PLACED.inside, PLACED.outside, PLACED.straddles].map(claimVerdict), ['reproduced', 'not reproduced', 'inconclusive'])
})
