import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fingerprintDiff } from '../../lib/analysis/fingerprint.ts'
import type { Fingerprint } from '../../lib/data/schema.ts'

const A: Fingerprint = {
  cpu_model: 'AMD EPYC',
  cpu_family: '26',
  cpu_model_number: '2',
  stepping: '1',
  microcode: '0x1000065',
  kernel_release: '6.1.0-18',
  kernel_version: 'Linux version 6.1.0-18 (builder@x) (gcc 12) #1 SMP',
  vulnerabilities: { spectre_v2: 'Mitigation: Retpolines', meltdown: 'Not affected' },
  clocksource: 'tsc',
  virtualization: 'kvm',
}

test('fingerprintDiff: nothing for the same machine; each difference in words', () => {
  assert.deepEqual(fingerprintDiff(A, structuredClone(A)), [])
  const B: Fingerprint = {
    ...A,
    kernel_release: '6.1.0-25',
    kernel_version: 'Linux version 6.1.0-25 (builder@x) (gcc 12) #1 SMP',
    vulnerabilities: { spectre_v2: 'Mitigation: IBRS', meltdown: 'Not affected' },
  }
  // The release inside /proc/version is not a second difference.
  assert.deepEqual(fingerprintDiff(A, B), ['kernel 6.1.0-18 → 6.1.0-25', "vulnerabilities/spectre_v2: 'Mitigation: Retpolines' → 'Mitigation: IBRS'"])
  assert.equal(fingerprintDiff(A, B).join('; '), "kernel 6.1.0-18 → 6.1.0-25; vulnerabilities/spectre_v2: 'Mitigation: Retpolines' → 'Mitigation: IBRS'")
})

test('fingerprintDiff: microcode, clock source, another compiler, a vulnerability file only one kernel has', () => {
  const B: Fingerprint = {
    ...A,
    microcode: '0x1000070',
    clocksource: 'kvm-clock',
    kernel_version: 'Linux version 6.1.0-18 (builder@x) (gcc 13) #1 SMP',
    vulnerabilities: { ...A.vulnerabilities, tsa: 'Not affected' },
  }
  assert.deepEqual(fingerprintDiff(A, B), [
    'microcode 0x1000065 → 0x1000070',
    'clock source tsc → kvm-clock',
    "/proc/version 'Linux version 6.1.0-18 (builder@x) (gcc 12) #1 SMP' → 'Linux version 6.1.0-18 (builder@x) (gcc 13) #1 SMP'",
    "vulnerabilities/tsa: (absent) → 'Not affected'",
  ])
})

test('fingerprintDiff: the IRQ time accounting where both runs recorded it (a manifest written before has none: no difference)', () => {
  assert.deepEqual(fingerprintDiff({ ...A, irq_time_accounting: 'charged' }, { ...A, irq_time_accounting: 'separate' }), [
    'IRQ time accounting charged → separate',
  ])
  assert.deepEqual(fingerprintDiff(A, { ...A, irq_time_accounting: 'charged' }), [])
  assert.deepEqual(fingerprintDiff({ ...A, irq_time_accounting: 'charged' }, { ...A, irq_time_accounting: 'charged' }), [])
})
