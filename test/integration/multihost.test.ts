import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import Docker from 'dockerode'
import { parseHosts } from '../../lib/cli/hosts-options.ts'
import { exec } from '../../lib/core/exec.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { readManifest } from '../../lib/data/manifest.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { parseLoadgenOutput, type H3Result } from '../../lib/roles/loadgen.ts'
import { readMeasurements } from '../../lib/data/measurements.ts'
import { isDisturbed } from '../../lib/data/precision.ts'
import { HANDSHAKES, readTable } from '../../lib/data/tables.ts'
import { UserError } from '../../lib/core/errors.ts'
import { connectHosts } from '../../lib/run/hosts.ts'
import { fingerprintOf } from '../../lib/runtime/docker/host-keys.ts'
import { MultiHostRuntime } from '../../lib/runtime/docker/multi-host.ts'
import { readProcesses, type KernelProcesses } from '../../lib/runtime/proc.ts'
import { engineOptions, type Topology } from '../../lib/runtime/docker/topology.ts'
import { dockerClient, ensureDockerEngine } from '../../lib/setup/docker-engine.ts'
import { readImageRecords } from '../../lib/setup/images/records.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import {
  describeSwept,
  knownHostsFile,
  netnsLeftovers,
  netnsUnavailable,
  ROOT_ADDRESS,
  startNetnsEngines,
  SUBNET,
  type NetnsEngines,
  type Transport,
} from './support/netns-engines.ts'
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

testNeeding(
  'three engines, one per namespace, answer through dockerode over SSH, TCP with TLS and a unix socket',
  { id: 'integration/multihost', missing: skip },
  async () => {
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
    assert.equal(roots.size, 4, "four distinct engines: the machine's and three hosts")
  },
)

testNeeding('the TLS engine refuses a client without a certificate', { id: 'integration/multihost', missing: skip }, async () => {
  const h = engines!.hosts.tcp
  const opts = engineOptions(topology.roles.backend.host)
  await assert.rejects(new Docker({ protocol: 'https', host: h.address, port: opts.port, ca: opts.ca }).ping())
})

testNeeding(
  'the hosts reach each other and the root namespace on the test subnet, and nothing else',
  { id: 'integration/multihost', missing: skip },
  async () => {
    const { ssh, tcp, unix } = engines!.hosts
    // bash's /dev/tcp: a TCP connect from inside a namespace, with no tool to install.
    const connect = (from: string, to: string, port: number) =>
      exec('nsenter', [`--net=/var/run/netns/${from}`, 'timeout', '5', 'bash', '-c', `exec 3<>/dev/tcp/${to}/${port}`])
    assert.equal((await connect(unix.netns, tcp.address, 2376)).code, 0, 'unix host → tcp host engine port')
    assert.equal((await connect(tcp.netns, ssh.address, 22)).code, 0, 'tcp host → ssh host sshd')
    for (const h of [ssh, tcp, unix]) {
      // One route, the subnet's: no default route, so no way off the test subnet.
      const routes = (await exec('ip', ['-n', h.netns, 'route', 'show'])).stdout.trim().split('\n')
      assert.deepEqual(
        routes.map((r) => r.split(' ')[0]),
        [`${SUBNET}.0/24`],
        `${h.netns} routes`,
      )
      const out = await connect(h.netns, '192.0.2.1', 53)
      assert.notEqual(out.code, 0)
      assert.match(out.stderr, /unreachable/i)
    }
    assert.equal((await connect(ssh.netns, ROOT_ADDRESS, 9)).stderr.includes('unreachable'), false, 'the root namespace is on the subnet')
  },
)

/** The SSH host's public host key as sshd offers it (the blob of its .pub file). */
const hostKeyBlob = () =>
  Buffer.from(
    readFileSync(join(engines!.hosts.ssh.dir, 'ssh', 'host_ed25519.pub'), 'utf8')
      .trim()
      .split(/\s+/)[1]!,
    'base64',
  )

