import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { calibrationSchema } from '../../lib/data/schema.ts'
import { formatCalibration, parseOpensslSpeed, parseRtt } from '../../lib/measure/calibration.ts'

// Captured on this machine kind: `taskset -c 1 openssl speed [-mr] -seconds 2 ecdsap256 rsa4096` (OpenSSL 3.0) and `loadgen rtt -d 1s`.
const fixture = (f: string) => readFileSync(join(repoRoot, 'test/fixtures/calibration', f), 'utf8')

test('openssl speed: µs per sign from the table output (306.0 RSA-4096 and 68277.0 ECDSA signs/s)', () => {
  const s = parseOpensslSpeed(fixture('openssl-speed.txt'))
  assert.equal(s.rsa4096_sign_us, 1e6 / 306.0)
  assert.equal(s.ecdsa_p256_sign_us, 1e6 / 68277.0)
})

test('openssl speed: µs per sign from -mr output (+F2 RSA, +F4 ECDSA)', () => {
  const s = parseOpensslSpeed(fixture('openssl-speed-mr.txt'))
  assert.equal(s.rsa4096_sign_us, 1e6 / 309.137056)
  assert.equal(s.ecdsa_p256_sign_us, 1e6 / 68039.086294)
  assert.deepEqual(parseOpensslSpeed('Error: unknown algorithm\n'), { ecdsa_p256_sign_us: null, rsa4096_sign_us: null })
  assert.deepEqual(parseOpensslSpeed('+F2:4:4096:0:0\n'), { ecdsa_p256_sign_us: null, rsa4096_sign_us: null })
})

test('loadgen rtt: CPU and wall µs per round trip; anything else is an error', () => {
  const r = parseRtt(fixture('loadgen-rtt.json'))
  assert.ok(r.cpu_us_per_rt > 1 && r.cpu_us_per_rt < 1000)
  assert.ok(r.round_trips > 1000)
  assert.throws(() => parseRtt('{"round_trips":0,"cpu_us_per_rt":0,"wall_us_per_rt":0}'), /unexpected output/)
  assert.throws(() => parseRtt('loadgen: boom'))
})

test('a calibration prints on one line and fits the manifest schema', () => {
  const c = calibrationSchema.parse({
    loopback_rtt_us: 24.4,
    loopback_rtt_wall_us: 26.2,
    ecdsa_p256_sign_us: 14.4,
    rsa4096_sign_us: 3130,
    measured_at: '2026-11-30T12:00:00Z',
    cpuset: '1',
  })
  assert.equal(
    formatCalibration(c),
    'calibration on cpuset 1: loopback round trip 24.40 µs CPU (26.20 µs wall), ECDSA P-256 sign 14.40 µs, RSA-4096 sign 3130 µs',
  )
  assert.throws(() => calibrationSchema.parse({ ...c, loopback_rtt_us: 0 }))
  // A manifest written with the retired two-part units (issue #42) still reads; they are read past.
  assert.deepEqual(calibrationSchema.parse({ ...c, syscall_us: 0.2034, compute_us: 2653.7 }), c)
})
