import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { evaluateClaims } from '../../../lib/claims/evaluate.ts'
import { loadLedger } from '../../../lib/claims/ledger.ts'
import { disagreements, rowsUsed } from '../../../lib/report/sections/claims.ts'
import type { Finding } from '../../../lib/report/sections/input.ts'
import { claimResult } from '../../fixtures/ledger.ts'
import { FIXTURE_RUN, fixtureTables } from '../../fixtures/run.ts'

test('each verdict links the CSV lines of every cell it read, and those lines are those cells', () => {
  const tables = fixtureTables()
  const claims = evaluateClaims(loadLedger(), tables)
  const c = claims.find((x) => x.id === 'haproxy-server-close-removes-reuse')!
  const text = rowsUsed(c, tables)
  const m = /^\[measurements\.csv\]\(data\/measurements\.csv\) ([\d, -]+)$/.exec(text)
  assert.ok(m, text)
  const lines = m[1]!.split(', ').flatMap((r) => {
    const [a, b] = r.split('-').map(Number)
    return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i)
  })
  const csv = readFileSync(join(FIXTURE_RUN, 'measurements.csv'), 'utf8').split('\n')
  const header = csv[0]!.split(',')
  for (const n of lines) {
    const row = csv[n - 1]!.split(',')
    assert.equal(row[header.indexOf('proxy')], 'haproxy', `line ${n}`)
    assert.equal(row[header.indexOf('variant')], 'server-close', `line ${n}`)
  }
  // Every repeat of the cell is named, not only the valid ones.
  assert.equal(lines.length, tables.measurements.filter((r) => r.proxy === 'haproxy' && r.variant === 'server-close').length)
  // A claim that read nothing (not runnable here) links nothing.
  assert.equal(rowsUsed(claims.find((x) => x.verdict === 'not runnable here')!, tables), '—')
  // Handshake claims link their own table.
  assert.match(rowsUsed(claims.find((x) => x.id === 'handshake-rsa4096-vs-ec256')!, tables), /^\[handshakes\.csv\]\(data\/handshakes\.csv\) \d/)
})

test('a claim and a line of its finding that decided opposite ways are listed with both rules; agreeing or undecided ones are not', () => {
  const line = (verdict: Finding['verdict'], title: string): Finding => ({ id: 'F5', title, verdict, figure: '' })
  const findings = [line('held', 'Go >= 1.5x the median'), line('not held', 'rsa4096 / ec256 >= 8'), line('inconclusive', 'x')]
  const claims = [
    claimResult('go-twice', 'not reproduced', { finding: 'F5', expect: 'Go / OpenSSL ≈ 2 (±25%)' }),
    claimResult('open', 'inconclusive', { finding: 'F5' }),
    claimResult('other', 'reproduced', { finding: null }),
  ]
  assert.deepEqual(disagreements(claims, findings), [
    '`go-twice` ✗ not reproduced, its rule: Go \\/ OpenSSL ≈ 2 \\(±25\\%\\); beside **F5** ✓ held, its rule: Go \\>\\= 1\\.5x the median.',
  ])
})