/** connectHosts over a topology: the UserError's one line, or 'answered'. */
async function connectLine(hosts: string, o: { acceptNew?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const rt = new MultiHostRuntime(`keys-${process.pid}`, parseHosts(hosts, o.env ?? process.env, { acceptNewHostKeys: !!o.acceptNew })!, { images: [] })
  try {
    await connectHosts(rt, 20_000)
    return 'answered'
  } catch (e) {
    assert.ok(e instanceof UserError, String((e as Error).stack))
    assert.ok(!e.message.includes('\n'), e.message)
    return e.message
  } finally {
    await rt.stopAll()
  }
}

/** The --hosts value with the SSH host's `known_hosts=` (or a pinned `fingerprint=`) replaced. */
const withSshOption = (option: string) => engines!.hostsFlag().replace(/known_hosts=[^&\s]+/, option)
/** The --hosts value with the TLS host's certs= directory replaced. */
const withCerts = (dir: string) => engines!.hostsFlag().replace(/certs=[^&\s]+/, `certs=${dir}`)

testNeeding(
  'ssh host keys: the recorded key passes; an unknown key is refused in one line, recorded by --accept-new-host-keys; a pin decides alone',
  { id: 'integration/multihost', missing: skip },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'pb-hostkeys-'))
    try {
      const fp = fingerprintOf(hostKeyBlob())
      const empty = join(work, 'empty_known_hosts')
      writeFileSync(empty, '# nothing known\n')
      const unknown = await connectLine(withSshOption(`known_hosts=${empty}`))
      assert.match(
        unknown,
        new RegExp(
          `^--hosts proxy: ssh://10\\.203\\.77\\.11 offers host key ${fp.replace(/[+/]/g, '\\$&')} \\(ssh-ed25519\\), which ${empty} does not list\\. Check it .* --accept-new-host-keys`,
        ),
      )
      // accept-new: a file that does not exist yet is started, with the key under the host's address.
      const fresh = join(work, 'new', 'known_hosts')
      assert.equal(await connectLine(withSshOption(`known_hosts=${fresh}`), { acceptNew: true }), 'answered')
      assert.equal(readFileSync(fresh, 'utf8'), `10.203.77.11 ssh-ed25519 ${hostKeyBlob().toString('base64')}\n`)
      assert.equal(await connectLine(withSshOption(`known_hosts=${fresh}`)), 'answered', 'the recorded key is known from then on')
      // Without known_hosts=: ~/.ssh/known_hosts of $HOME (empty here) is where it is looked up.
      const home = join(work, 'home')
      const noFile = await connectLine(withSshOption('x=1').replace(/&x=1/, ''), { env: { ...process.env, HOME: home } })
      assert.match(noFile, new RegExp(`which ${home}/\\.ssh/known_hosts or /etc/ssh/ssh_known_hosts does not list`))
      assert.equal(existsSync(join(home, '.ssh', 'known_hosts')), false, 'nothing recorded without --accept-new-host-keys')
      // A pinned fingerprint: the right one passes, another is refused; known_hosts is not read.
      assert.equal(await connectLine(withSshOption(`fingerprint=${fp}`)), 'answered')
      const other = 'SHA256:' + 'A'.repeat(43)
      assert.match(
        await connectLine(withSshOption(`fingerprint=${other}`)),
        new RegExp(`offers host key ${fp.replace(/[+/]/g, '\\$&')} \\(ssh-ed25519\\), not the pinned ${other}\\. Nothing was sent`),
      )
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  },
)

/** The ed25519 key the SSH host's sshd offers now, as ssh-keyscan reads it (base64), waited for up to 20 s to be `want`. */
async function offeredKey(want: string): Promise<string> {
  let got = ''
  for (let i = 0; i < 80 && got !== want; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 250))
    const r = await exec('ssh-keyscan', ['-T', '3', '-t', 'ed25519', engines!.hosts.ssh.address])
    got = r.stdout.trim().split(/\s+/)[2] ?? ''
  }
  return got
}

