import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'

/**
 * Outputs go through one writer (writeOutputs, or writeOutputFolder for a folder swapped in whole; lib/core/atomic.ts): what computes a file
 * returns it as an Output (path + render) and writes nothing itself, so lib/analysis/ is pure.
 */

/** A call that writes to the file system, directly or through the atomic writer's lower functions. */
const WRITES =
  /\b(writeFileSync|appendFileSync|writeFileAtomic|writeFileDurable|createWriteStream|mkdirSync|renameSync|rmSync|copyFileSync|cpSync|replaceDir)\s*\(/

/** Folders that compute and never write. */
const PURE = ['lib/analysis']
/** Files that produce outputs and hand them to writeOutputs. */
const THROUGH_ONE_WRITER = [
  'lib/analysis/summary.ts',
  'lib/report/summary-export.ts',
  'lib/report/build.ts',
  'lib/report/history.ts',
  'lib/report/pdf.ts',
  'lib/cli/report-outcome.ts',
  'lib/cli/run-notebook.ts',
]

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : []
  })
}

/** Lines of a source that write, comments left out. */
export function writingLines(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((l) => !/^\s*\/\//.test(l) && WRITES.test(l))
    .map((l) => l.trim())
}

test('lib/analysis/ writes nothing and the producers of outputs write only through writeOutputs', () => {
  const files = [...PURE.flatMap((d) => sources(join(repoRoot, d))), ...THROUGH_ONE_WRITER.map((f) => join(repoRoot, f))]
  const offenders = [...new Set(files)].flatMap((f) => writingLines(readFileSync(f, 'utf8')).map((l) => `${relative(repoRoot, f)}: ${l}`))
  assert.deepEqual(offenders, [])
})

test('the check sees a write in code and not in a comment', () => {
  assert.deepEqual(writingLines('// writeFileAtomic(x, y) is not called here\nconst a = 1\n  writeFileAtomic(join(dir, name), text)\n/* rmSync(x) */\n'), [
    'writeFileAtomic(join(dir, name), text)',
  ])
  assert.deepEqual(writingLines('writeOutputs(dir, summaryOutputs(a))\n'), [])
})
