import assert from 'node:assert/strict'
import { test } from 'node:test'
import { REFERENCE_UNITS, TWO_PART_UNIT } from '../../lib/data/calibration-unit.ts'
import { calibratedColumns } from '../../lib/measure/closed.ts'
import { countColumns, noCounts } from '../../lib/measure/rows.ts'

test('count columns: per unit, the primary metric split by the user share; user + sys = the metric', () => {
  const c = countColumns({ ok: true, syscalls: 74150, contextSwitches: 140, involuntarySwitches: 30, userShare: 0.25 }, 10000, 29)
  assert.deepEqual(c, {
    proxy_syscalls_per_req: 7.415,
    proxy_ctxsw_per_req: 0.014,
    proxy_ctxsw_involuntary_per_req: 0.003,
    proxy_user_us_per_req: 7.25,
    proxy_sys_us_per_req: 21.75,
    counts_reason: '',
  })
})

test('count columns: empty with the reason where nothing was counted, no units, or no split', () => {
  assert.deepEqual(
    countColumns({ ok: false, reason: 'perf is not installed (Debian linux-perf)' }, 100, 29),
    noCounts('perf is not installed (Debian linux-perf)'),
  )
  assert.deepEqual(countColumns(undefined, 100, 29), noCounts('not counted'))
  assert.equal(
    countColumns({ ok: true, syscalls: 10, contextSwitches: 1, involuntarySwitches: null, userShare: 0.5 }, 0, null).counts_reason,
    'no units in the window to count per',
  )
  const noSplit = countColumns({ ok: true, syscalls: 700, contextSwitches: 1, involuntarySwitches: null, userShare: null }, 100, 29)
  assert.equal(noSplit.proxy_syscalls_per_req, 7)
  assert.equal(noSplit.proxy_user_us_per_req, null)
  assert.match(noSplit.counts_reason, /no user\/system split/)
})

test('calibrated columns: the two-part figure and its unit, or empty and no unit where the calibration lacks the units', () => {
  const counted = { proxy_user_us_per_req: 10, proxy_sys_us_per_req: 20, proxy_syscalls_per_req: 7.4 }
  const units = { ...REFERENCE_UNITS }
  assert.deepEqual(
    calibratedColumns(counted, {
      calibration: { loopback_rtt_us: 25, loopback_rtt_wall_us: null, ecdsa_p256_sign_us: null, rsa4096_sign_us: null, measured_at: '', cpuset: '1', ...units },
    }),
    { proxy_cpu_calibrated: 30, calibration_unit: TWO_PART_UNIT },
  )
  assert.deepEqual(calibratedColumns(counted, { calibration: null }), { proxy_cpu_calibrated: null, calibration_unit: '' })
  assert.deepEqual(
    calibratedColumns(
      { ...counted, proxy_syscalls_per_req: null },
      {
        calibration: {
          loopback_rtt_us: 25,
          loopback_rtt_wall_us: null,
          ecdsa_p256_sign_us: null,
          rsa4096_sign_us: null,
          measured_at: '',
          cpuset: '1',
          ...units,
        },
      },
    ),
    { proxy_cpu_calibrated: null, calibration_unit: '' },
  )
})
