import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { loadStack, PROXIES, templateFile, templateVariants } from '../lib/catalog/stack.ts'
import { parseFlags } from '../lib/cli/flags.ts'
import { parseNetwork } from '../lib/cli/run-options.ts'
import { RUN_FLAGS } from '../lib/cli/run-notebook.ts'
import { bridgeSysctls } from '../lib/runtime/docker/network.ts'
import { listenHost, reachHost } from '../lib/runtime/network.ts'
import type { RunningRole } from '../lib/runtime/types.ts'
import { placeholders, renderTemplate, TEMPLATE_NAMES } from '../lib/catalog/template.ts'

test('--network parses host and bridge; default host', () => {
  assert.equal(parseFlags(['--network', 'bridge'], RUN_FLAGS, 'help', 'x').network, 'bridge')
  assert.equal(parseNetwork(undefined, 'auto'), 'host')
  assert.equal(parseNetwork('host', 'native'), 'host')
  assert.equal(parseNetwork('bridge', 'docker'), 'bridge')
  assert.equal(parseNetwork('bridge', 'auto'), 'bridge')
})

test('--network bridge with --runtime native, or an unknown mode: one line naming the flag and the fix', () => {
  assert.throws(() => parseNetwork('bridge', 'native'), (e: Error) => e.message === '--network: bridge needs the docker runtime (native roles share the host network). Use --runtime docker, or drop --network')
  assert.throws(() => parseNetwork('overlay', 'docker'), (e: Error) => e.message === '--network: unknown mode "overlay". Use one of: host, bridge')
})

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

test('bridged containers: the host port range and backlog, TIME_WAIT reuse as loopback has it', () => {
  const host: Record<string, string> = { 'net.ipv4.ip_local_port_range': '32768\t60999\n', 'net.core.somaxconn': '4096\n' }
  assert.deepEqual(bridgeSysctls((k) => host[k]), { 'net.ipv4.tcp_tw_reuse': '1', 'net.ipv4.ip_local_port_range': '32768 60999', 'net.core.somaxconn': '4096' })
  assert.deepEqual(bridgeSysctls(() => undefined), { 'net.ipv4.tcp_tw_reuse': '1' })
})

test('listen_host is a template name and renders', () => {
  assert.ok(TEMPLATE_NAMES.includes('listen_host'))
  assert.equal(renderTemplate('listen {{listen_host}}:{{listen_port}} ssl;', { listen_host: '0.0.0.0', listen_port: 8443 }, 'x.conf'), 'listen 0.0.0.0:8443 ssl;')
})

test('every proxy listens on {{listen_host}}, never on a literal loopback address', () => {
  for (const proxy of PROXIES) {
    const stack = loadStack(proxy)
    // Traefik's listener is on its command line; the others' in the template.
    const startLine = stack.start.join(' ')
    for (const variant of templateVariants(proxy)) {
      const text = readFileSync(templateFile(stack, variant), 'utf8')
      const where = `${proxy} ${variant}`
      assert.ok(placeholders(text + startLine).includes('listen_host'), `${where} uses {{listen_host}}`)
      const listeners = (text + '\n' + startLine).split('\n').filter((l) => !l.trim().startsWith('#') && /listen_port/.test(l))
      for (const l of listeners) assert.doesNotMatch(l, /127\.0\.0\.1|localhost/, `${where}: ${l.trim()}`)
    }
  }
})
