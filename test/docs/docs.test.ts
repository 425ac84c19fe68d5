import assert from 'node:assert/strict'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { docsStatus } from '../../lib/docs/status.ts'

// The real tree: every --help is run once (a minute on 2 cores), every page and comment read.
test('the documentation matches the code: generated blocks current, every link, path, script and flag exists', { timeout: 600_000 }, async () => {
  const { stale, problems } = await docsStatus(repoRoot)
  assert.deepEqual(
    stale.map((s) => `${s.page}: generated block out of date (run npm run docs)`),
    [],
  )
  assert.deepEqual(problems, [])
})
