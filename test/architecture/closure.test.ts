import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'

/**
 * What a step loads when it runs, followed through every import (static and dynamic, not
 * type-only ones, which load nothing): the report's steps read data and must never load
 * the measuring side, or the image builder and the Docker client come with `npm run report`.
 */

/** Imports that load code at run time: static, side-effect, re-exports and dynamic import(); `import type` left out. */
export function runtimeImports(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  const out: string[] = []
  for (const m of code.matchAll(/^\s*(import|export)\s+(type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/gm)) if (!m[2]) out.push(m[3]!)
  for (const m of code.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) out.push(m[1]!)
  for (const m of code.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!)
  return out
}

/** Every repository file and npm package a file loads, transitively. */
export function closure(entry: string, root = repoRoot): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    const rel = relative(root, file)
    if (files.has(rel) || !existsSync(file)) return
    files.add(rel)
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec))
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)
    }
  }
  visit(resolve(root, entry))
  return { files, packages }
}

const MEASURING = ['setup', 'runtime', 'roles', 'measure', 'series', 'run']
/** Packages only the measuring side uses: loading one is loading the measuring side. */
const MEASURING_PACKAGES = ['dockerode', 'ssh2']

/** The steps that read a run and write reports or baselines. */
const REPORT_STEPS = ['notebooks/12-aggregate.mjs', 'notebooks/13-report.mjs', 'notebooks/promote.mjs', 'notebooks/publish.mjs', 'bench/report.mjs', 'bench/calibration.mjs']

function measuringLoads(entry: string, root = repoRoot): string[] {
  const { files, packages } = closure(entry, root)
  return [...[...files].filter((f) => f.startsWith('lib/') && MEASURING.includes(f.split('/')[1]!)), ...[...packages].filter((p) => MEASURING_PACKAGES.includes(p))].sort()
}

test('the report steps load nothing of the measuring side, through any chain of imports', () => {
  for (const step of REPORT_STEPS) assert.deepEqual(measuringLoads(step), [], `${step} loads the measuring side`)
})

test('the report side of lib/ loads nothing of the measuring side transitively', () => {
  const reportSide = ['report/build.ts', 'report/site.ts', 'claims/evaluate.ts', 'findings/index.ts', 'analysis/summary.ts'].map((f) => `lib/${f}`)
  for (const f of reportSide) assert.deepEqual(measuringLoads(f), [], f)
})

test('the closure follows dynamic imports and re-exports, skips type-only imports, and catches a chain two files deep', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-closure-'))
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  write('notebooks/r.mjs', "const { a } = await import('../lib/report/a.ts')\n")
  write('lib/report/a.ts', "import type { T } from '../run/types.ts'\nexport { b } from '../cli/b.ts'\n")
  write('lib/cli/b.ts', "import { images } from '../setup/images.ts'\n")
  write('lib/setup/images.ts', "import Docker from 'dockerode'\n")
  write('lib/run/types.ts', '')
  assert.deepEqual(measuringLoads('notebooks/r.mjs', root), ['dockerode', 'lib/setup/images.ts'])
  assert.deepEqual(runtimeImports("// import x from './no.ts'\nimport type { A } from './a.ts'\nimport './side.ts'\n"), ['./side.ts'])
})
