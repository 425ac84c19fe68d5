import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { UserError } from '../../lib/core/errors.ts'
import { repoRoot } from '../../lib/core/paths.ts'

// No flag points a notebook at another ledger dir, so the malformed-ledger part of the
// bad-input corpus (test/integration/bad-input.test.ts) loads broken copies directly.
const published = join(repoRoot, 'baselines', 'published')

function broken(change: (dir: string) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-ledger-'))
  cpSync(published, dir, { recursive: true })
  change(dir)
  return dir
}
const edit = (dir: string, f: string, fn: (t: string) => string) => writeFileSync(join(dir, f), fn(readFileSync(join(dir, f), 'utf8')))

const CASES: [string, (dir: string) => void, RegExp][] = [
  ['claims.yaml: not YAML', (d) => writeFileSync(join(d, 'claims.yaml'), 'claims: [\n  - id: x\n'), /claims\.yaml/],
  ['figures.yaml: not YAML', (d) => writeFileSync(join(d, 'figures.yaml'), '- id: "unclosed\n'), /figures\.yaml/],
  ['claims.yaml: missing', (d) => rmSync(join(d, 'claims.yaml')), /claims\.yaml/],
  ['figures.yaml: missing', (d) => rmSync(join(d, 'figures.yaml')), /figures\.yaml/],
  ['claims.yaml: a mapping, not a list', (d) => writeFileSync(join(d, 'claims.yaml'), 'id: x\n'), /claims\.yaml/],
  ['figures.yaml: empty', (d) => writeFileSync(join(d, 'figures.yaml'), ''), /figures\.yaml/],
  [
    'claims.yaml: a figure id that figures.yaml lacks',
    (d) => edit(d, 'claims.yaml', (t) => t.replace(/^( {2}figures: \[)[\w-]+/m, '$1s000-no-such-figure')),
    /claims\.yaml:\d+/,
  ],
]

for (const [what, change, names] of CASES) {
  test(`a broken ledger is one line naming the file: ${what}`, () => {
    const dir = broken(change)
    try {
      assert.throws(
        () => loadLedger(dir),
        (e: Error) => e instanceof UserError && names.test(e.message) && !e.message.includes('\n'),
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
}