testNeeding(
  'a swapped ssh host key is refused by run-all in one line: nothing copied, no container created, nothing written',
  { id: 'integration/multihost', missing: skip },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'pb-swapped-'))
    // The server's own key is swapped, as a machine in the middle (or a reinstalled host) would
    // present another; the client keeps the known_hosts it recorded (the engines' own).
    const sshDir = join(engines!.hosts.ssh.dir, 'ssh')
    const hostKey = join(sshDir, 'host_ed25519')
    const original = readFileSync(`${hostKey}.pub`, 'utf8').trim().split(/\s+/)[1]!
    const sshdPid = Number(readFileSync(join(sshDir, 'sshd.pid'), 'utf8').trim())
    for (const f of ['', '.pub']) cpSync(hostKey + f, join(work, `original${f}`))
    // sshd re-reads its host keys when it re-executes itself on SIGHUP.
    const serve = async (from: string, want: string) => {
      for (const f of ['', '.pub']) cpSync(from + f, hostKey + f)
      process.kill(sshdPid, 'SIGHUP')
      assert.equal(await offeredKey(want), want, 'sshd offers the key it was given')
    }
    try {
      const swapped = join(work, 'swapped')
      const keygen = await exec('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', swapped])
      assert.equal(keygen.code, 0, keygen.stderr)
      const key = readFileSync(`${swapped}.pub`, 'utf8').trim().split(/\s+/)[1]!
      await serve(swapped, key)
      // What each host's engine holds before, read over its own unix socket (not over the transport under test).
      const state = async () =>
        Promise.all(
          (['ssh', 'tcp', 'unix'] as const).map(async (t) => {
            const local = new Docker({ socketPath: engines!.hosts[t].socket })
            return {
              t,
              containers: (await local.listContainers({ all: true })).length,
              images: (await local.listImages())
                .map((i) => i.Id)
                .sort()
                .join(','),
            }
          }),
        )
      const before = await state()
      const out = join(work, 'run')
      const r = await runAll([
        '--profile',
        'smoke',
        '--series',
        'pooling',
        '--proxies',
        'haproxy',
        '--variants',
        'pool-added',
        '--no-report',
        '--hosts',
        engines!.hostsFlag(),
        '--out',
        out,
      ])
      assert.equal(r.code, 2, r.out.slice(-3000))
      const lines = r.out
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('proxybench: '))
      assert.equal(lines.length, 1, r.out.slice(-3000))
      const known = knownHostsFile(engines!.hosts.ssh)
      const offered = fingerprintOf(Buffer.from(key, 'base64')).replace(/[+/]/g, '\\$&')
      const recorded = fingerprintOf(Buffer.from(original, 'base64')).replace(/[+/]/g, '\\$&')
      assert.match(
        lines[0]!,
        new RegExp(
          `^proxybench: --hosts proxy: ssh://10\\.203\\.77\\.11 offers host key ${offered} \\(ssh-ed25519\\), but ${known}:1 lists ${recorded} for it: the host's key changed, or another machine answers in its place\\. Nothing was sent\\. .*ssh-keygen -R 10\\.203\\.77\\.11 -f ${known}$`,
        ),
      )
      assert.deepEqual(await state(), before, 'no container created and no image sent on any host')
      assert.equal(existsSync(join(out, 'manifest.json')), false, 'no manifest')
      assert.equal(existsSync(join(out, 'measurements.csv')), false, 'no rows')
    } finally {
      // The recorded key again, for the tests after this one.
      await serve(join(work, 'original'), original)
      rmSync(work, { recursive: true, force: true })
    }
  },
)

