import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compareRuns, formatDelta, pairVersions } from '../../lib/analysis/compare.ts'
import { cpuRepeats } from '../fixtures/rows.ts'

test('baseline comparison: same version pairs with itself, else newest with newest; ~ when not significant', () => {
  assert.deepEqual(pairVersions(['1.22.1', '1.29.0'], ['1.22.1', '1.31.3']), [['1.22.1', '1.22.1'], ['1.29.0', '1.31.3']])
  assert.deepEqual(pairVersions(['1'], ['1']), [['1', '1']])
  const old = { measurements: cpuRepeats({}, [10, 11, 12, 10.5, 11.5]), handshakes: [], websocket: [] }
  const slower = { measurements: cpuRepeats({ version: '3.0.0' }, [20, 21, 22, 20.5, 21.5]), handshakes: [], websocket: [] }
  const [d] = compareRuns(old, slower)
  assert.equal(d!.key.version, '2.8.25 → 3.0.0')
  assert.equal(d!.delta, 21 / 11 - 1)
  assert.ok(d!.significant)
  assert.equal(formatDelta(d!), '+90.9% (p=0.008 n=5+5)')
  const same = compareRuns(old, { measurements: cpuRepeats({}, [10.2, 11.1, 11.9, 10.6, 11.4]), handshakes: [], websocket: [] })[0]!
  assert.ok(!same.significant)
  assert.match(formatDelta(same), /^~ \(p=\d\.\d{3} n=5\+5\)$/)
})
