import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { appendMeasurement, readMeasurements } from '../../lib/data/measurements.ts'
import { measurement } from '../fixtures/rows.ts'

test('a row that breaks the schema is refused before it is written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  assert.throws(() => appendMeasurement(dir, { ...measurement(), status: 'maybe' as 'valid' }))
  assert.deepEqual(readMeasurements(dir), [])
})
