import { spawn } from 'node:child_process'
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Docker from 'dockerode'
import { exec, lastLine } from '../../../lib/core/exec.ts'
import { defaultCpuLayout, type CpuLayout } from '../../../lib/roles/cpus.ts'

/*
 * Three Docker hosts on one machine, for the multi-host test (issue #18 item 4): each a
 * network namespace joined to the root namespace through a veth pair on one bridge, with
 * its own dockerd (data root, exec root, containerd, socket). One is reached over SSH (an
 * sshd in its namespace, root by key only), one over TCP with TLS client certificates, one
 * on a unix socket. The namespaces have no default route and no NAT: load can only reach
 * the test subnet. Everything is named with the `pbmh` prefix (interfaces, namespaces) or
 * lives under a `pb-netns-engines-` temp dir, so a sweep finds what a killed test left.
 */

/** A /24 that nothing here or in Docker's default pools uses. */
export const SUBNET = '10.203.77'
export const BRIDGE = 'pbmh0'
/** The bridge address: where the orchestrator (root namespace) is seen from the hosts. */
export const ROOT_ADDRESS = `${SUBNET}.1`
const DIR_PREFIX = 'pb-netns-engines-'
const RULE_COMMENT = 'pb-netns-engines'
const TLS_PORT = 2376

export type Transport = 'ssh' | 'tcp' | 'unix'
export const TRANSPORTS: readonly Transport[] = ['ssh', 'tcp', 'unix']

export interface HostPlan {
  transport: Transport
  /** The network namespace (also the root-side veth name; ≤ 15 characters). */
  netns: string
  address: string
  /** This host's files: data root, exec root, socket, logs, and its credentials. */
  dir: string
  socket: string
}

export const hostPlan = (dir: string, transport: Transport): HostPlan => ({
  transport,
  netns: `pbmh-${transport}`,
  address: `${SUBNET}.${11 + TRANSPORTS.indexOf(transport)}`,
  dir: join(dir, transport),
  socket: join(dir, transport, 'docker.sock'),
})

/** dockerd's flags for one host: nothing shared with the machine's engine. */
export function dockerdArgs(h: HostPlan, tls?: { ca: string; cert: string; key: string }): string[] {
  const args = [
    '--config-file',
    join(h.dir, 'daemon.json'),
    '--data-root',
    join(h.dir, 'data'),
    '--exec-root',
    join(h.dir, 'exec'),
    '--pidfile',
    join(h.dir, 'dockerd.pid'),
    '-H',
    `unix://${h.socket}`,
    // Host networking is what runs use; no bridge, so no iptables rules of this engine.
    '--bridge=none',
    '--iptables=false',
    '--ip6tables=false',
    '--ip-masq=false',
  ]
  if (h.transport === 'tcp' && tls)
    args.push('-H', `tcp://${h.address}:${TLS_PORT}`, '--tlsverify', '--tlscacert', tls.ca, '--tlscert', tls.cert, '--tlskey', tls.key)
  return args
}

/** The sshd of the SSH host: key-only root login; its sessions talk to that host's engine. */
export function sshdConfig(h: HostPlan): string {
  const ssh = join(h.dir, 'ssh')
  return [
    `ListenAddress ${h.address}`,
    'Port 22',
    `HostKey ${join(ssh, 'host_ed25519')}`,
    `PidFile ${join(ssh, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(ssh, 'authorized_keys')}`,
    'PermitRootLogin prohibit-password',
    'AllowUsers root',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    // The key lives under /tmp (world-writable): StrictModes would refuse it.
    'StrictModes no',
    // `docker system dial-stdio` (what dockerode runs over SSH) reads DOCKER_HOST.
    `SetEnv DOCKER_HOST=unix://${h.socket}`,
    '',
  ].join('\n')
}

export interface NetnsEngines {
  dir: string
  hosts: Record<Transport, HostPlan>
  /** The SSH host's client key (the test's own, removed with `dir`). */
  identity: string
  /** The TCP host's client certificates: ca.pem, cert.pem, key.pem (DOCKER_CERT_PATH layout). */
  clientCerts: string
  /** `--hosts` for run-all: proxy over SSH, backend over TLS, generator on the unix socket. */
  hostsFlag(): string
  /** Stops engines and sshd, removes namespaces, bridge, rule, mounts and files; returns what it had to force (empty: a clean stop). */
  teardown(): Promise<string[]>
}

