import assert from 'node:assert/strict'
import { test } from 'node:test'
import { formatFindings, formatVerdictCounts } from '../../lib/findings/format.ts'
import type { Finding } from '../../lib/findings/types.ts'

const f = (id: string, verdict: Finding['verdict']): Finding => ({ id, title: 't', verdict, figure: 'x' })
const findings = [f('F1', 'held'), f('F2', 'inconclusive'), f('F3', 'info'), f('F4', 'not held'), f('F5', 'inconclusive'), f('F7', 'not measured')]

test('inconclusive has its own mark and is counted apart from not held', () => {
  assert.match(formatFindings(findings), /^ {2}\? F2 t \.+ inconclusive: x$/m)
  assert.equal(formatVerdictCounts(findings), '6 findings: 1 held, 1 not held, 2 inconclusive, 1 not measured, 1 info')
})
