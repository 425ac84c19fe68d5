import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'

/**
 * CI checks the types (`npm run typecheck` in .ci/run, CONTRIBUTING.md#types): tsx runs code
 * without checking them. Shown here on a tiny project under the repository's own tsconfig.json
 * (same options, same include globs), so a type error in lib/ or in a notebook's .mjs fails.
 */
const TSC = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')

function typecheck(files: Record<string, string>): { status: number | null; output: string } {
  const root = mkdtempSync(join(tmpdir(), 'pb-typecheck-'))
  try {
    copyFileSync(join(repoRoot, 'tsconfig.json'), join(root, 'tsconfig.json'))
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'))
    writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n')
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    const r = spawnSync(process.execPath, [TSC, '--noEmit', '-p', root], { encoding: 'utf8', timeout: 60_000 })
    return { status: r.status, output: r.stdout + r.stderr }
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

test('CI runs the typecheck after the lint, and the typecheck covers lib/, test/ and the .mjs of notebooks/ and bench/', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  assert.equal(pkg.scripts.typecheck, 'tsc --noEmit')
  assert.ok(!/typecheck|tsc/.test(pkg.scripts.test!), 'npm test does not run the typecheck: CI calls it on its own')
  const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8')
  const [lint, types, tests] = ['npm run lint', 'npm run typecheck', 'npm test'].map((c) => ci.indexOf(`\n${c}`))
  assert.ok(lint! > 0 && types! > lint! && tests! > types!, '.ci/run: lint, then typecheck, then npm test')
  const config = JSON.parse(readFileSync(join(repoRoot, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown>; include: string[] }
  assert.equal(config.compilerOptions.checkJs, true)
  for (const glob of ['lib/**/*.ts', 'test/**/*.ts', 'notebooks/**/*.mjs', 'bench/**/*.mjs']) assert.ok(config.include.includes(glob), glob)
})

test('a type error in lib/ or in a notebook (a boolean flag used as a string) fails the typecheck; the same files fixed pass', () => {
  const flags = join(repoRoot, 'lib/cli/flags.ts')
  const files = (ok: boolean) => ({
    'lib/core/n.ts': `export const n: number = ${ok ? '1' : "'one'"}\n`,
    'notebooks/99-x.mjs': [
      `import { flagTable, parseFlags } from ${JSON.stringify(flags)}`,
      "const FLAGS = flagTable({ force: { type: 'boolean' }, dir: { type: 'string' } })",
      "const flags = parseFlags([], FLAGS, '', 'notebooks/99-x.mjs')",
      '/** @type {string} */',
      `export const dir = ${ok ? 'flags.dir' : 'flags.force'} ?? 'certs'`,
      '',
    ].join('\n'),
  })
  const bad = typecheck(files(false))
  assert.notEqual(bad.status, 0, bad.output)
  assert.match(bad.output, /lib\/core\/n\.ts\(1,14\): error TS2322/)
  assert.match(bad.output, /notebooks\/99-x\.mjs\(5,14\): error TS2322: Type 'string \| boolean' is not assignable to type 'string'/)
  const good = typecheck(files(true))
  assert.equal(good.status, 0, good.output)
})