testNeeding(
  'tcp:// engines: no client certificates, a client certificate the engine does not trust, a server certificate the CA did not sign: each refused in one line',
  { id: 'integration/multihost', missing: skip },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'pb-tls-'))
    try {
      // No certs= and none in DOCKER_CERT_PATH or ~/.docker: refused while parsing, before any connection.
      const bare = engines!.hostsFlag().replace(/\?certs=[^&\s]+&/, '?')
      assert.throws(
        () => parseHosts(bare, { HOME: work }),
        /^UserError: --hosts: backend: tcp:\/\/10\.203\.77\.12:2376 needs TLS client certificates\. Add certs=DIR/,
      )
      // Another CA and a client certificate from it.
      const foreign = join(work, 'foreign')
      mkdirSync(foreign)
      const ossl = async (...args: string[]) => assert.equal((await exec('openssl', args)).code, 0, `openssl ${args.join(' ')}`)
      await ossl(
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(foreign, 'ca-key.pem'),
        '-out',
        join(foreign, 'ca.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=not the engine CA',
      )
      await ossl(
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        join(foreign, 'key.pem'),
        '-out',
        join(foreign, 'client.csr'),
        '-subj',
        '/CN=stranger',
      )
      writeFileSync(join(foreign, 'client.ext'), 'extendedKeyUsage=clientAuth\n')
      await ossl(
        'x509',
        '-req',
        '-in',
        join(foreign, 'client.csr'),
        '-CA',
        join(foreign, 'ca.pem'),
        '-CAkey',
        join(foreign, 'ca-key.pem'),
        '-CAcreateserial',
        '-days',
        '1',
        '-extfile',
        join(foreign, 'client.ext'),
        '-out',
        join(foreign, 'cert.pem'),
      )
      // The engine's CA, but a client certificate it did not issue: the engine refuses the client.
      const strangerClient = join(work, 'stranger-client')
      cpSync(engines!.clientCerts, strangerClient, { recursive: true })
      for (const f of ['cert.pem', 'key.pem']) cpSync(join(foreign, f), join(strangerClient, f))
      assert.match(
        await connectLine(withCerts(strangerClient)),
        /^--hosts backend: the TLS engine at tcp:\/\/10\.203\.77\.12:2376 refused this client's certificate .*stranger-client\/cert\.pem \(.*\)\. Give certs=DIR with a cert\.pem and key\.pem signed by the CA/,
      )
      // The engine's client certificate, but a ca.pem that did not sign the server's certificate.
      const strangerCa = join(work, 'stranger-ca')
      cpSync(engines!.clientCerts, strangerCa, { recursive: true })
      cpSync(join(foreign, 'ca.pem'), join(strangerCa, 'ca.pem'))
      assert.match(
        await connectLine(withCerts(strangerCa)),
        /^--hosts backend: the TLS engine at tcp:\/\/10\.203\.77\.12:2376 presents a server certificate that .*stranger-ca\/ca\.pem did not sign \([A-Z_]+\)\. Nothing was sent/,
      )
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  },
)

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

