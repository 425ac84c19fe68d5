import assert from 'node:assert/strict'
import { builtinModules } from 'node:module'
import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { bareImports, sourceFiles } from '../support/imports.ts'

/**
 * Every package the code imports is declared in package.json: one that only arrives
 * through another package's dependencies (ssh2 through docker-modem) disappears the day
 * that package drops or moves it, and npm ci then installs a tree that cannot run.
 */
const SCANNED = ['lib', 'notebooks', 'bench', 'test']
const SOURCE = /\.(ts|mts|mjs|js|cjs)$/

const sources = (dir: string) => sourceFiles(dir, SOURCE, ['node_modules', 'fixtures'])

/** The package a specifier loads: `@scope/name` or `name` (a subpath dropped). */
export const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)

/** What is wrong with each file's imports, given the declared packages; node: builtins are always there. */
export function undeclared(files: { path: string; text: string }[], declared: Set<string>): string[] {
  const out: string[] = []
  for (const f of files) {
    for (const spec of bareImports(f.text)) {
      if (spec.startsWith('node:')) continue
      const pkg = packageOf(spec)
      if (builtinModules.includes(pkg)) out.push(`${f.path} imports "${spec}": write node:${spec} (a builtin, named so)`)
      else if (!declared.has(pkg)) out.push(`${f.path} imports "${spec}": ${pkg} is not in package.json (npm install ${pkg})`)
    }
  }
  return out
}

const pkgJson = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
}
const declared = new Set([...Object.keys(pkgJson.dependencies ?? {}), ...Object.keys(pkgJson.devDependencies ?? {})])
const files = SCANNED.flatMap((d) => sources(join(repoRoot, d))).map((p) => ({ path: relative(repoRoot, p), text: readFileSync(p, 'utf8') }))

test('every package imported in lib/, notebooks/, bench/ and test/ is declared in package.json', () => {
  assert.ok(files.length > 100, `${files.length} files scanned`)
  assert.deepEqual(undeclared(files, declared), [])
})

test('a TypeScript import of a package without its own types declares its @types package', () => {
  const out: string[] = []
  for (const f of files.filter((x) => x.path.endsWith('.ts'))) {
    for (const pkg of new Set(
      bareImports(f.text)
        .filter((s) => !s.startsWith('node:'))
        .map(packageOf),
    )) {
      const dir = join(repoRoot, 'node_modules', pkg)
      const meta = existsSync(join(dir, 'package.json')) ? (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>) : {}
      const ownTypes =
        meta.types !== undefined || meta.typings !== undefined || existsSync(join(dir, 'index.d.ts')) || JSON.stringify(meta.exports ?? '').includes('"types"')
      const typesPkg = `@types/${pkg.replace(/^@/, '').replace('/', '__')}`
      if (!ownTypes && existsSync(join(repoRoot, 'node_modules', typesPkg)) && !declared.has(typesPkg))
        out.push(`${f.path} imports ${pkg}, typed by ${typesPkg}, which is not in package.json (npm install -D ${typesPkg})`)
    }
  }
  assert.deepEqual([...new Set(out)], [])
})

test('the scan sees every import form, and names an undeclared package and a builtin without node:', () => {
  // Built with Q for the quote, so this file's own scan does not read these as its imports.
  const Q = "'"
  const text = [
    `import { a } from ${Q}declared-pkg${Q}`,
    `import type { B } from ${Q}@scope/typed/sub${Q}`,
    `import ${Q}side-effect${Q}`,
    `export { c } from ${Q}reexported${Q}`,
    `const d = await import(${Q}dynamic${Q})`,
    `const e = require(${Q}required${Q})`,
    `import { join } from ${Q}node:path${Q}`,
    `import { readFileSync } from ${Q}fs${Q}`,
    `import { x } from ${Q}./local.ts${Q}`,
    'const s = `import { y } from ${JSON.stringify(p)}`',
  ].join('\n')
  assert.deepEqual(bareImports(text).sort(), ['@scope/typed/sub', 'declared-pkg', 'dynamic', 'fs', 'node:path', 'reexported', 'required', 'side-effect'])
  assert.deepEqual(undeclared([{ path: 'lib/a.ts', text }], new Set(['declared-pkg', '@scope/typed', 'side-effect', 'reexported', 'dynamic'])).sort(), [
    'lib/a.ts imports "fs": write node:fs (a builtin, named so)',
    'lib/a.ts imports "required": required is not in package.json (npm install required)',
  ])
})
