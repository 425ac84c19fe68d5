import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UserError } from '../../../lib/core/errors.ts'
import { loadLedger } from '../../../lib/claims/ledger.ts'
import type { Measurement } from '../../../lib/data/schema.ts'
import { claimOf, evalCheck, writeLedger } from '../../fixtures/ledger.ts'
import { measurement } from '../../fixtures/rows.ts'

const check = {
  kind: 'open_outcome',
  rows: 'all',
  select: { series: 'tls-open', model: 'open', key_type: 'ec256' },
  for_each: [{ proxy: 'haproxy' }, { proxy: 'caddy' }],
  outcome: 'holds',
}
/** One open-model repeat per entry: max VUs and errors of 1000 requests, at a cap of 1000 VUs. */
const open = (proxy: string, repeats: { vus: number; errors: number }[], extra: Partial<Measurement> = {}) =>
  repeats.map((r, i) =>
    measurement({
      series: 'tls-open',
      model: 'open',
      key_type: 'ec256',
      proxy,
      repeat: i + 1,
      connections: 1000,
      target_rps: 2700,
      requests: 1000 - r.errors,
      errors: r.errors,
      dropped: 0,
      max_vus: r.vus,
      ...extra,
    }),
  )
const fast = [
  { vus: 20, errors: 0 },
  { vus: 25, errors: 0 },
]

test('open_outcome: held when every proxy holds in its median repeat, not held when one collapses, inconclusive when repeats split', () => {
  const held = evalCheck(check, { measurements: [...open('haproxy', fast), ...open('caddy', fast)] })
  assert.equal(held.verdict, 'reproduced', held.measured)
  assert.equal(
    held.measured,
    'haproxy: ec256 at 2700 rps: 0% failed (errors + dropped) of attempts, 23 VUs; caddy: ec256 at 2700 rps: 0% failed (errors + dropped) of attempts, 23 VUs',
  )
  const collapsed = [
    { vus: 1000, errors: 300 },
    { vus: 1000, errors: 400 },
  ]
  assert.equal(evalCheck(check, { measurements: [...open('haproxy', fast), ...open('caddy', collapsed)] }).verdict, 'not reproduced')
  const split = evalCheck(check, { measurements: [...open('haproxy', fast), ...open('caddy', [fast[0]!, collapsed[0]!])] })
  assert.equal(split.verdict, 'inconclusive')
  assert.match(split.measured, /caddy: ec256 at 2700 rps: .*, repeats split$/)
  // The collapse makes rows invalid for errors: those count; a row invalid for another reason does not.
  const invalidForErrors = open('caddy', collapsed, { status: 'invalid', reason: 'errors 30% >= 1%' })
  assert.equal(evalCheck({ ...check, outcome: 'collapses', for_each: [{ proxy: 'caddy' }] }, { measurements: invalidForErrors }).verdict, 'reproduced')
  const verification = open('caddy', fast, { status: 'invalid', reason: 'verification failed: HTTP 502' })
  assert.equal(evalCheck(check, { measurements: [...open('haproxy', fast), ...verification] }).verdict, 'not measured')
})

test('open_outcome: outcome is holds or collapses; the table is measurements', () => {
  const bad = (c: Record<string, unknown>, re: RegExp) =>
    assert.throws(
      () => loadLedger(writeLedger([claimOf(c)])),
      (e: unknown) => e instanceof UserError && re.test(e.message),
    )
  bad({ ...check, outcome: 'survives' }, /check\.outcome/)
  bad({ ...check, table: 'handshakes' }, /open_outcome reads open-model rows of measurements\.csv/)
})