testNeeding(
  'pooling, handshake and h3 cells across the three hosts: valid rows, QUIC over UDP between them, the hosts and the network in the manifest, no container left',
  { id: 'integration/multihost', missing: skip },
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'pb-multihost-run-'))
    const out = join(work, 'run')
    try {
      // Smoke: one repeat of a 1 s window; pool-added and h3 only (and the direct floors); the
      // resumption series' cells are handshakes (none and TLS 1.3 tickets); h3 on ec256 only:
      // HAProxy's h3 variant over QUIC and over HTTP/1.1, the backend's own HTTP/3, handshakes
      // over QUIC and TCP+TLS. HAProxy's newest build speaks QUIC: no other image is sent.
      const r = await runAll([
        '--profile',
        'smoke',
        '--series',
        'pooling,resumption,h3',
        '--proxies',
        'haproxy',
        '--variants',
        'pool-added,h3',
        '--key-types',
        'ec256',
        '--no-report',
        '--hosts',
        engines!.hostsFlag(),
        '--out',
        out,
      ])
      const endedAt = Date.now()
      assert.equal(r.code, 0, r.out.slice(-3000))
      // The preflight and any wait for quiet read every host through its reader.
      assert.doesNotMatch(r.out, /no look at the hosts|no wait for quiet/)
      const m = readManifest(out)!
      const hosts = m.hosts!
      assert.equal(hosts.source, '--hosts')
      // The SSH and TLS engines' CPU: their cgroup file read by each host's reader, not by an exec per read nor the stats API's 1 s tick.
      assert.match(
        m.cpu_source,
        /ssh:\/\/[^:]+: container cgroup counter file \([^)]*\), read by the host's reader \(one mawk process in a container there\)(;|$)/,
      )
      assert.match(
        m.cpu_source,
        /tcp:\/\/[^:]+:2376: container cgroup counter file \([^)]*\), read by the host's reader \(one mawk process in a container there\)(;|$)/,
      )
      // Each reader ran the whole run and answered every slice: what it cost its host is said at the end.
      const readerLine = (url: RegExp) =>
        new RegExp(`^${url.source}[^ ]*: host reader: \\d+ ms of CPU in \\d+ s \\(([\\d.]+)% of a core\\), (\\d+) reads$`, 'm')
      for (const url of [/ssh:\/\/(root@)?10\.203\.77\.11/, /tcp:\/\/10\.203\.77\.12:2376/]) {
        const cost = readerLine(url).exec(r.out)
        assert.ok(cost, `${url.source}: the reader's cost line\n${r.out.slice(-3000)}`)
        console.log(`multihost: ${cost[0]}`)
        assert.ok(Number(cost.at(-2)) < 1, `${url.source}: the reader costs under 1% of a core`)
        assert.ok(Number(cost.at(-1)) > 20, `${url.source}: the reader answered the slices (${cost.at(-1)} reads)`)
      }
      const engineOf = (role: string) => hosts.roles.find((x) => x.role === role)!
      assert.match(engineOf('proxy').engine, /^ssh:\/\/(root@)?10\.203\.77\.11\b/)
      assert.match(engineOf('backend').engine, /^tcp:\/\/10\.203\.77\.12:2376/)
      assert.equal(engineOf('generator').engine, `unix://${engines!.hosts.unix.socket}`)
      // Each role on the cpuset it has on one machine: the hosts share this machine's cores.
      const cpus = defaultCpuLayout()
      assert.deepEqual(
        hosts.roles.map((x) => [x.role, x.cpuset]),
        [
          ['proxy', cpus.proxy],
          ['backend', cpus.backend],
          ['generator', cpus.generator],
        ],
      )
      assert.deepEqual(
        hosts.roles.map((x) => [x.role, x.address]),
        [
          ['proxy', engines!.hosts.ssh.address],
          ['backend', engines!.hosts.tcp.address],
          ['generator', engines!.hosts.unix.address],
        ],
      )
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
      const disturbedRows = readMeasurements(out)
        .filter(isDisturbed)
        .map((x) => `${x.series} ${x.variant}: ${x.reason} (${x.foreign_processes})`)
      assert.ok(pooled, `a pooling row; disturbed:\n${disturbedRows.join('\n')}\n${r.out.slice(-2000)}`)
      assert.equal(pooled.status, 'valid', pooled.reason)
      assert.ok(pooled.proxy_cpu_us_per_req! > 0 && pooled.requests > 0)
      // Judged for disturbance from the hosts' readers, whole and in slices, as on one machine.
      for (const x of [pooled, ...rows.filter((y) => y.series === 'h3')]) {
        assert.ok(x.steal_share !== null && x.foreign_cpu_share !== null, `${x.series} ${x.variant}: judged (${x.reason})`)
        assert.ok(x.disturbed_slice_share !== null, `${x.series} ${x.variant}: read in slices`)
        assert.doesNotMatch(x.reason, /not judged/)
      }
      // A disturbed window is a row too: on several hosts it says so, as on one machine.
      for (const x of readMeasurements(out).filter(isDisturbed)) assert.match(x.reason, /^disturbed: /)
      const shakes = readTable(out, HANDSHAKES).filter((x) => !isDisturbed(x))
      assert.ok(shakes.length > 0, 'handshake rows')
      for (const x of shakes) {
        assert.equal(x.status, 'valid', x.reason)
        assert.ok(x.handshakes > 0 && x.proxy_cpu_us_per_handshake! > 0)
        assert.ok(x.foreign_cpu_share !== null && x.disturbed_slice_share !== null, `${x.series}: judged, in slices (${x.reason})`)
      }
      assert.deepEqual([...new Set(shakes.map((x) => x.series))].sort(), ['h3-handshake', 'h3-handshake-tcp', 'resumption'])
      assert.ok(
        shakes.filter((x) => x.series === 'h3-handshake').every((x) => x.udp_datagrams_per_req! > 0),
        'QUIC handshakes count their datagrams',
      )

      // h3: through HAProxy's h3 config on the SSH host (QUIC bound to its address) and to the
      // backend's own HTTP/3 listener on the TLS host, from the generator's: verified as h3 first.
      for (const [proxy, variant] of [
        ['haproxy', 'h3'],
        ['direct', 'direct'],
      ] as const) {
        const h3 = rows.find((x) => x.series === 'h3' && x.proxy === proxy && x.variant === variant)
        assert.ok(h3, `an h3 row, ${proxy}`)
        assert.equal(h3.status, 'valid', h3.reason)
        assert.ok(h3.requests > 0 && h3.udp_datagrams_per_req! > 0, JSON.stringify(h3))
        if (proxy === 'haproxy') assert.ok(h3.proxy_cpu_us_per_req! > 0)
      }
      const h1 = rows.find((x) => x.series === 'h3-h1')
      assert.equal(h1?.status, 'valid', h1?.reason)
      const quic = readdirSync(join(out, 'raw'))
        .filter((f) => f.endsWith('.h3.json'))
        .map((f) => parseLoadgenOutput<H3Result>(readFileSync(join(out, 'raw', f), 'utf8')))
      assert.ok(
        quic.length >= 2 && quic.every((x) => x?.alpn === 'h3' && x.proto === 'HTTP/3.0' && x.window_ok > 0),
        JSON.stringify(quic.map((x) => x && [x.alpn, x.proto, x.window_ok])),
      )
      const config = readdirSync(join(out, 'configs')).find((f) => f.endsWith('-h3.cfg'))
      assert.ok(config, 'the h3 config kept')
      assert.match(
        readFileSync(join(out, 'configs', config), 'utf8'),
        new RegExp(`bind quic4@${engines!.hosts.ssh.address.replaceAll('.', '\\.')}:\\d+ `),
        "QUIC bound to the proxy host's address",
      )
      // What the h3 cells add to the run (the CI budget): h3 runs last (--series order), so from its first repeat to the end.
      const h3Rows = [...rows, ...shakes].filter((x) => x.series.startsWith('h3'))
      const h3Start = Math.min(...h3Rows.map((x) => Date.parse(x.started_at)))
      console.log(`multihost: the h3 cells took ${Math.round((endedAt - h3Start) / 1000)} s of the run`)
      // Nothing left on any host's engine.
      for (const role of ['proxy', 'backend', 'generator'] as const) {
        const left = await new Docker(engineOptions(topology.roles[role].host)).listContainers({ all: true })
        assert.deepEqual(
          left.map((c) => c.Names[0]),
          [],
          `containers left on the ${role}'s host`,
        )
      }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  },
)

