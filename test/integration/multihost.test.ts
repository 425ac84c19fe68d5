import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import Docker from 'dockerode'
import { parseHosts } from '../../lib/cli/hosts-options.ts'
import { exec } from '../../lib/core/exec.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { readManifest } from '../../lib/data/manifest.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { readMeasurements } from '../../lib/data/measurements.ts'
import { isDisturbed } from '../../lib/data/precision.ts'
import { HANDSHAKES, readTable } from '../../lib/data/tables.ts'
import { engineOptions, type Topology } from '../../lib/runtime/docker/topology.ts'
import { dockerClient, ensureDockerEngine } from '../../lib/setup/docker-engine.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { describeSwept, netnsLeftovers, netnsUnavailable, ROOT_ADDRESS, startNetnsEngines, SUBNET, type NetnsEngines, type Transport } from './support/netns-engines.ts'
import { testNeeding } from '../support/needs.ts'

// Three real Docker hosts on this machine (test/integration/support/netns-engines.ts): each
// its own network namespace and dockerd, reached over SSH, TCP with TLS, and a unix socket.
// Skipped, with the reason, where that is impossible (not root, no netns, a tool missing).
const skip = await netnsUnavailable()
if (skip) console.log(`multihost tests skipped: ${skip}`)

let engines: (NetnsEngines & { swept: Parameters<typeof describeSwept>[0] }) | undefined
let topology: Topology
let tornDown = false

before(async () => {
  if (skip) return
  // This machine's engine: where the images are built and sent from (the docker tests may have stopped it).
  await ensureDockerEngine(memoryLogger())
  engines = await startNetnsEngines()
  const swept = describeSwept(engines.swept)
  if (swept) console.log(`multihost: removed what an earlier run left: ${swept}`)
  topology = parseHosts(engines.hostsFlag())!
})

// A failing test still tears down; the last test asserts the teardown itself.
after(async () => {
  if (engines && !tornDown) await engines.teardown()
})

const transportOf: Record<'proxy' | 'backend' | 'generator', Transport> = { proxy: 'ssh', backend: 'tcp', generator: 'unix' }

testNeeding('three engines, one per namespace, answer through dockerode over SSH, TCP with TLS and a unix socket', { id: 'integration/multihost', missing: skip }, async () => {
  // dockerd 20.10 derives its ID from /etc/docker/key.json, the same for all four engines:
  // the data root tells them apart.
  const roots = new Set<string>([(await dockerClient().info()).DockerRootDir])
  for (const role of ['proxy', 'backend', 'generator'] as const) {
    const host = topology.roles[role].host
    const h = engines!.hosts[transportOf[role]]
    assert.equal(host.protocol, h.transport)
    assert.equal(host.address, h.address)
    const info = await new Docker(engineOptions(host)).info()
    // The engine that answered is this host's own (its data root), not the machine's.
    assert.equal(info.DockerRootDir, join(h.dir, 'data'), `${role} over ${h.transport}`)
    roots.add(info.DockerRootDir)
  }
  assert.equal(roots.size, 4, 'four distinct engines: the machine\'s and three hosts')
})

testNeeding('the TLS engine refuses a client without a certificate', { id: 'integration/multihost', missing: skip }, async () => {
  const h = engines!.hosts.tcp
  const opts = engineOptions(topology.roles.backend.host)
  await assert.rejects(new Docker({ protocol: 'https', host: h.address, port: opts.port, ca: opts.ca }).ping())
})

testNeeding('the hosts reach each other and the root namespace on the test subnet, and nothing else', { id: 'integration/multihost', missing: skip }, async () => {
  const { ssh, tcp, unix } = engines!.hosts
  // bash's /dev/tcp: a TCP connect from inside a namespace, with no tool to install.
  const connect = (from: string, to: string, port: number) => exec('nsenter', [`--net=/var/run/netns/${from}`, 'timeout', '5', 'bash', '-c', `exec 3<>/dev/tcp/${to}/${port}`])
  assert.equal((await connect(unix.netns, tcp.address, 2376)).code, 0, 'unix host → tcp host engine port')
  assert.equal((await connect(tcp.netns, ssh.address, 22)).code, 0, 'tcp host → ssh host sshd')
  for (const h of [ssh, tcp, unix]) {
    // One route, the subnet's: no default route, so no way off the test subnet.
    const routes = (await exec('ip', ['-n', h.netns, 'route', 'show'])).stdout.trim().split('\n')
    assert.deepEqual(routes.map((r) => r.split(' ')[0]), [`${SUBNET}.0/24`], `${h.netns} routes`)
    const out = await connect(h.netns, '192.0.2.1', 53)
    assert.notEqual(out.code, 0)
    assert.match(out.stderr, /unreachable/i)
  }
  assert.equal((await connect(ssh.netns, ROOT_ADDRESS, 9)).stderr.includes('unreachable'), false, 'the root namespace is on the subnet')
})