/**
 * The `--hosts` value for engines planned in `dir`. The three hosts share this machine's
 * cores: each role gets the cpuset it has on one machine (defaultCpuLayout), so a
 * comparison with one host changes the network path and nothing else.
 */
export function hostsFlag(dir: string, cpus: CpuLayout = defaultCpuLayout()): string {
  const [ssh, tcp, unix] = TRANSPORTS.map((t) => hostPlan(dir, t))
  return [
    // The host key as a user records it (ssh-keyscan into a known_hosts file): checked, never taken on trust.
    `proxy=ssh://root@${ssh!.address}?identity=${join(ssh!.dir, 'ssh', 'id_ed25519')}&known_hosts=${knownHostsFile(ssh!)}&cpuset=${cpus.proxy}`,
    `backend=tcp://${tcp!.address}:${TLS_PORT}?certs=${join(tcp!.dir, 'client')}&cpuset=${cpus.backend}`,
    // A unix socket defaults to loopback; this engine's containers are in its namespace.
    `generator=unix://${unix!.socket}?address=${unix!.address}&cpuset=${cpus.generator}`,
  ].join(' ')
}

/** The SSH host's known_hosts: its host key under its address, as ssh-keyscan writes it. */
export const knownHostsFile = (ssh: HostPlan) => join(ssh.dir, 'ssh', 'known_hosts')

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function must(cmd: string, args: string[], what = `${cmd} ${args.join(' ')}`): Promise<string> {
  const r = await exec(cmd, args, { timeoutMs: 60_000 })
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${lastLine(r.stderr || r.stdout)}`)
  return r.stdout
}

const binary = (name: string) => ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/bin'].map((d) => join(d, name)).find(existsSync)

/**
 * Why three namespaced engines cannot run here, or false. Tries the one thing that needs
 * a privilege (a namespace) and removes it again.
 */
export async function netnsUnavailable(): Promise<string | false> {
  if (process.getuid?.() !== 0) return 'not root (network namespaces and a second dockerd need root)'
  for (const [bin, pkg] of [
    ['ip', 'iproute2'],
    ['nsenter', 'util-linux'],
    ['dockerd', 'docker.io'],
    ['docker', 'docker.io'],
    ['sshd', 'openssh-server'],
    ['ssh-keygen', 'openssh-client'],
    ['openssl', 'openssl'],
    ['iptables', 'iptables'],
  ] as const) {
    if (!binary(bin)) return `${bin} missing (apt-get install ${pkg})`
  }
  const probe = 'pbmh-probe'
  const r = await exec('ip', ['netns', 'add', probe])
  if (r.code !== 0) return `ip netns add: ${lastLine(r.stderr)}`
  await exec('ip', ['netns', 'del', probe])
  return false
}

/** PIDs whose command line names one of this module's temp dirs (engines, containerd, shims, sshd). */
function pidsUnder(prefix: string): number[] {
  const out: number[] = []
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(prefix)) out.push(Number(e))
    } catch {}
  }
  return out
}

async function netnsPids(ns: string): Promise<number[]> {
  const r = await exec('ip', ['netns', 'pids', ns])
  return r.code === 0 ? r.stdout.split('\n').filter(Boolean).map(Number) : []
}

const alive = (pid: number) => existsSync(`/proc/${pid}`)

/** SIGTERM, then SIGKILL after `graceMs`, these processes (and only these). */
async function stopPids(pids: number[], graceMs: number): Promise<number[]> {
  const signal = (sig: NodeJS.Signals) =>
    pids.filter(alive).forEach((p) => {
      try {
        process.kill(p, sig)
      } catch {}
    })
  signal('SIGTERM')
  const deadline = Date.now() + graceMs
  while (pids.some(alive) && Date.now() < deadline) await sleep(100)
  const forced = pids.filter(alive)
  if (forced.length) {
    signal('SIGKILL')
    const end = Date.now() + 5000
    while (forced.some(alive) && Date.now() < end) await sleep(100)
  }
  return forced
}

/** Unmounts what an engine left mounted under `prefix`, deepest first (lazy: a busy one goes when freed). */
async function unmountUnder(prefix: string): Promise<string[]> {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '')
    .map((p) => p.replace(/\\040/g, ' '))
    .filter((p) => p.startsWith(prefix))
  const done: string[] = []
  for (const m of [...new Set(mounts)].sort((a, b) => b.length - a.length)) {
    if ((await exec('umount', ['-l', m])).code === 0) done.push(m)
  }
  return done
}

/** Removes the FORWARD rule that lets the hosts reach each other across the bridge (all copies). */
async function removeForwardRule(): Promise<number> {
  let n = 0
  const rules = await exec('iptables', ['-S', 'FORWARD'])
  for (const line of rules.stdout.split('\n').filter((l) => l.includes(RULE_COMMENT))) {
    const spec = line
      .replace(/^-A /, '')
      .split(' ')
      .map((w) => w.replace(/^"|"$/g, ''))
    if ((await exec('iptables', ['-D', ...spec])).code === 0) n++
  }
  return n
}

export interface Swept {
  /** Processes still running under the temp dirs or in the namespaces (killed). */
  processes: number
  /** Mount points under the temp dirs (unmounted). */
  mounts: string[]
  namespaces: string[]
  bridge: boolean
  rules: number
  dirs: string[]
}

/** One line for what a sweep found, or '' when nothing was there. */
export const describeSwept = (s: Swept): string =>
  [
    s.processes ? `${s.processes} processes` : '',
    s.mounts.length ? `mounts ${s.mounts.join(', ')}` : '',
    s.namespaces.length ? `netns ${s.namespaces.join(', ')}` : '',
    s.bridge ? `bridge ${BRIDGE}` : '',
    s.rules ? `${s.rules} FORWARD rules` : '',
    s.dirs.length ? `dirs ${s.dirs.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ')

/**
 * Removes everything a previous (killed) run of this module left, or what a teardown did
 * not stop: processes under its temp dirs or in its namespaces, mounts, namespaces, the
 * bridge, the FORWARD rule, the dirs.
 */
export async function sweepNetnsEngines(root = tmpdir()): Promise<Swept> {
  const dirs = existsSync(root)
    ? readdirSync(root)
        .filter((d) => d.startsWith(DIR_PREFIX))
        .map((d) => join(root, d))
    : []
  const namespaces = await ourNamespaces()
  const pids = new Set<number>(pidsUnder(join(root, DIR_PREFIX)))
  for (const ns of namespaces) for (const p of await netnsPids(ns)) pids.add(p)
  if (pids.size) await stopPids([...pids], 10_000)
  const mounts: string[] = []
  for (const d of dirs) mounts.push(...(await unmountUnder(d + '/')))
  for (const ns of namespaces) await exec('ip', ['netns', 'del', ns])
  const bridge = (await exec('ip', ['link', 'show', BRIDGE])).code === 0
  if (bridge) await exec('ip', ['link', 'del', BRIDGE])
  const rules = await removeForwardRule()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  return { processes: pids.size, mounts, namespaces, bridge, rules, dirs }
}

async function ourNamespaces(): Promise<string[]> {
  return (await exec('ip', ['netns', 'list'])).stdout
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n.startsWith('pbmh-'))
}

/** What is still there of this module's hosts (the teardown test asserts it is nothing). */
export async function netnsLeftovers(root = tmpdir()): Promise<string[]> {
  const out: string[] = []
  const namespaces = await ourNamespaces()
  out.push(...namespaces.map((n) => `netns ${n}`))
  const links = (await exec('ip', ['-o', 'link', 'show'])).stdout
    .split('\n')
    .map((l) => l.split(':')[1]?.trim().split('@')[0] ?? '')
    .filter((n) => n.startsWith('pbmh'))
  out.push(...links.map((l) => `link ${l}`))
  out.push(...pidsUnder(join(root, DIR_PREFIX)).map((p) => `process ${p}`))
  out.push(
    ...readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .filter((l) => l.includes(join(root, DIR_PREFIX)))
      .map((l) => `mount ${l.split(' ')[1]}`),
  )
  if ((await exec('iptables', ['-S', 'FORWARD'])).stdout.includes(RULE_COMMENT)) out.push('FORWARD rule')
  out.push(
    ...readdirSync(root)
      .filter((d) => d.startsWith(DIR_PREFIX))
      .map((d) => `dir ${join(root, d)}`),
  )
  return out
}

/** A CA, the TCP host's server certificate (its address as SAN) and a client certificate. */
async function makeTls(h: HostPlan): Promise<{ ca: string; cert: string; key: string; client: string }> {
  const d = join(h.dir, 'tls')
  const client = join(h.dir, 'client')
  mkdirSync(d, { recursive: true, mode: 0o700 })
  mkdirSync(client, { recursive: true, mode: 0o700 })
  const ossl = (...args: string[]) => must('openssl', args, `openssl ${args[0]}`)
  const ec = ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256']
  await ossl('genpkey', ...ec, '-out', join(d, 'ca-key.pem'))
  await ossl('req', '-x509', '-new', '-key', join(d, 'ca-key.pem'), '-out', join(d, 'ca.pem'), '-days', '2', '-subj', '/CN=pb netns engines CA')
  const sign = async (name: string, subj: string, ext: string) => {
    writeFileSync(join(d, `${name}.ext`), ext)
    await ossl('genpkey', ...ec, '-out', join(d, `${name}-key.pem`))
    await ossl('req', '-new', '-key', join(d, `${name}-key.pem`), '-subj', subj, '-out', join(d, `${name}.csr`))
    await ossl(
      'x509',
      '-req',
      '-in',
      join(d, `${name}.csr`),
      '-CA',
      join(d, 'ca.pem'),
      '-CAkey',
      join(d, 'ca-key.pem'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      join(d, `${name}.ext`),
      '-out',
      join(d, `${name}-cert.pem`),
    )
  }
  await sign('server', `/CN=${h.address}`, `subjectAltName=IP:${h.address}\nextendedKeyUsage=serverAuth\n`)
  await sign('client', '/CN=pb netns engines client', 'extendedKeyUsage=clientAuth\n')
  for (const [from, to] of [
    ['ca.pem', 'ca.pem'],
    ['client-cert.pem', 'cert.pem'],
    ['client-key.pem', 'key.pem'],
  ] as const)
    writeFileSync(join(client, to), readFileSync(join(d, from)), { mode: 0o600 })
  return { ca: join(d, 'ca.pem'), cert: join(d, 'server-cert.pem'), key: join(d, 'server-key.pem'), client }
}

/** Starts `cmd` detached inside namespace `ns` (network only: the mount namespace and cgroups stay the machine's). */
function spawnIn(ns: string, cmd: string, args: string[], logFile: string): number {
  const out = openSync(logFile, 'a')
  const child = spawn('nsenter', [`--net=/var/run/netns/${ns}`, cmd, ...args], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, PATH: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${process.env.PATH ?? ''}` },
  })
  closeSync(out)
  child.unref()
  return child.pid!
}

async function waitFor(what: string, ok: () => Promise<boolean>, pid: number, logFile: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await ok()) return
    if (!alive(pid)) break
    await sleep(250)
  }
  const log = existsSync(logFile)
    ? (readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => /level=(error|fatal)|failed|error/i.test(l))
        .at(-1) ?? '')
    : ''
  throw new Error(`${what} ${alive(pid) ? `did not answer within ${timeoutMs / 1000} s` : 'exited'}${log ? `: ${log.slice(0, 300)}` : ''} (log: ${logFile})`)
}

async function pingable(docker: Docker): Promise<boolean> {
  try {
    await docker.ping()
    return true
  } catch {
    return false
  }
}

/**
 * Sweeps what an earlier run left, then builds the three hosts. On any failure everything
 * built so far is torn down before the error is thrown.
 */
export async function startNetnsEngines(): Promise<NetnsEngines & { swept: Swept }> {
  const swept = await sweepNetnsEngines()
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX))
  const hosts = Object.fromEntries(TRANSPORTS.map((t) => [t, hostPlan(dir, t)])) as Record<Transport, HostPlan>
  const ssh = hosts.ssh
  const identity = join(ssh.dir, 'ssh', 'id_ed25519')
  const clientCerts = join(hosts.tcp.dir, 'client')
  const teardown = async (): Promise<string[]> => {
    const forced: string[] = []
    // Containers first, through each engine, so they stop cleanly; the engines' own stop follows.
    for (const t of TRANSPORTS) {
      if (!existsSync(hosts[t].socket)) continue
      try {
        const local = new Docker({ socketPath: hosts[t].socket })
        for (const c of await local.listContainers({ all: true })) {
          await local.getContainer(c.Id).remove({ force: true, v: true })
          forced.push(`container ${c.Names[0] ?? c.Id} on ${t}`)
        }
      } catch {}
    }
    const daemons = TRANSPORTS.flatMap((t) => [join(hosts[t].dir, 'dockerd.pid'), join(hosts[t].dir, 'ssh', 'sshd.pid')])
      .filter(existsSync)
      .map((f) => Number(readFileSync(f, 'utf8').trim()))
      .filter((p) => p > 0)
    const killed = await stopPids(daemons, 20_000)
    if (killed.length) forced.push(`${killed.length} daemons did not stop on SIGTERM`)
    // dockerd leaves its host sandbox's bind mount of the namespace (exec/netns/default)
    // behind on a clean stop; it would keep the namespace, and its veth, alive.
    for (const t of TRANSPORTS) await unmountUnder(join(hosts[t].dir, 'exec', 'netns') + '/')
    // What the daemons' own stop left (shims, mounts) is forced by the sweep, which also
    // removes the network and the files.
    const rest = await sweepNetnsEngines()
    if (rest.processes) forced.push(`${rest.processes} processes outlived the daemons`)
    if (rest.mounts.length) forced.push(`mounts outlived the daemons: ${rest.mounts.map((m) => m.slice(dir.length + 1)).join(', ')}`)
    return forced
  }
  try {
    // The network: one bridge in the root namespace, a veth pair per host.
    await must('ip', ['link', 'add', BRIDGE, 'type', 'bridge'])
    await must('ip', ['addr', 'add', `${ROOT_ADDRESS}/24`, 'dev', BRIDGE])
    await must('ip', ['link', 'set', BRIDGE, 'up'])
    for (const h of Object.values(hosts)) {
      mkdirSync(h.dir, { recursive: true, mode: 0o700 })
      await must('ip', ['netns', 'add', h.netns])
      await must('ip', ['link', 'add', h.netns, 'type', 'veth', 'peer', 'name', `${h.netns}-c`])
      await must('ip', ['link', 'set', `${h.netns}-c`, 'netns', h.netns])
      await must('ip', ['link', 'set', h.netns, 'master', BRIDGE, 'up'])
      await must('ip', ['-n', h.netns, 'link', 'set', `${h.netns}-c`, 'name', 'eth0'])
      await must('ip', ['-n', h.netns, 'addr', 'add', `${h.address}/24`, 'dev', 'eth0'])
      await must('ip', ['-n', h.netns, 'link', 'set', 'eth0', 'up'])
      await must('ip', ['-n', h.netns, 'link', 'set', 'lo', 'up'])
    }
    // Docker's FORWARD policy is DROP and bridged frames pass it (br_netfilter): accept
    // host-to-host traffic on this bridge only.
    await must('iptables', ['-I', 'FORWARD', '1', '-i', BRIDGE, '-o', BRIDGE, '-m', 'comment', '--comment', RULE_COMMENT, '-j', 'ACCEPT'])

    const tls = await makeTls(hosts.tcp)
    // The SSH host's keys: the client key the test logs in with, sshd's host key.
    const sshDir = join(ssh.dir, 'ssh')
    mkdirSync(sshDir, { recursive: true, mode: 0o700 })
    await must('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'pb-netns-engines', '-f', identity])
    await must('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'host_ed25519')])
    writeFileSync(join(sshDir, 'authorized_keys'), readFileSync(identity + '.pub'), { mode: 0o600 })
    const [type, key] = readFileSync(join(sshDir, 'host_ed25519.pub'), 'utf8').trim().split(/\s+/)
    writeFileSync(knownHostsFile(ssh), `${ssh.address} ${type} ${key}\n`, { mode: 0o600 })
    writeFileSync(join(sshDir, 'sshd_config'), sshdConfig(ssh))
    chmodSync(identity, 0o600)

    const started: Array<{ t: Transport; pid: number; log: string }> = []
    for (const h of Object.values(hosts)) {
      writeFileSync(join(h.dir, 'daemon.json'), '{}\n')
      const log = join(h.dir, 'dockerd.log')
      started.push({ t: h.transport, pid: spawnIn(h.netns, binary('dockerd')!, dockerdArgs(h, tls), log), log })
    }
    for (const s of started) await waitFor(`dockerd of the ${s.t} host`, () => pingable(new Docker({ socketPath: hosts[s.t].socket })), s.pid, s.log)
    // sshd wants its privilege separation directory (the package makes it at boot only).
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
    const sshdLog = join(sshDir, 'sshd.log')
    const sshd = spawnIn(ssh.netns, binary('sshd')!, ['-D', '-e', '-f', join(sshDir, 'sshd_config')], sshdLog)
    await waitFor('sshd of the ssh host', async () => existsSync(join(sshDir, 'sshd.pid')), sshd, sshdLog, 20_000)
    return { dir, hosts, identity, clientCerts, hostsFlag: () => hostsFlag(dir), teardown, swept }
  } catch (e) {
    await teardown().catch(() => {})
    throw e
  }
}
