import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fingerprintSchema } from '../../lib/data/schema.ts'
import { LINUX_SOURCES, machineFingerprint, parseCpuinfo, readVulnerabilities, virtualization } from '../../lib/setup/fingerprint.ts'
import { testNeeding } from '../support/needs.ts'

const CPUINFO = `processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 85
model name\t: Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz
stepping\t: 7
microcode\t: 0x5003604
flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm

processor\t: 1
model name\t: something else
stepping\t: 9
`

test("cpuinfo: the first processor's model, family/model/stepping, microcode and the hypervisor flag", () => {
  assert.deepEqual(parseCpuinfo(CPUINFO), {
    cpu_model: 'Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz',
    cpu_family: '6',
    cpu_model_number: '85',
    stepping: '7',
    microcode: '0x5003604',
    hypervisor: true,
  })
  assert.deepEqual(parseCpuinfo(''), {
    cpu_model: 'unknown',
    cpu_family: 'unknown',
    cpu_model_number: 'unknown',
    stepping: 'unknown',
    microcode: 'unknown',
    hypervisor: false,
  })
})

test('virtualisation: systemd-detect-virt when installed, else the hypervisor flag and DMI product', () => {
  const cpu = parseCpuinfo(CPUINFO)
  assert.equal(virtualization({ code: 0, stdout: 'kvm\n' }, cpu, null), 'kvm')
  assert.equal(virtualization({ code: 1, stdout: 'none\n' }, cpu, null), 'none')
  assert.equal(virtualization({ code: 127, stdout: '' }, cpu, 'KVM\n'), 'hypervisor (cpuinfo flag, KVM)')
  assert.equal(virtualization(null, { ...cpu, hypervisor: false }, 'PowerEdge R640'), 'none detected (PowerEdge R640)')
  assert.equal(virtualization(null, { ...cpu, hypervisor: false }, null), 'none detected')
})

test('fingerprint from fixed sources: every vulnerabilities line by name, clock source, /proc/version', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-fp-'))
  mkdirSync(join(dir, 'vuln'))
  writeFileSync(join(dir, 'vuln', 'spectre_v2'), 'Mitigation: Retpolines; STIBP: disabled\n')
  writeFileSync(join(dir, 'vuln', 'meltdown'), 'Not affected\n')
  writeFileSync(join(dir, 'cpuinfo'), CPUINFO)
  writeFileSync(join(dir, 'version'), 'Linux version 6.1.0-25-amd64 (debian-kernel@lists.debian.org) #1 SMP\n')
  writeFileSync(join(dir, 'clock'), 'kvm-clock\n')
  const fp = await machineFingerprint({
    cpuinfo: join(dir, 'cpuinfo'),
    procVersion: join(dir, 'version'),
    vulnerabilitiesDir: join(dir, 'vuln'),
    clocksourceFile: join(dir, 'clock'),
    dmiProductFile: join(dir, 'absent'),
  })
  assert.deepEqual(fp.vulnerabilities, { meltdown: 'Not affected', spectre_v2: 'Mitigation: Retpolines; STIBP: disabled' })
  assert.equal(fp.clocksource, 'kvm-clock')
  assert.equal(fp.kernel_version, 'Linux version 6.1.0-25-amd64 (debian-kernel@lists.debian.org) #1 SMP')
  assert.equal(fp.cpu_model_number, '85')
  fingerprintSchema.parse(fp)
  assert.deepEqual(readVulnerabilities(join(dir, 'nowhere')), {})
})

testNeeding(
  'fingerprint of this machine: real /proc and /sys',
  { id: 'setup/fingerprint', missing: !existsSync('/proc/cpuinfo') && 'not Linux (no /proc/cpuinfo)' },
  async () => {
    const fp = fingerprintSchema.parse(await machineFingerprint())
    assert.notEqual(fp.cpu_model, 'unknown')
    assert.match(fp.cpu_family, /^\d+$/)
    assert.match(fp.kernel_release, /^\d+\.\d+/)
    assert.ok(fp.kernel_version.startsWith('Linux version '))
    if (existsSync(LINUX_SOURCES.vulnerabilitiesDir)) {
      assert.ok(Object.keys(fp.vulnerabilities).includes('spectre_v2'))
      for (const v of Object.values(fp.vulnerabilities)) assert.ok(v.length > 0 && !v.includes('\n'))
    }
    if (existsSync(LINUX_SOURCES.clocksourceFile)) assert.match(fp.clocksource, /^[\w-]+$/)
    assert.ok(fp.virtualization.length > 0)
    assert.match(fp.irq_time_accounting ?? '', /^(separate|charged|unknown)$/)
  },
)
