import assert from 'node:assert/strict'
import { test } from 'node:test'
import { evalNumber, ExprError, parseExpr } from '../../lib/claims/expr.ts'
import { FIGURES } from '../fixtures/ledger.ts'

test('expressions: precedence, left associativity, parentheses, unary minus, figure ids with hyphens', () => {
  const f = new Map(FIGURES.map((x) => [x.id, x]))
  assert.equal(evalNumber('1 + 2 * 3', f), 7)
  assert.equal(evalNumber('(1 + 2) * 3', f), 9)
  assert.equal(evalNumber('10 - 3 - 2', f), 5)
  assert.equal(evalNumber('8 / 4 / 2', f), 1)
  assert.equal(evalNumber('- 2 * 3', f), -6)
  assert.equal(evalNumber('s000-ten - s000-six', f), 4)
  assert.ok(Math.abs(evalNumber('(s000-ten / s000-six) / (s000-six / s000-ten)', f) - 100 / 36) < 1e-12)
  assert.equal(evalNumber('1 + s000-five-pct / 100', f), 1.05)
  assert.equal(evalNumber('2.5e3', f), 2500)
  assert.equal(evalNumber(0.25, f), 0.25)
  assert.deepEqual(parseExpr('(s000-six)'), { kind: 'id', id: 's000-six' })
  assert.deepEqual(parseExpr('1 - 2 * 3'), {
    kind: 'bin',
    op: '-',
    left: { kind: 'num', value: 1 },
    right: { kind: 'bin', op: '*', left: { kind: 'num', value: 2 }, right: { kind: 'num', value: 3 } },
  })
})

test('expressions: unknown ids, non-numeric figures, missing spaces and bad syntax are errors', () => {
  const f = new Map(FIGURES.map((x) => [x.id, x]))
  assert.throws(
    () => evalNumber('s000-nope * 2', f),
    (e: Error) => e instanceof ExprError && /unknown figure id "s000-nope"/.test(e.message),
  )
  assert.throws(() => evalNumber('s000-a-range', f), /figure "s000-a-range" is not a number/)
  assert.throws(() => evalNumber('s000-ten-1', f), /unknown figure id "s000-ten-1"/)
  assert.throws(() => evalNumber('10-1', f), /neither a number nor a figure id \(write operators with spaces/)
  assert.throws(() => evalNumber('(1 + 2', f), /without its "\)"/)
  assert.throws(() => evalNumber('1 +', f), /ends where a number/)
  assert.throws(() => evalNumber('1 2', f), /unexpected "2"/)
  assert.throws(() => evalNumber('', f), /empty/)
  assert.throws(() => evalNumber('1 / 0', f), /not a finite number/)
  assert.throws(() => evalNumber('eval(1)', f), ExprError)
})
