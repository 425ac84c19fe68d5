import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseHosts, parseInlineHosts } from '../../lib/cli/hosts-options.ts'
import { parseRunOptions } from '../../lib/cli/run-options.ts'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { cliEnv, describeTopology, engineOptions, topologyHosts } from '../../lib/runtime/docker/topology.ts'

const dir = mkdtempSync(join(tmpdir(), 'pb-hosts-'))
const certs = join(dir, 'h3')
mkdirSync(certs)
for (const f of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(certs, f), `${f}\n`)
const key = join(dir, 'id_ed25519')
writeFileSync(key, 'KEY\n')
const noEnv = { HOME: dir }

const rejects = (value: string, message: RegExp) =>
  assert.throws(
    () => parseInlineHosts(value, noEnv),
    (e: Error) => e instanceof UserError && message.test(e.message) && !e.message.includes('\n'),
    value,
  )

test('--hosts inline: each role on its engine, options in the query, defaults per scheme', () => {
  const t = parseInlineHosts(
    `proxy=ssh://bench@h1?identity=${key}&cpuset=0-3 backend=ssh://bench@h2:2222 generator=tcp://h3:2376?certs=${certs}&address=10.0.0.3`,
    noEnv,
  )
  assert.equal(t.roles.proxy.host.protocol, 'ssh')
  assert.equal(t.roles.proxy.host.user, 'bench')
  assert.equal(t.roles.proxy.host.host, 'h1')
  assert.equal(t.roles.proxy.host.address, 'h1')
  assert.equal(t.roles.proxy.host.identity, key)
  assert.equal(t.roles.proxy.cpuset, '0-3')
  assert.equal(t.roles.backend.host.port, 2222)
  assert.equal(t.roles.backend.cpuset, undefined)
  assert.equal(t.roles.generator.host.certDir, certs)
  assert.equal(t.roles.generator.host.address, '10.0.0.3')
  assert.ok(
    topologyHosts(t).every((h) => h.copyFiles),
    'remote engines share no file system',
  )
  assert.equal(topologyHosts(t).length, 3)
  assert.deepEqual(
    engineOptions(t.roles.generator.host, (p) => Buffer.from(p)),
    {
      protocol: 'https',
      host: 'h3',
      port: 2376,
      ca: Buffer.from(join(certs, 'ca.pem')),
      cert: Buffer.from(join(certs, 'cert.pem')),
      key: Buffer.from(join(certs, 'key.pem')),
    },
  )
  const ssh = engineOptions(t.roles.proxy.host, () => Buffer.from('KEY')) as {
    protocol: string
    username: string
    port: number
    sshOptions: { privateKey: Buffer }
  }
  assert.deepEqual([ssh.protocol, ssh.username, ssh.port, String(ssh.sshOptions.privateKey)], ['ssh', 'bench', 22, 'KEY'])
  assert.deepEqual(cliEnv(t.roles.generator.host), { DOCKER_HOST: 'tcp://h3:2376', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs })
  assert.match(describeTopology(t)[0]!, /^proxy on ssh:\/\/h1 \(reached at h1, files through the API\), cpuset 0-3$/)
})

test('--hosts: roles naming one engine share its host; a unix socket is reached on loopback and bind-mounts unless copy=1', () => {
  const t = parseInlineHosts('proxy=unix:///var/run/docker.sock backend=unix:///var/run/docker.sock?cpuset=0 generator=unix:///run/other.sock?copy=1', noEnv)
  assert.equal(t.roles.proxy.host, t.roles.backend.host)
  assert.equal(topologyHosts(t).length, 2)
  assert.equal(t.roles.proxy.host.address, '127.0.0.1')
  assert.equal(t.roles.proxy.host.copyFiles, false)
  assert.equal(t.roles.generator.host.copyFiles, true)
  assert.deepEqual(engineOptions(t.roles.generator.host), { socketPath: '/run/other.sock' })
})

