import assert from 'node:assert/strict'
import { test } from 'node:test'
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
