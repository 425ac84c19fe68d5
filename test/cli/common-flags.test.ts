import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { COMMON_FLAGS, commonFlags, sharedFlag } from '../../lib/cli/common-flags.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { sourceFiles } from '../support/imports.ts'

const NAMES = Object.keys(COMMON_FLAGS)

test('a shared flag carries the command default after its meaning, further lines under it', () => {
  assert.deepEqual(sharedFlag('proxies', 'haproxy').help, ['only these proxies, of haproxy,nginx,envoy,traefik,caddy (default haproxy)'])
  assert.deepEqual(sharedFlag('out', ['results/x', 'one folder per run']).help, ['where the output goes (default results/x)', 'one folder per run'])
  assert.deepEqual(sharedFlag('baseline').help, COMMON_FLAGS.baseline.help)
  assert.deepEqual(Object.keys(commonFlags({ profile: 'quick', 'no-pdf': undefined })), ['profile', 'no-pdf'])
})

test('no notebook, bench or lib/cli table declares a shared flag by hand: it spreads commonFlags or sharedFlag', () => {
  const files = [
    ...sourceFiles(join(repoRoot, 'notebooks'), /\.mjs$/),
    ...sourceFiles(join(repoRoot, 'bench'), /\.mjs$/),
    ...sourceFiles(join(repoRoot, 'lib/cli')).filter((f) => !f.endsWith('common-flags.ts')),
  ]
  const entry = new RegExp(`^\\s*'?(${NAMES.join('|')})'?: \\{\\s*type:`, 'm')
  const byHand = files.flatMap((f) => {
    const m = entry.exec(readFileSync(f, 'utf8'))
    return m ? [`${relative(repoRoot, f)}: --${m[1]}`] : []
  })
  assert.deepEqual(byHand, [])
})
