import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as tls from 'node:tls'
import { test } from 'node:test'
import { parseInlineHosts } from '../../lib/cli/hosts-options.ts'
import { MultiHostRuntime } from '../../lib/runtime/docker/multi-host.ts'
import { connectHosts, fingerprintFromFacts, hostCpusets, hostsChange, hostsShareCores } from '../../lib/run/hosts.ts'

const three = parseInlineHosts('proxy=ssh://h1 backend=ssh://h2 generator=ssh://h3?cpuset=2-3', {})
const shared = parseInlineHosts('proxy=ssh://h1 backend=ssh://h2 generator=ssh://h2', {})

test("cpusets from each host's own cores: all of them for a role alone, the one-machine layout where roles share a host", () => {
  assert.deepEqual(
    hostCpusets(three, (h) => (h.host === 'h1' ? 8 : 4)),
    { proxy: '0-7', backend: '0-3', generator: '2-3' },
  )
  assert.deepEqual(
    hostCpusets(shared, (h) => (h.host === 'h1' ? 1 : 2)),
    { proxy: '0', backend: '0', generator: '0' },
  )
  assert.deepEqual(
    hostCpusets(shared, () => 8),
    { proxy: '0-7', backend: '0-1', generator: '4-7' },
  )
  assert.throws(() => hostCpusets(three, () => 2), /--hosts generator: cpuset 2-3 names CPU 3 but ssh:\/\/h3 has 2\. Use CPUs 0-1 of that host$/)
})

test('roles share cores only where two of them on one host have overlapping cpusets', () => {
  assert.equal(hostsShareCores(three, { proxy: '0-7', backend: '0-3', generator: '0-3' }), false)
  assert.equal(hostsShareCores(shared, { proxy: '0', backend: '0', generator: '0' }), true)
  assert.equal(hostsShareCores(shared, { proxy: '0', backend: '0-1', generator: '2-3' }), false)
  assert.equal(hostsShareCores(shared, { proxy: '0', backend: '0-2', generator: '2-3' }), true)
})

test("a host's fingerprint from what a container there printed; unreadable facts are unknown", () => {
  const M = '@@proxybench@@\n'
  const text = `processor\t: 0\nmodel name\t: AMD EPYC 9654\ncpu family\t: 25\nmodel\t\t: 17\nstepping\t: 1\nmicrocode\t: 0xa101148\nflags\t\t: fpu hypervisor\n\n${M}Linux version 6.1.0-40-amd64\n${M}kvm-clock\n${M}/sys/devices/system/cpu/vulnerabilities/spectre_v2:Mitigation: Retpolines\n/sys/devices/system/cpu/vulnerabilities/meltdown:Not affected\ncat: x: No such file or directory\n${M}`
  assert.deepEqual(fingerprintFromFacts(text, '6.1.0-40-amd64'), {
    cpu_model: 'AMD EPYC 9654',
    cpu_family: '25',
    cpu_model_number: '17',
    stepping: '1',
    microcode: '0xa101148',
    kernel_release: '6.1.0-40-amd64',
    kernel_version: 'Linux version 6.1.0-40-amd64',
    vulnerabilities: { meltdown: 'Not affected', spectre_v2: 'Mitigation: Retpolines' },
    clocksource: 'kvm-clock',
    virtualization: 'hypervisor (cpuinfo flag)',
  })
  assert.equal(fingerprintFromFacts(`${M}${M}${M}${M}`, '')!.clocksource, 'unknown')
  assert.equal(fingerprintFromFacts('sh: not found', '6.1'), null)
})

test("a resume on other hosts than the run's is a change (refused without --allow-changes)", () => {
  const rec = {
    source: '--hosts',
    roles: (['proxy', 'backend', 'generator'] as const).map((role) => ({
      role,
      engine: three.roles[role].host.url,
      address: 'x',
      cpuset: '0',
      files: 'through the API' as const,
    })),
    hosts: [],
    network: null,
  }
  assert.equal(hostsChange({ hosts: rec }, three), null)
  assert.equal(hostsChange({}, undefined), null)
  assert.equal(hostsChange({}, three), '--hosts one machine → proxy=ssh://h1 backend=ssh://h2 generator=ssh://h3')
  assert.equal(
    hostsChange({ hosts: rec }, shared),
    '--hosts proxy=ssh://h1 backend=ssh://h2 generator=ssh://h3 → proxy=ssh://h1 backend=ssh://h2 generator=ssh://h2',
  )
})