/** CPU ticks (utime + stime) of every process in a network namespace now: its engine, containerd, shims, sshd and its sessions. */
async function namespaceTicks(ns: string): Promise<number> {
  const pids = (await exec('ip', ['netns', 'pids', ns])).stdout.split('\n').filter(Boolean)
  let ticks = 0
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      ticks += Number(f[11]) + Number(f[12])
    } catch {}
  }
  return ticks
}

testNeeding(
  "each host's reader at the slice rate: its own CPU and its engine's side (dockerd, containerd, its shim, sshd) against the same time idle",
  { id: 'integration/multihost', missing: skip },
  async () => {
    const rt = new MultiHostRuntime(`reader-cost-${process.pid}`, topology, { images: readImageRecords(), local: dockerClient() })
    const seconds = 10
    const perS = 3 // two slices a second and the window's ends
    try {
      assert.deepEqual(await rt.startReaders(defaultCpuLayout()), [])
      const remote = rt.hosts.filter((h) => h.runtime.hostReader)
      assert.deepEqual(
        remote.map((h) => h.host.protocol),
        ['ssh', 'tcp'],
        'a reader on each host whose files are not here',
      )
      // A window's processes: this kernel read here, each reader and this process the harness's own.
      const kernels = await rt.processes([])
      assert.equal(kernels.length, 1, "the namespaced hosts run this machine's kernel")
      const [{ procs, own }] = kernels as [KernelProcesses]
      assert.equal(procs.get(process.pid)?.command, readProcesses().get(process.pid)?.command)
      assert.deepEqual(
        remote.map((h) => procs.get(h.runtime.hostReader!.pid)?.command),
        ['mawk', 'mawk'],
      )
      assert.deepEqual(
        remote.map((h) => own.includes(h.runtime.hostReader!.pid)),
        [true, true],
        "the readers are the harness's own",
      )
      const ns = (h: (typeof remote)[number]) => engines!.hosts[h.host.protocol].netns
      const span = async (reading: boolean) => {
        const t0 = await Promise.all(remote.map((h) => namespaceTicks(ns(h))))
        const start = Date.now()
        for (let i = 0; i < seconds * perS; i++) {
          if (reading) await Promise.all(remote.map((h) => h.runtime.hostReader!.read([1])))
          await new Promise((r) => setTimeout(r, Math.max(0, start + ((i + 1) * 1000) / perS - Date.now())))
        }
        const t1 = await Promise.all(remote.map((h) => namespaceTicks(ns(h))))
        return t1.map((t, i) => (t - t0[i]!) / 100 / ((Date.now() - start) / 1000))
      }
      const idle = await span(false)
      const reading = await span(true)
      for (const [i, h] of remote.entries()) {
        const cost = h.runtime.hostReader!.cost!
        const own = cost.ns / 1e9 / cost.seconds
        const engine = reading[i]! - idle[i]!
        console.log(
          `multihost: reader on ${h.host.url}: ${cost.reads} reads in ${seconds} s; its container ${(100 * own).toFixed(3)}% of a core; the engine's side ${(100 * engine).toFixed(2)}% (${(100 * idle[i]!).toFixed(2)}% idle, ${(100 * reading[i]!).toFixed(2)}% reading)`,
        )
        assert.ok(own < 0.01, `${h.host.url}: the reader's own CPU under 1% of a core`)
      }
    } finally {
      await rt.stopAll()
    }
    for (const role of ['proxy', 'backend'] as const) {
      const left = await new Docker(engineOptions(topology.roles[role].host)).listContainers({ all: true })
      assert.deepEqual(
        left.map((c) => c.Names[0]),
        [],
        `the reader on the ${role}'s host is gone`,
      )
    }
  },
)

testNeeding('teardown leaves no namespace, link, engine, process, mount, rule or key behind', { id: 'integration/multihost', missing: skip }, async () => {
  const forced = await engines!.teardown()
  tornDown = true
  assert.deepEqual(forced, [], 'everything stopped on its own')
  assert.deepEqual(await netnsLeftovers(), [])
})
