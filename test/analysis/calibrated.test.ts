import assert from 'node:assert/strict'
import { test } from 'node:test'
import { agreementTable, calibratedCells, referenceAgreement, runReferences, type References } from '../../lib/analysis/calibrated.ts'
import { compareAcrossRuns, compareRuns } from '../../lib/analysis/compare.ts'
import { familyOf } from '../../lib/analysis/run-figures.ts'
import { loadRun } from '../../lib/data/run-data.ts'
import type { Calibration, Manifest } from '../../lib/data/schema.ts'
import { cpuRepeats, handshake, measurement } from '../fixtures/rows.ts'
import { OLD_FORMAT_RUN } from '../fixtures/run.ts'

const CAL: Calibration = {
  loopback_rtt_us: 25,
  loopback_rtt_wall_us: 26,
  ecdsa_p256_sign_us: 15,
  rsa4096_sign_us: 3000,
  measured_at: '2026-11-30T12:00:00Z',
  cpuset: '1',
}
const direct = (us: number[]) =>
  us.map((u, i) => measurement({ series: 'direct', proxy: 'direct', variant: 'direct', repeat: i + 1, proxy_cpu_us_per_req: null, backend_cpu_us_per_req: u }))
const manifest = (calibration: Calibration | null) => ({ calibration }) as Pick<Manifest, 'calibration'> as Manifest

test("references: the direct row's median backend µs, the calibration's round trip and signs; null where absent", () => {
  const refs = runReferences({
    measurements: [...direct([10, 11, 12]), measurement({ series: 'direct', proxy: 'direct', status: 'invalid', backend_cpu_us_per_req: 99 })],
    manifest: manifest(CAL),
  })
  assert.deepEqual(refs, { direct: 11, loopback: 25, ecdsa_p256_sign: 15, rsa4096_sign: 3000 })
  assert.deepEqual(runReferences({ measurements: [], manifest: manifest(null) }), { direct: null, loopback: null, ecdsa_p256_sign: null, rsa4096_sign: null })
})

test("calibrated cells: raw median and the value in each reference's unit, per table", () => {
  const run = {
    measurements: [...direct([10, 10]), ...cpuRepeats({ proxy: 'nginx' }, [24, 26])],
    handshakes: [handshake({ proxy_cpu_us_per_handshake: 300 }), handshake({ repeat: 2, proxy_cpu_us_per_handshake: 330, status: 'invalid' })],
    websocket: [],
    manifest: manifest(CAL),
  }
  const cells = calibratedCells(run)
  const nginx = cells.find((c) => c.key.proxy === 'nginx')!
  assert.equal(nginx.raw, 25)
  assert.deepEqual(nginx.calibrated, { direct: 2.5, loopback: 1, ecdsa_p256_sign: 25 / 15, rsa4096_sign: 25 / 3000 })
  const directCell = cells.find((c) => c.key.proxy === 'direct')!
  assert.equal(directCell.raw, null) // the direct row has no proxy CPU
  const hs = cells.find((c) => c.table === 'handshakes')!
  assert.equal(hs.raw, 300) // the invalid repeat is left out
  assert.equal(hs.calibrated.direct, 30)
})

test('run vs baseline: a machine 2x slower in everything is no change in the calibrated unit', () => {
  const base = {
    measurements: [...direct([10, 10.2, 9.8]), ...cpuRepeats({}, [50, 51, 49, 50.5, 49.5])],
    handshakes: [],
    websocket: [],
    manifest: manifest(null),
  }
  const slow = {
    measurements: [...direct([20, 20.4, 19.6]), ...cpuRepeats({}, [100, 102, 98, 101, 99])],
    handshakes: [],
    websocket: [],
    manifest: manifest(CAL),
  }
  const prior = Object.fromEntries(
    [
      familyOf('cost', 'proxy_cpu_us_per_req', 'measurements', { model: 'closed' }),
      familyOf('ratio', 'proxy / direct', 'measurements', { model: 'closed' }),
    ].map((f) => [f, { sd: 0.05, df: 50 }]),
  )
  const rows = compareAcrossRuns(base, slow, { prior }).filter((x) => x.key.proxy === 'haproxy')
  const raw = rows.find((x) => x.kind === 'cost')!
  assert.equal(raw.verdict, 'increased')
  assert.ok(Math.abs(raw.change - 1) < 1e-9)
  const calibrated = rows.find((x) => x.metric === 'proxy / direct')!
  assert.equal(calibrated.base.median, 5)
  assert.equal(calibrated.run.median, 5)
  assert.equal(calibrated.verdict, 'no change')
  // Without the direct row on one side, no calibrated figure.
  const noDirect = { ...slow, measurements: slow.measurements.filter((r) => r.proxy !== 'direct') }
  assert.ok(!compareAcrossRuns(base, noDirect).some((x) => x.metric === 'proxy / direct'))
})

test('reference agreement: ratios of raw and calibrated medians per reference, and the table', () => {
  const base = { measurements: [...direct([10, 10]), ...cpuRepeats({}, [50, 50]), ...cpuRepeats({ proxy: 'nginx' }, [30, 30])], handshakes: [], websocket: [] }
  const run = { measurements: [...direct([20, 20]), ...cpuRepeats({}, [100, 100]), ...cpuRepeats({ proxy: 'nginx' }, [66, 66])], handshakes: [], websocket: [] }
  const rb: References = { direct: 10, loopback: null, ecdsa_p256_sign: null, rsa4096_sign: null }
  const rr: References = { direct: 20, loopback: 25, ecdsa_p256_sign: 15, rsa4096_sign: 3000 }
  const a = referenceAgreement(compareRuns(base, run), rb, rr)
  const d = a.find((x) => x.reference === 'direct')!
  assert.equal(d.referenceRatio, 2)
  assert.deepEqual(d.raw, { cells: 2, median: 2.1, min: 2, max: 2.2 })
  assert.equal(d.calibrated!.min, 1)
  assert.ok(Math.abs(d.calibrated!.max - 1.1) < 1e-12)
  assert.equal(a.find((x) => x.reference === 'loopback')!.calibrated, null)
  const t = agreementTable(a)
  assert.match(t, /\| measurements \| direct \| 2 \| 2\.1 \[2\.\.2\.2\] \(2 cells\) \| 1\.05 \[1\.\.1\.1\] \| ±10% \|/)
  assert.match(t, /\| measurements \| loopback \| — \| .* \| no calibration recorded \| — \|/)
})

test('baselines written before calibration: no fingerprint, no calibration, the direct row still a reference', () => {
  const b = loadRun(OLD_FORMAT_RUN)
  assert.equal(b.manifest.fingerprint, null)
  assert.equal(b.manifest.calibration, null)
  const refs = runReferences(b)
  assert.ok(refs.direct! > 5 && refs.direct! < 20)
  assert.equal(refs.loopback, null)
})