// A real TLS handshake on loopback (node:tls with openssl-made certificates) where a tcp://
// engine would be: the failures connectHosts turns into one line each.
test('tcp:// engines: a server certificate for other names, one the CA did not sign, and a port without TLS are each refused in one line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-tls-unit-'))
  const ossl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' })
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
  const ca = (name: string) =>
    ossl('req', '-x509', ...ec, '-keyout', join(dir, `${name}-key.pem`), '-out', join(dir, `${name}.pem`), '-days', '1', '-subj', `/CN=${name}`)
  const leaf = (name: string, by: string, ext: string) => {
    writeFileSync(join(dir, `${name}.ext`), ext)
    ossl('req', ...ec, '-keyout', join(dir, `${name}-key.pem`), '-out', join(dir, `${name}.csr`), '-subj', `/CN=${name}`)
    ossl(
      'x509',
      '-req',
      '-in',
      join(dir, `${name}.csr`),
      '-CA',
      join(dir, `${by}.pem`),
      '-CAkey',
      join(dir, `${by}-key.pem`),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      join(dir, `${name}.ext`),
      '-out',
      join(dir, `${name}-cert.pem`),
    )
  }
  ca('ca')
  ca('other-ca')
  leaf('elsewhere', 'ca', 'subjectAltName=DNS:elsewhere.example\nextendedKeyUsage=serverAuth\n')
  leaf('client', 'ca', 'extendedKeyUsage=clientAuth\n')
  const certsWith = (name: string, caFile: string) => {
    const d = join(dir, name)
    mkdirSync(d)
    cpSync(join(dir, caFile), join(d, 'ca.pem'))
    cpSync(join(dir, 'client-cert.pem'), join(d, 'cert.pem'))
    cpSync(join(dir, 'client-key.pem'), join(d, 'key.pem'))
    return d
  }
  const server = tls.createServer({ key: readFileSync(join(dir, 'elsewhere-key.pem')), cert: readFileSync(join(dir, 'elsewhere-cert.pem')) }, (s) => s.end())
  const plain = net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'))
  await Promise.all([server, plain].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))))
  const portOf = (s: { address(): unknown }) => (s.address() as { port: number }).port
  const line = async (port: number, certs: string) => {
    const t = parseInlineHosts(
      `proxy=tcp://127.0.0.1:${port}?certs=${certs} backend=tcp://127.0.0.1:${port}?certs=${certs} generator=tcp://127.0.0.1:${port}?certs=${certs}`,
      {},
    )
    const rt = new MultiHostRuntime('tls-unit', t, { images: [] })
    try {
      await connectHosts(rt, 10_000)
      return 'answered'
    } catch (e) {
      return (e as Error).message
    } finally {
      await rt.stopAll()
    }
  }
  try {
    const ours = certsWith('ours', 'ca.pem')
    assert.match(
      await line(portOf(server), ours),
      /^--hosts proxy and backend and generator: the TLS engine at tcp:\/\/127\.0\.0\.1:\d+ presents a server certificate for other names \(.*\)\. Nothing was sent\. Reach the engine at a name or address in its certificate's subjectAltName/,
    )
    assert.match(
      await line(portOf(server), certsWith('theirs', 'other-ca.pem')),
      /presents a server certificate that .*theirs\/ca\.pem did not sign \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)\)\. Nothing was sent/,
    )
    assert.match(
      await line(portOf(plain), ours),
      /^--hosts proxy and backend and generator: tcp:\/\/127\.0\.0\.1:\d+ does not answer with TLS \(.*\)\. A tcp:\/\/ engine must listen with --tlsverify/,
    )
  } finally {
    server.close()
    plain.close()
  }
})
