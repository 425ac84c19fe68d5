import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'

/**
 * The size and complexity limits live in biome.jsonc (CONTRIBUTING.md#size) and `npm run lint`
 * fails on them in CI. Shown here on a tiny project under the repository's own biome.jsonc: an
 * over-long function, an over-long file and an over-complex function in lib/ each fail the lint.
 */
const BIOME = join(repoRoot, 'node_modules', '@biomejs', 'biome', 'bin', 'biome')

function lint(path: string, text: string): { status: number | null; output: string } {
  const root = mkdtempSync(join(tmpdir(), 'pb-lint-'))
  try {
    copyFileSync(join(repoRoot, 'biome.jsonc'), join(root, 'biome.jsonc'))
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'))
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
    // No VCS here: the copy's own folder is the whole project.
    const r = spawnSync(process.execPath, [BIOME, 'lint', '--vcs-enabled=false', '--error-on-warnings', path], { cwd: root, encoding: 'utf8', timeout: 60_000 })
    return { status: r.status, output: r.stdout + r.stderr }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const statements = (n: number, indent = '  ') => Array.from({ length: n }, (_, i) => `${indent}total += ${i}\n`).join('')
const fn = (name: string, body: number) => `export function ${name}(): number {\n  let total = 0\n${statements(body)}  return total\n}\n`
/** Nested branches: each level adds to the cognitive complexity more than the one before. */
const nested = (depth: number): string => (depth === 0 ? 'total += 1\n' : `if (total > ${depth}) {\n${nested(depth - 1)}} else {\ntotal -= 1\n}\n`)

test('lib/: a function over 80 lines, a file over 400 lines and an over-complex function fail the lint; within the limits they pass', () => {
  assert.equal(lint('lib/core/ok.ts', fn('ok', 60)).status, 0)
  const long = lint('lib/core/long.ts', fn('long', 90))
  assert.notEqual(long.status, 0)
  assert.match(long.output, /noExcessiveLinesPerFunction/)
  const big = lint('lib/core/big.ts', Array.from({ length: 9 }, (_, i) => fn(`f${i}`, 45)).join('\n'))
  assert.notEqual(big.status, 0)
  assert.match(big.output, /noExcessiveLinesPerFile/)
  const complex = lint('lib/core/complex.ts', `export function c(total: number): number {\n${nested(12)}return total\n}\n`)
  assert.notEqual(complex.status, 0)
  assert.match(complex.output, /noExcessiveCognitiveComplexity/)
})
