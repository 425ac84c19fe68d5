import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { scripts } from '../../lib/docs/help.ts'
import { runtimeImports } from '../support/imports.ts'

/**
 * What a step loads when it runs, followed through every import (static and dynamic, not
 * type-only ones, which load nothing): the report's steps read data and must never load
 * the measuring side, or the image builder and the Docker client come with `npm run report`.
 */

/** Every repository file and npm package a file loads, transitively; `missing`: relative imports that name no file. */
export function closure(entry: string, root = repoRoot): { files: Set<string>; packages: Set<string>; missing: Set<string> } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const missing = new Set<string>()
  const visit = (file: string) => {
    const rel = relative(root, file)
    if (files.has(rel)) return
    if (!existsSync(file)) return void missing.add(rel)
    files.add(rel)
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec))
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)
    }
  }
  visit(resolve(root, entry))
  return { files, packages, missing }
}

const MEASURING = ['setup', 'runtime', 'roles', 'measure', 'series', 'run']
/** Packages only the measuring side uses: loading one is loading the measuring side. */
const MEASURING_PACKAGES = ['dockerode', 'ssh2']

/** The steps that read runs and write reports, baselines or docs (a bench script that starts runs does so as a child process). */
const REPORT_STEPS = [
  'notebooks/12-aggregate.mjs',
  'notebooks/13-report.mjs',
  'notebooks/promote.mjs',
  'notebooks/publish.mjs',
  'notebooks/docs.mjs',
  'bench/report.mjs',
  'bench/stability.mjs',
]
/** The steps that set up, measure or probe: they load the measuring side by design. */
const MEASURING_STEPS = [
  ...[
    '00-setup',
    '01-certs',
    '02-stacks',
    '03-pooling',
    '04-tls',
    '05-websocket',
    '06-versions',
    '07-l4',
    '08-scenarios',
    '09-h2',
    '10-resumption',
    '11-h3',
  ].map((n) => `notebooks/${n}.mjs`),
  ...['archive', 'bisect', 'capacity', 'catalog', 'pool-table', 'run-all', 'work'].map((n) => `notebooks/${n}.mjs`),
  ...['busy-machine', 'counts-overhead', 'kill-resume', 'load-model', 'multihost', 'runtime-ratio', 'work', 'year-later'].map((n) => `bench/${n}.mjs`),
]

function measuringLoads(entry: string, root = repoRoot): string[] {
  const { files, packages } = closure(entry, root)
  return [
    ...[...files].filter((f) => f.startsWith('lib/') && MEASURING.includes(f.split('/')[1]!)),
    ...[...packages].filter((p) => MEASURING_PACKAGES.includes(p)),
  ].sort()
}

test('every notebook and bench script is a report step or a measuring step, and every import it makes resolves', () => {
  const all = scripts(repoRoot)
  assert.deepEqual(
    all.filter((s) => !REPORT_STEPS.includes(s) && !MEASURING_STEPS.includes(s)),
    [],
    'scripts in neither list: add each to REPORT_STEPS or MEASURING_STEPS',
  )
  assert.deepEqual(
    [...REPORT_STEPS, ...MEASURING_STEPS].filter((s) => !all.includes(s)),
    [],
    'listed scripts that do not exist',
  )
  for (const s of all) assert.deepEqual([...closure(s).missing], [], `${s} imports a file that does not exist`)
})

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
  // A type-only export before an import does not make the import type-only; `typeof import()` loads nothing.
  assert.deepEqual(runtimeImports("export type { T }\nimport { a } from './a.ts'\nlet d: typeof import('./d.ts')\n"), ['./a.ts'])
})
