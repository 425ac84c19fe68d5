import assert from 'node:assert/strict'
import { test } from 'node:test'
import { dockerdFlags } from '../../lib/setup/docker-engine.ts'

test('dockerd flags: none on a host with iptables and overlay', () => {
  assert.deepEqual(dockerdFlags({ iptables: true, overlay: true }), [])
  assert.ok(dockerdFlags({ iptables: false, overlay: true }).includes('--iptables=false'))
  assert.deepEqual(dockerdFlags({ iptables: true, overlay: false }), ['--storage-driver=vfs'])
})
