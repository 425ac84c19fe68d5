import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadStack } from '../../lib/catalog/stack.ts'
import { bisectSeries, catalogPlan } from '../../lib/series/bisect.ts'
import { adaptiveHere } from '../../lib/series/tasks.ts'
import type { SeriesContext } from '../../lib/series/types.ts'

test('bisect plan: one search per variant over the catalog versions it runs on, oldest first', () => {
  const plan = catalogPlan(['nginx'], ['article', 'upstream-keepalive-local', 'no-such-variant'], 'cpu')
  assert.deepEqual(
    plan.searches.map((s) => s.variant),
    ['article', 'upstream-keepalive-local'],
  )
  const all = loadStack('nginx').versions.map((v) => v.version)
  assert.equal(plan.searches[0]!.versions.length, all.length)
  assert.equal(plan.searches[0]!.source, 'catalog')
  // 'keepalive 32 local' exists from 1.29.7 (its stack.yaml `since`): older versions are not searched.
  assert.ok(
    plan.searches[1]!.versions.every((v) => !v.startsWith('1.22.')),
    plan.searches[1]!.versions.join(' '),
  )
})

test('bisect plan over registry tags: the releases in semver order, each with its image, the rest left out with the reason', () => {
  const ref = '127.0.0.1:5000/nginx'
  const plan = catalogPlan(['nginx'], ['upstream-default', 'upstream-keepalive-local'], 'conns', {
    ref,
    tags: ['latest', '1.31.3', '1.29.10', '1.29.7', '1.29.6', '1.22.1', '1.29', '1.29.7-alpine'],
  })
  const [def, local] = plan.searches
  assert.equal(plan.metric, 'conns')
  assert.deepEqual(def!.versions, ['1.22.1', '1.29.6', '1.29.7', '1.29.10', '1.31.3'])
  assert.equal(def!.images['1.29.7'], `${ref}:1.29.7`)
  assert.equal(def!.source, ref)
  assert.deepEqual(def!.skipped.map((s) => s.tag).sort(), ['1.29', '1.29.7-alpine', 'latest'])
  assert.deepEqual(local!.versions, ['1.29.7', '1.29.10', '1.31.3'])
})

test('a bisect judged on backend connections keeps its disturbed windows (a count); on proxy CPU they are re-measured', () => {
  const [ends, step] = bisectSeries().phases
  const ctx = (bisectMetric?: 'cpu' | 'conns') => ({ plan: { custom: [], bisectMetric } }) as unknown as SeriesContext
  assert.deepEqual(
    [ends, step].map((p) => adaptiveHere(p!, ctx('conns'))),
    [false, false],
  )
  assert.deepEqual(
    [ends, step].map((p) => adaptiveHere(p!, ctx('cpu'))),
    [true, true],
  )
  assert.equal(adaptiveHere(ends!, ctx()), true, 'cpu is the default metric')
  assert.equal(adaptiveHere({}, ctx()), true)
  assert.equal(adaptiveHere({ adaptive: false }, ctx()), false)
})