const ZX = join(repoRoot, 'node_modules', 'zx', 'build', 'cli.js')

/** run-all as a user runs it; resolves to its exit code and output. */
function runAll(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ZX, join(repoRoot, 'notebooks/run-all.mjs'), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d))
    child.stderr.on('data', (d: Buffer) => (out += d))
    child.on('close', (code) => resolve({ code: code ?? 1, out }))
  })
}

testNeeding('a pooling cell and a handshake cell across the three hosts: valid rows, the hosts and the network in the manifest, no container left', { id: 'integration/multihost', missing: skip }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'pb-multihost-run-'))
  const out = join(work, 'run')
  try {
    // Smoke: one repeat of a 1 s window; pool-added only (and the direct floor); the
    // resumption series' cells are handshakes (none and TLS 1.3 tickets).
    const r = await runAll(['--profile', 'smoke', '--series', 'pooling,resumption', '--proxies', 'haproxy', '--variants', 'pool-added', '--no-report', '--hosts', engines!.hostsFlag(), '--out', out])
    assert.equal(r.code, 0, r.out.slice(-3000))
    const m = readManifest(out)!
    const hosts = m.hosts!
    assert.equal(hosts.source, '--hosts')
    // The SSH and TLS engines' CPU: their cgroup file read inside each container, not the stats API's 1 s tick.
    assert.match(m.cpu_source, /ssh:\/\/[^:]+: container cgroup counter file \([^)]*\), read inside the container by an exec(;|$)/)
    assert.match(m.cpu_source, /tcp:\/\/[^:]+:2376: container cgroup counter file \([^)]*\), read inside the container by an exec(;|$)/)
    const engineOf = (role: string) => hosts.roles.find((x) => x.role === role)!
    assert.match(engineOf('proxy').engine, /^ssh:\/\/(root@)?10\.203\.77\.11\b/)
    assert.match(engineOf('backend').engine, /^tcp:\/\/10\.203\.77\.12:2376/)
    assert.equal(engineOf('generator').engine, `unix://${engines!.hosts.unix.socket}`)
    // Each role on the cpuset it has on one machine: the hosts share this machine's cores.
    const cpus = defaultCpuLayout()
    assert.deepEqual(hosts.roles.map((x) => [x.role, x.cpuset]), [['proxy', cpus.proxy], ['backend', cpus.backend], ['generator', cpus.generator]])
    assert.deepEqual(hosts.roles.map((x) => [x.role, x.address]), [['proxy', engines!.hosts.ssh.address], ['backend', engines!.hosts.tcp.address], ['generator', engines!.hosts.unix.address]])
    assert.equal(hosts.hosts.length, 3)
    for (const h of hosts.hosts) {
      assert.ok(h.fingerprint, `${h.engine}: a fingerprint read on that host`)
      // The namespaced engines started empty: every image they ran was sent from here.
      assert.ok(h.images.length > 0 && h.images.every((i) => i.sent), `${h.engine}: images sent`)
    }
    // The network the numbers came over, measured from the generator's host to the proxy's.
    assert.equal(hosts.network?.issue, null, hosts.network?.issue ?? '')
    assert.ok(hosts.network!.connect_echo_p50_ms! > 0 && hosts.network!.stream_mib_per_s! > 0)

    // A window disturbed by the machine is an invalid row that is measured again: judge the others.
    const rows = readMeasurements(out).filter((x) => !isDisturbed(x))
    const pooled = rows.find((x) => x.proxy === 'haproxy' && x.variant === 'pool-added')
    assert.ok(pooled, 'a pooling row')
    assert.equal(pooled.status, 'valid', pooled.reason)
    assert.ok(pooled.proxy_cpu_us_per_req! > 0 && pooled.requests > 0)
    const shakes = readTable(out, HANDSHAKES).filter((x) => !isDisturbed(x))
    assert.ok(shakes.length > 0, 'handshake rows')
    for (const x of shakes) {
      assert.equal(x.status, 'valid', x.reason)
      assert.ok(x.handshakes > 0 && x.proxy_cpu_us_per_handshake! > 0)
    }
    // Nothing left on any host's engine.
    for (const role of ['proxy', 'backend', 'generator'] as const) {
      const left = await new Docker(engineOptions(topology.roles[role].host)).listContainers({ all: true })
      assert.deepEqual(left.map((c) => c.Names[0]), [], `containers left on the ${role}'s host`)
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
})

testNeeding('teardown leaves no namespace, link, engine, process, mount, rule or key behind', { id: 'integration/multihost', missing: skip }, async () => {
  const forced = await engines!.teardown()
  tornDown = true
  assert.deepEqual(forced, [], 'everything stopped on its own')
  assert.deepEqual(await netnsLeftovers(), [])
})
