import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'

/**
 * Every skip in test/ goes through test/support/needs.ts (docs/ci.md#skips), so that in CI a
 * missing component fails the test unless .ci/allowed-skips lists it: no `{ skip }` option,
 * no `t.skip(`, `test.skip(`, `todo` anywhere else.
 */
const HELPER = 'test/support/needs.ts'
const SELF = 'test/architecture/skips.test.ts'
const SKIP = /(?<!\$)\{\s*skip\b|[,{]\s*skip\s*:|\.skip\(|[,{]\s*todo\s*:|\.todo\(/

test('no test skips except through the helper that fails in CI', () => {
  const root = join(repoRoot, 'test')
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|mjs|js)$/.test(f))
    .map((f) => relative(repoRoot, join(root, f)))
  assert.ok(files.includes(HELPER) && files.length > 50, `${files.length} files`)
  const found = files
    .filter((f) => f !== HELPER && f !== SELF)
    .flatMap((f) =>
      readFileSync(join(repoRoot, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (SKIP.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    )
  assert.deepEqual(found, [], 'use testNeeding / skipNeeding from test/support/needs.ts')
  // The pattern itself catches each form (a rule that matches nothing proves nothing).
  for (const line of [
    "test('x', { skip }, () => {})",
    "test('x', { skip: 'why' }, fn)",
    "test('x', { timeout: 1, skip: why }, fn)",
    "return t.skip('no engine')",
    "test.skip('x', fn)",
    "test('x', { todo: 'later' }, fn)",
    "t.todo('x')",
  ])
    assert.ok(SKIP.test(line), line)
  for (const line of [
    'Papa.parse(t, { skipEmptyLines: true })',
    "{ id: 'integration/docker', missing: skip }",
    'const { versions, skipped } = orderVersions(tags)',
    'console.log(`skipped: ${skip}`)',
  ])
    assert.ok(!SKIP.test(line), line)
})
