import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bridgeSysctls } from '../../../lib/runtime/docker/network.ts'

test('bridged containers: the host port range and backlog, TIME_WAIT reuse as loopback has it', () => {
  const host: Record<string, string> = { 'net.ipv4.ip_local_port_range': '32768\t60999\n', 'net.core.somaxconn': '4096\n' }
  assert.deepEqual(
    bridgeSysctls((k) => host[k]),
    { 'net.ipv4.tcp_tw_reuse': '1', 'net.ipv4.ip_local_port_range': '32768 60999', 'net.core.somaxconn': '4096' },
  )
  assert.deepEqual(
    bridgeSysctls(() => undefined),
    { 'net.ipv4.tcp_tw_reuse': '1' },
  )
})
