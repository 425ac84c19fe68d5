import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { UserError } from '../../lib/core/errors.ts'
import { claimOf, evalCheck, writeLedger } from '../fixtures/ledger.ts'
import { measurement as m, two } from '../fixtures/rows.ts'

test('the published ledger loads: every claim, figure and expression is well-formed', () => {
  const ledger = loadLedger()
  assert.equal(ledger.claims.length, 77)
  assert.equal(ledger.figures.size, 318)
  assert.equal(new Set(ledger.claims.map((c) => c.id)).size, 77)
  const c = ledger.claims.find((x) => x.id === 'pool-removed-pit')!
  assert.equal(c.check.kind, 'spread')
  assert.equal(c.check.table, 'measurements')
  assert.equal(c.check.rows, 'valid')
})

test('a malformed claims file is a one-line error naming file:line, what and the fix', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { proxy: 'haproxy' }, approx: 's000-sixx', tolerance: 0.25 },
      /check\.approx: unknown figure id "s000-sixx"/,
    ],
    [
      { kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { value: 's000-six-1' } },
      /check\.b.*unknown figure id "s000-six-1"/,
    ],
    [{ kind: 'ratios', metric: 'rps' }, /check\.kind: Invalid discriminator value/],
    [{ kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { proxy: 'haproxy' }, approx: 2 }, /approx needs a tolerance/],
    [
      { kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx', tls: true }, op: '<', value: 1 },
      /"tls" is not a selector column of measurements/,
    ],
    [{ kind: 'threshold', metric: 'rpm', select: { series: 'same', proxy: 'nginx' }, op: '<', value: 1 }, /"rpm" is not a metric of measurements/],
    [{ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'ngnix' }, op: '<', value: 1 }, /unknown proxy "ngnix"/],
    [
      { kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx', version: 1.27 }, op: '<', value: 1 },
      /version 1\.27 must be a quoted string/,
    ],
    [
      { kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx' }, op: '<', value: 1, tolerence: 0.1 },
      /Unrecognized key\(s\) in object: 'tolerence'/,
    ],
    [
      { kind: 'count', table: 'measurements', metric: 'rps', select: { series: 'same', proxy: 'nginx' }, value: 'conns_target' },
      /conns_target is a column of the websocket table only/,
    ],
    // Series: every side of a runnable claim names one the harness writes to that table.
    [
      { kind: 'threshold', metric: 'rps', select: { proxy: 'nginx', variant: 'pool-added' }, op: '<', value: 1 },
      /check\.select: no series: name the series whose cells this side reads \(one of same, pool-added/,
    ],
    [{ kind: 'ratio', metric: 'rps', a: { series: 'pool-added', proxy: 'nginx' }, b: { proxy: 'nginx' }, min: 1 }, /check\.b: no series/],
    [
      { kind: 'ratio', metric: 'rps', select: [{ series: 'same' }, { proxy: 'haproxy' }], a: { proxy: 'nginx' }, b: { proxy: 'nginx' }, min: 1 },
      /check\.a: no series/,
    ],
    [
      { kind: 'threshold', metric: 'rps', select: { series: 'pool_added', proxy: 'nginx' }, op: '<', value: 1 },
      /check\.select\.series: "pool_added" is not a series of measurements/,
    ],
    [
      { kind: 'threshold', table: 'handshakes', metric: 'rate', select: { series: 'tls-open', proxy: 'nginx' }, op: '<', value: 1 },
      /"tls-open" is not a series of handshakes \(one of work, tls-handshake, h3-handshake, h3-handshake-tcp, resumption\)/,
    ],
    [
      { kind: 'threshold', table: 'tcp', metric: 'proxy_cpu_us_per_conn', select: { series: 'scenarios', proxy: 'nginx' }, op: '<', value: 1 },
      /"scenarios" is not a series of tcp \(one of l4-short, l4-stream\)/,
    ],
    [
      { kind: 'threshold', table: 'tcp', metric: 'proxy_cpu_us_per_req', select: { series: 'l4-short', proxy: 'nginx' }, op: '<', value: 1 },
      /"proxy_cpu_us_per_req" is not a metric of tcp/,
    ],
    // same: a column side b takes from side a's cells, one of the table's selector columns.
    [
      { kind: 'ratio', metric: 'rps', select: { series: 'scenarios' }, a: { proxy: 'nginx' }, b: { proxy: 'nginx' }, same: ['conns'], min: 1 },
      /check\.same\.0: "conns" is not a selector column of measurements/,
    ],
    [
      { kind: 'rank', metric: 'rps', by: 'desc', select: { series: { nginx: 'same', haproxy: 'reuse' } }, positions: { nginx: [1] } },
      /check\.select\.series: "reuse" is not a series of measurements/,
    ],
    [
      { kind: 'ratio', metric: 'rps', select: { series: 'same' }, for_each: [{ series: 'ws-echo' }], a: { proxy: 'nginx' }, b: { proxy: 'nginx' }, min: 1 },
      /check\.for_each\.0\.series: "ws-echo" is not a series of measurements/,
    ],
    [
      {
        kind: 'rank',
        metric: 'rps',
        by: 'desc',
        select: { series: 'same' },
        same_order_as: { table: 'handshakes', metric: 'rate', select: { key_type: 'rsa4096' }, by: 'asc' },
      },
      /check\.same_order_as\.select: no series/,
    ],
    [{ kind: 'status', cells: [{ select: { proxy: 'nginx' }, status: ['failed'] }] }, /check\.cells\.0\.select: no series/],
    // reason: a regular expression.
    [
      { kind: 'status', table: 'websocket', cells: [{ select: { series: 'ws-echo', proxy: 'nginx' }, status: ['failed'], reason: '^upgrade (failed' }] },
      /check\.cells\.0\.reason: not a regular expression/,
    ],
  ]
  for (const [check, what] of cases) {
    const dir = writeLedger([
      claimOf({ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx' }, op: '<', value: 1 }, {}, 1),
      claimOf(check, {}, 2),
    ])
    const file = join(dir, 'claims.yaml')
    const err = (() => {
      try {
        loadLedger(dir)
      } catch (e) {
        return e as Error
      }
      return undefined
    })()
    assert.ok(err instanceof UserError, `${JSON.stringify(check)} loads`)
    assert.ok(!err.message.includes('\n'), err.message)
    const m = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+): `).exec(err.message)
    assert.ok(m, err.message)
    // The line is inside the second claim, which starts after the first one.
    const lines = readFileSync(file, 'utf8').split('\n')
    const second = lines.findIndex((l) => l.includes('test-claim-2')) + 1
    assert.ok(Number(m[1]) >= second, `${err.message} (second claim starts at ${second})`)
    assert.match(err.message, what)
    assert.match(err.message, /Fix the claim as the header of claims\.yaml describes/)
  }
})

test('not_measured_reason: said beside a not-measured verdict only, and only on a runnable claim', () => {
  const check = { kind: 'threshold', metric: 'rps', select: { series: 'scenarios', proxy: 'nginx', variant: 'http', connections: 2000 }, op: '>', value: 0 }
  const reason = { not_measured_reason: 'measured by the standard profile only' }
  const absent = evalCheck(check, { measurements: [m({ series: 'scenarios', proxy: 'nginx', variant: 'http', connections: 1000 })] }, reason)
  assert.equal(absent.verdict, 'not measured')
  assert.match(absent.measured, /^not measured: no cell .*connections: 2000\} \(measured by the standard profile only\)$/)
  const there = evalCheck(check, { measurements: two(m, { series: 'scenarios', proxy: 'nginx', variant: 'http', connections: 2000 }) }, reason)
  assert.equal(there.verdict, 'reproduced')
  assert.doesNotMatch(there.measured, /standard profile/)
  assert.throws(
    () => loadLedger(writeLedger([claimOf(check, { ...reason, runnable_here: false, not_runnable_reason: 'x' })])),
    /not_measured_reason is only for runnable_here: true/,
  )
})

test('a claim not runnable here may name columns the harness lacks, but needs its reason', () => {
  const check = { kind: 'threshold', table: 'handshakes', metric: 'resumed', select: { proxy: 'nginx', resumption_offered: true }, op: '==', value: 0 }
  const r = evalCheck(check, {}, { runnable_here: false, not_runnable_reason: 'no resumption series' })
  assert.equal(r.verdict, 'not runnable here')
  assert.equal(r.measured, 'no resumption series')
  assert.throws(() => loadLedger(writeLedger([claimOf(check, { runnable_here: false })])), /runnable_here: false needs not_runnable_reason/)
  assert.throws(() => loadLedger(writeLedger([claimOf(check)])), /"resumption_offered" is not a selector column of handshakes/)
  // Without series too: the series rule is for runnable claims.
  assert.doesNotThrow(() =>
    loadLedger(
      writeLedger([claimOf({ ...check, select: { proxy: 'nginx', tuned: true } }, { runnable_here: false, not_runnable_reason: 'no tuned variant' })]),
    ),
  )
})