test('--hosts bad input: one line naming the role and the fix', () => {
  rejects('proxy=ssh://h1 backend=ssh://h2', /^--hosts: names no engine for generator\. Give all three roles/)
  rejects('proxy=ssh://h1 proxy=ssh://h2', /proxy is given twice/)
  rejects('balancer=ssh://h1', /unknown role "balancer"\. Use the roles proxy, backend, generator/)
  rejects('proxy', /cannot read "proxy"/)
  rejects('proxy=http://h1 backend=ssh://h2 generator=ssh://h3', /proxy: unknown engine scheme "http:\/\/"\. Use ssh:\/\/user@host, tcp:\/\/host:2376 \(TLS\)/)
  rejects('proxy=not-a-url backend=ssh://h2 generator=ssh://h3', /proxy: "not-a-url" is not an engine URL/)
  rejects('proxy=ssh://h1 backend=tcp://h2:2376 generator=ssh://h3', /backend: tcp:\/\/h2:2376 needs TLS client certificates\. Add certs=DIR/)
  rejects(`proxy=ssh://h1 backend=tcp://h2:2376?certs=${dir}/nope generator=ssh://h3`, /backend: .*nope lacks ca\.pem, cert\.pem, key\.pem/)
  rejects('proxy=ssh://u:secret@h1 backend=ssh://h2 generator=ssh://h3', /carries a password\. Log in with a key/)
  rejects('proxy=ssh://h1?cpuset=0-x backend=ssh://h2 generator=ssh://h3', /proxy: cpuset "0-x" is not a CPU list/)
  rejects('proxy=ssh://h1?port=3 backend=ssh://h2 generator=ssh://h3', /proxy: unknown option "port"/)
  rejects('proxy=ssh://h1?copy=0 backend=ssh://h2 generator=ssh://h3', /a remote engine shares no file system/)
  rejects('proxy=ssh://h1?identity=/nope/key backend=ssh://h2 generator=ssh://h3', /identity \/nope\/key is not a file/)
  rejects(`proxy=ssh://h1?certs=${certs} backend=ssh://h2 generator=ssh://h3`, /certs is for tcp:\/\/ engines/)
  rejects('proxy=unix:// backend=ssh://h2 generator=ssh://h3', /names no socket/)
  rejects(
    'proxy=ssh://h1?address=10.0.0.1 backend=ssh://h1?address=10.0.0.9 generator=ssh://h3',
    /backend names ssh:\/\/h1 like another role but with another address/,
  )
  rejects('proxy=ssh://h1?address=a/b backend=ssh://h2 generator=ssh://h3', /address "a\/b" is not a host name/)
})

test('--hosts topology.yaml: paths relative to the file; a problem names file:line', () => {
  const file = join(dir, 'topology.yaml')
  writeFileSync(
    file,
    `proxy:\n  engine: ssh://bench@h1\n  identity: id_ed25519\n  cpuset: 2\nbackend:\n  engine: tcp://h2:2376\n  certs: h3\ngenerator:\n  engine: unix:///var/run/docker.sock\n  copy: true\n`,
  )
  const t = parseHosts(file, noEnv)!
  assert.equal(t.source, file)
  assert.equal(t.roles.proxy.host.identity, key)
  assert.equal(t.roles.proxy.cpuset, '2')
  assert.equal(t.roles.backend.host.certDir, certs)
  assert.equal(t.roles.generator.host.copyFiles, true)
  const bad = join(dir, 'bad.yaml')
  writeFileSync(bad, `proxy:\n  engine: ssh://h1\nbackend:\n  engine: ftp://h2\ngenerator:\n  engine: ssh://h3\n`)
  assert.throws(
    () => parseHosts(bad, noEnv),
    (e: Error) => e.message.startsWith(`${bad}:3: backend: unknown engine scheme "ftp://"`),
  )
  writeFileSync(bad, `proxy:\n  engine: ssh://h1\n  cpus: 3\nbackend:\n  engine: ssh://h2\ngenerator:\n  engine: ssh://h3\n`)
  assert.throws(
    () => parseHosts(bad, noEnv),
    (e: Error) => /bad\.yaml:2: proxy: Unrecognized key\(s\) in object: 'cpus'/.test(e.message),
  )
  assert.throws(() => parseHosts(join(dir, 'missing.yaml'), noEnv), /--hosts: .*missing\.yaml does not exist/)
  assert.equal(parseHosts(undefined), undefined)
})

test('--hosts with native, bridge or --cpus is refused before anything runs; without it the options are unchanged', () => {
  const parse = (f: Parameters<typeof parseRunOptions>[0]) => parseRunOptions(f, { install: false, log: memoryLogger() })
  const hosts = 'proxy=unix:///var/run/docker.sock backend=unix:///var/run/docker.sock generator=unix:///var/run/docker.sock'
  assert.throws(() => parse({ hosts, runtime: 'native' }), /--hosts: needs the docker runtime/)
  assert.throws(() => parse({ hosts, network: 'bridge' }), /--hosts: a bridge network does not span hosts/)
  assert.throws(() => parse({ hosts, cpus: 'proxy=1' }), /--cpus: with --hosts each role's cpuset is its host's/)
  assert.equal(parse({ hosts }).hosts?.roles.proxy.host.socketPath, '/var/run/docker.sock')
  assert.equal('hosts' in parse({}), false)
})

