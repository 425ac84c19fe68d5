import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cpuCount, defaultCpuLayout, parseCpuOverride } from '../../lib/roles/cpus.ts'

test('2 cores: proxy alone on one, backend and generator share the other', () => {
  assert.deepEqual(defaultCpuLayout(2), { proxy: '1', backend: '0', generator: '0' })
})

test('larger machines get disjoint sets covering every core', () => {
  const l = defaultCpuLayout(16)
  assert.deepEqual(l, { backend: '0-3', proxy: '4-7', generator: '8-15' })
  assert.equal(cpuCount(l.backend) + cpuCount(l.proxy) + cpuCount(l.generator), 16)
  assert.deepEqual(defaultCpuLayout(1), { proxy: '0', backend: '0', generator: '0' })
})

test('cpuCount reads lists and ranges', () => {
  assert.equal(cpuCount('0-3,6'), 5)
  assert.equal(cpuCount('1'), 1)
})

test('--cpus overrides some roles and rejects nonsense in one line', () => {
  assert.deepEqual(parseCpuOverride('proxy=0 generator=1', defaultCpuLayout(2), 2), { proxy: '0', backend: '0', generator: '1' })
  assert.throws(() => parseCpuOverride('proxi=1', defaultCpuLayout(2), 2), /^UserError: --cpus: cannot read "proxi=1"/)
  assert.throws(() => parseCpuOverride('proxy=7', defaultCpuLayout(2), 2), /names CPU 7 but this machine has 2/)
})
