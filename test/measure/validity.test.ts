import assert from 'node:assert/strict'
import { test } from 'node:test'
import { invalidReasons } from '../../lib/measure/validity.ts'

const ok = { generatorRequests: 10_000, generatorErrors: 0, windowRequests: 8_000, generatorCpuShare: 0.5 }

test('a clean window is valid', () => {
  assert.deepEqual(invalidReasons(ok), [])
})

test('errors at 1% or more invalidate the row', () => {
  assert.deepEqual(invalidReasons({ ...ok, generatorRequests: 9_900, generatorErrors: 100 }), ['errors 1.0% >= 1%'])
  assert.deepEqual(invalidReasons({ ...ok, generatorRequests: 9_901, generatorErrors: 99 }), [])
})

test('a saturated generator invalidates the row', () => {
  assert.deepEqual(invalidReasons({ ...ok, generatorCpuShare: 0.93 }), ['generator saturated: 93% of its cpuset >= 90%'])
  assert.deepEqual(invalidReasons({ ...ok, generatorCpuShare: 0.899 }), [])
})

test('failed verification, an exited role and an empty window are reasons too, all reported', () => {
  assert.deepEqual(invalidReasons({ ...ok, verification: '0/20 ok: 502', windowRequests: 0 }), ['verification failed: 0/20 ok: 502'])
  assert.deepEqual(invalidReasons({ ...ok, windowRequests: 0, exited: 'proxy exited (code 1)', generatorErrors: 500 }), [
    'proxy exited (code 1)',
    'errors 4.8% >= 1%',
    'no request completed inside the measurement window',
  ])
})

test('open model: dropped iterations are labelled dropped, not errors; a missed rate is a reason', () => {
  const open = { ...ok, generatorRequests: 9_800, targetRps: 1000, achievedRps: 1000 }
  assert.deepEqual(invalidReasons({ ...open, dropped: 200 }), ['dropped 2.0% >= 1%'])
  assert.deepEqual(invalidReasons({ ...open, dropped: 200, generatorErrors: 0, achievedRps: 980 }), [
    'dropped 2.0% >= 1%',
    'achieved 980 rps < target 1000 rps',
  ])
  assert.deepEqual(invalidReasons({ ...open, achievedRps: 995 }), [])
})