test('--hosts ssh host keys: ~/.ssh/known_hosts by default, known_hosts= or a pinned fingerprint= per host, --accept-new-host-keys', () => {
  const fp = 'SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8'
  const known = join(dir, 'known_hosts')
  writeFileSync(known, '')
  const t = parseInlineHosts(`proxy=ssh://h1 backend=ssh://h2?known_hosts=${known} generator=ssh://h3:2222?fingerprint=${fp.replace('+', '%2B')}`, noEnv)
  assert.deepEqual(t.roles.proxy.host.hostKeys, { knownHosts: [join(dir, '.ssh', 'known_hosts'), '/etc/ssh/ssh_known_hosts'], acceptNew: false })
  assert.deepEqual(t.roles.backend.host.hostKeys, { knownHosts: [known], acceptNew: false })
  assert.equal(t.roles.generator.host.hostKeys?.fingerprint, fp)
  // A query turns an unescaped + into a space: a fingerprint has none, so it is read back.
  const plus = 'SHA256:ab+cdefghijklmnopqrstuvwxyz0123456789ABCDEF'
  assert.equal(parseInlineHosts(`proxy=ssh://h1?fingerprint=${plus} backend=ssh://h2 generator=ssh://h3`, noEnv).roles.proxy.host.hostKeys?.fingerprint, plus)
  // accept-new: a known_hosts that does not exist yet is started there.
  const later = join(dir, 'later', 'known_hosts')
  const a = parseInlineHosts(`proxy=ssh://h1?known_hosts=${later} backend=ssh://h2 generator=ssh://h3`, noEnv, { acceptNewHostKeys: true })
  assert.deepEqual(a.roles.proxy.host.hostKeys, { knownHosts: [later], acceptNew: true })
  assert.equal(a.roles.backend.host.hostKeys?.acceptNew, true)
  // The ssh2 options carry the check: no connection without it.
  const o = engineOptions(t.roles.proxy.host, () => Buffer.from('KEY')) as { sshOptions: { hostVerifier: unknown; algorithms: { serverHostKey: string[] } } }
  assert.equal(typeof o.sshOptions.hostVerifier, 'function')
  assert.equal(o.sshOptions.algorithms.serverHostKey.length, 7)
  rejects(
    `proxy=ssh://h1?known_hosts=${later} backend=ssh://h2 generator=ssh://h3`,
    /proxy: known_hosts .*later\/known_hosts is not a file\. Give a known_hosts file \(ssh-keyscan HOST > FILE\), or add --accept-new-host-keys/,
  )
  rejects(
    'proxy=ssh://h1?fingerprint=MD5:aa:bb backend=ssh://h2 generator=ssh://h3',
    /proxy: fingerprint "MD5:aa:bb" is not a SHA256 fingerprint\. Give it as ssh-keygen -lf prints it/,
  )
  rejects(`proxy=ssh://h1?fingerprint=${fp}&known_hosts=${known} backend=ssh://h2 generator=ssh://h3`, /proxy: both fingerprint and known_hosts\. Give one/)
  rejects(`proxy=ssh://h1 backend=tcp://h2:2376?certs=${certs}&known_hosts=${known} generator=ssh://h3`, /backend: known_hosts is for ssh:\/\/ engines/)
  rejects(`proxy=unix:///var/run/docker.sock?fingerprint=${fp} backend=ssh://h2 generator=ssh://h3`, /proxy: fingerprint is for ssh:\/\/ engines/)
  rejects(`proxy=ssh://h1?fingerprint=${fp} backend=ssh://h1 generator=ssh://h3`, /backend names ssh:\/\/h1 like another role but with another hostKeys/)
  // topology.yaml: known_hosts relative to the file, a fingerprint as a plain scalar.
  const file = join(dir, 'keys.yaml')
  writeFileSync(
    file,
    `proxy:\n  engine: ssh://bench@h1\n  known_hosts: known_hosts\nbackend:\n  engine: ssh://h2\n  fingerprint: ${fp}\ngenerator:\n  engine: unix:///var/run/docker.sock\n`,
  )
  const y = parseHosts(file, noEnv)!
  assert.deepEqual(y.roles.proxy.host.hostKeys?.knownHosts, [known])
  assert.equal(y.roles.backend.host.hostKeys?.fingerprint, fp)
  assert.equal(y.roles.generator.host.hostKeys, undefined)
})

test('--accept-new-host-keys without --hosts is refused: it would mean nothing', () => {
  assert.throws(
    () => parseRunOptions({ 'accept-new-host-keys': true }, { install: false, log: memoryLogger() }),
    /^UserError: --accept-new-host-keys: only means something with --hosts/,
  )
})
