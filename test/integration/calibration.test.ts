import assert from 'node:assert/strict'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { calibrationSchema, fingerprintSchema } from '../../lib/data/schema.ts'
import { formatCalibration, measureCalibration } from '../../lib/measure/calibration.ts'
import { defaultCpuLayout } from '../../lib/roles/cpus.ts'
import { machineFingerprint } from '../../lib/setup/fingerprint.ts'
import { ensureGoBuild } from '../../lib/setup/gobuild.ts'

// The real calibration on this machine, shortened: loadgen rtt under taskset and openssl speed.
// Only plausibility bounds (orders of magnitude), never timing thresholds that could flake.
test('calibration on the proxy cpuset: loopback round trip and signs are positive and plausible', async () => {
  const build = await ensureGoBuild('loadgen')
  assert.equal(build.error, undefined)
  const log = memoryLogger()
  const cpuset = defaultCpuLayout().proxy
  const c = await measureCalibration({ cpuset, log, rttSeconds: 1, cryptoSeconds: 1 })
  assert.ok(c, log.lines.join('\n'))
  calibrationSchema.parse(c)
  assert.equal(c.cpuset, cpuset)
  // A loopback round trip between two processes: a few µs to a few hundred, never a second.
  assert.ok(c.loopback_rtt_us > 0.5 && c.loopback_rtt_us < 5000, `loopback ${c.loopback_rtt_us}`)
  assert.ok(c.loopback_rtt_wall_us! > 0.5)
  assert.ok(c.ecdsa_p256_sign_us! > 1 && c.ecdsa_p256_sign_us! < 10_000, `ecdsa ${c.ecdsa_p256_sign_us}`)
  assert.ok(c.rsa4096_sign_us! > 100 && c.rsa4096_sign_us! < 1_000_000, `rsa ${c.rsa4096_sign_us}`)
  // RSA-4096 signs cost far more than ECDSA P-256 on any CPU.
  assert.ok(c.rsa4096_sign_us! > 20 * c.ecdsa_p256_sign_us!)
  assert.ok(
    log.lines.some((l) => l.startsWith('calibration: loopback TCP ping-pong on cpuset')),
    'progress line',
  )
  assert.match(formatCalibration(c), /^calibration on cpuset /)
})

test('fingerprint of this machine fits the manifest', async () => {
  const fp = fingerprintSchema.parse(await machineFingerprint())
  assert.ok(fp.kernel_release.length > 0)
})
