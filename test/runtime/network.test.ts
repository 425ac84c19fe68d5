import assert from 'node:assert/strict'
import { test } from 'node:test'
import { applyPortSysctls, hostNetns, keepsItsSettings, listenHost, PORT_SYSCTLS, reachHost } from '../../lib/runtime/network.ts'
import type { RunningRole } from '../../lib/runtime/types.ts'

const role = (name: string) => ({ spec: { role: 'proxy', name, argv: [], cpus: '0', logFile: '' }, pid: 1, exited: new Promise(() => {}) }) as RunningRole

test('listen and reach addresses: loopback unless bridged; bridged roles at their container address', () => {
  const native = {}
  const host = { network: 'host' as const, addressOf: () => '172.18.0.2' }
  const bridge = { network: 'bridge' as const, addressOf: (r: RunningRole) => (r.spec.name === 'p' ? '172.18.0.3' : undefined) }
  assert.equal(listenHost(native), '127.0.0.1')
  assert.equal(listenHost(host, '127.0.0.7'), '127.0.0.7')
  assert.equal(listenHost(bridge, '127.0.0.7'), '0.0.0.0')
  assert.equal(reachHost(native, role('p'), '127.0.0.7'), '127.0.0.7')
  assert.equal(reachHost(host, role('p')), '127.0.0.1')
  assert.equal(reachHost(bridge, role('p'), '127.0.0.7'), '172.18.0.3')
  assert.throws(() => reachHost(bridge, role('q')), /q has no address on the run's network/)
})

test("roles on several hosts: a server role listens and is reached at its host's address; a loopback-addressed host is one machine", () => {
  const hosts = { network: 'host' as const, hostAddress: (r: string) => (r === 'proxy' ? { listen: '10.0.0.1', reach: '10.0.0.1' } : undefined) }
  assert.equal(listenHost(hosts, '127.0.0.7', 'proxy'), '10.0.0.1')
  assert.equal(listenHost(hosts, '127.0.0.7', 'backend'), '127.0.0.7')
  assert.equal(listenHost(hosts, '127.0.0.7'), '127.0.0.7')
  assert.equal(reachHost(hosts, role('p'), '127.0.0.7'), '10.0.0.1')
  assert.equal(reachHost(hosts, { ...role('b'), spec: { ...role('b').spec, role: 'backend' } }, '127.0.0.7'), '127.0.0.7')
})

test("port settings: a namespace of the run's own is set; the host's, or one not told apart from it, keeps its own", () => {
  assert.equal(keepsItsSettings('net:[4026532400]', 'net:[4026531833]'), null)
  assert.equal(keepsItsSettings('net:[4026531833]', 'net:[4026531833]'), "it is the host's network namespace")
  assert.equal(keepsItsSettings('net:[4026532400]', null), 'the host network namespace cannot be told apart from it')
  assert.equal(keepsItsSettings(null, 'net:[4026531833]'), 'its network namespace cannot be read')
  // Pid 2 is the kernel's thread daemon only in the host's pid namespace: in another, the host's namespace is unknown.
  assert.equal(
    hostNetns(() => 'sleep\n'),
    null,
  )
  assert.equal(applyPortSysctls(process.pid, null), 'TCP settings left as they are: the host network namespace cannot be told apart from it')
  assert.deepEqual(PORT_SYSCTLS, { 'net.ipv4.tcp_tw_reuse': '1', 'net.ipv4.ip_local_port_range': '1024 65535' })
})
