import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseInContainerRead } from '../../../lib/runtime/docker/cgroup.ts'

test('the in-container counter line: v1 ns as is, v2 usage_usec in ns; anything else is no reading', () => {
  assert.equal(parseInContainerRead('ns 23922996\n'), 23922996)
  assert.equal(parseInContainerRead('us 1500\n'), 1_500_000)
  assert.equal(parseInContainerRead('cat: /sys/fs/cgroup/cpu.stat: No such file or directory\n'), null)
  assert.equal(parseInContainerRead(''), null)
  assert.equal(parseInContainerRead('ns 0\n'), null)
})
