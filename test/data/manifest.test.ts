import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { readManifest } from '../../lib/data/manifest.ts'

test('a broken manifest is one error naming the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-data-'))
  writeFileSync(join(dir, 'manifest.json'), '{"run_id": 1')
  assert.throws(() => readManifest(dir), /manifest\.json: not valid JSON/)
})
