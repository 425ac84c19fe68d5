import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseInlineHosts } from '../../lib/cli/hosts-options.ts'
import { fingerprintFromFacts, hostCpusets, hostsChange, hostsShareCores } from '../../lib/run/hosts.ts'

const three = parseInlineHosts('proxy=ssh://h1 backend=ssh://h2 generator=ssh://h3?cpuset=2-3', {})
const shared = parseInlineHosts('proxy=ssh://h1 backend=ssh://h2 generator=ssh://h2', {})

test('cpusets from each host\'s own cores: all of them for a role alone, the one-machine layout where roles share a host', () => {
  assert.deepEqual(hostCpusets(three, (h) => (h.host === 'h1' ? 8 : 4)), { proxy: '0-7', backend: '0-3', generator: '2-3' })
  assert.deepEqual(hostCpusets(shared, (h) => (h.host === 'h1' ? 1 : 2)), { proxy: '0', backend: '0', generator: '0' })
  assert.deepEqual(hostCpusets(shared, () => 8), { proxy: '0-7', backend: '0-1', generator: '4-7' })
  assert.throws(() => hostCpusets(three, () => 2), /--hosts generator: cpuset 2-3 names CPU 3 but ssh:\/\/h3 has 2\. Use CPUs 0-1 of that host$/)
})

test('roles share cores only where two of them on one host have overlapping cpusets', () => {
  assert.equal(hostsShareCores(three, { proxy: '0-7', backend: '0-3', generator: '0-3' }), false)
  assert.equal(hostsShareCores(shared, { proxy: '0', backend: '0', generator: '0' }), true)
  assert.equal(hostsShareCores(shared, { proxy: '0', backend: '0-1', generator: '2-3' }), false)
  assert.equal(hostsShareCores(shared, { proxy: '0', backend: '0-2', generator: '2-3' }), true)
})

test('a host\'s fingerprint from what a container there printed; unreadable facts are unknown', () => {
  const M = '@@proxybench@@\n'
  const text = `processor\t: 0\nmodel name\t: AMD EPYC 9654\ncpu family\t: 25\nmodel\t\t: 17\nstepping\t: 1\nmicrocode\t: 0xa101148\nflags\t\t: fpu hypervisor\n\n${M}Linux version 6.1.0-40-amd64\n${M}kvm-clock\n${M}/sys/devices/system/cpu/vulnerabilities/spectre_v2:Mitigation: Retpolines\n/sys/devices/system/cpu/vulnerabilities/meltdown:Not affected\ncat: x: No such file or directory\n${M}`
  assert.deepEqual(fingerprintFromFacts(text, '6.1.0-40-amd64'), {
    cpu_model: 'AMD EPYC 9654', cpu_family: '25', cpu_model_number: '17', stepping: '1', microcode: '0xa101148', kernel_release: '6.1.0-40-amd64',
    kernel_version: 'Linux version 6.1.0-40-amd64', vulnerabilities: { meltdown: 'Not affected', spectre_v2: 'Mitigation: Retpolines' }, clocksource: 'kvm-clock', virtualization: 'hypervisor (cpuinfo flag)',
  })
  assert.equal(fingerprintFromFacts(`${M}${M}${M}${M}`, '')!.clocksource, 'unknown')
  assert.equal(fingerprintFromFacts('sh: not found', '6.1'), null)
})

test('a resume on other hosts than the run\'s is a change (refused without --allow-changes)', () => {
  const rec = { source: '--hosts', roles: (['proxy', 'backend', 'generator'] as const).map((role) => ({ role, engine: three.roles[role].host.url, address: 'x', cpuset: '0', files: 'through the API' as const })), hosts: [], network: null }
  assert.equal(hostsChange({ hosts: rec }, three), null)
  assert.equal(hostsChange({}, undefined), null)
  assert.equal(hostsChange({}, three), '--hosts one machine → proxy=ssh://h1 backend=ssh://h2 generator=ssh://h3')
  assert.equal(hostsChange({ hosts: rec }, shared), '--hosts proxy=ssh://h1 backend=ssh://h2 generator=ssh://h3 → proxy=ssh://h1 backend=ssh://h2 generator=ssh://h2')
})
