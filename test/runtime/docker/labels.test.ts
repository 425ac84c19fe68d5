import assert from 'node:assert/strict'
import { test } from 'node:test'
import { containerName, harnessGone } from '../../../lib/runtime/docker/labels.ts'

test('container names are valid and short; a harness that is gone is recognised', () => {
  const n = containerName('20260101-1200-ab12', 'proxy-nginx-1.31.3-pool-added.conf', 3)
  assert.match(n, /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/)
  assert.ok(containerName('r', 'x'.repeat(400), 1).length <= 120)
  assert.equal(harnessGone({ 'proxybench.harness': String(process.pid), 'proxybench.boot': 'b' }, { pid: process.pid, boot: 'b' }), false)
  assert.equal(harnessGone({ 'proxybench.harness': String(process.pid), 'proxybench.boot': 'old' }, { pid: process.pid, boot: 'b' }), true, 'another boot')
  assert.equal(harnessGone({}, { pid: 1, boot: 'b' }), true, 'unlabelled: gone')
  assert.equal(harnessGone({ 'proxybench.harness': '999999999' }, { pid: 1, boot: 'b' }), true)
})
