import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'

/**
 * The layout's import rules (CONTRIBUTING.md#layout), read from the sources: the report side
 * works from data and never loads the measuring side; only notebooks use cli/.
 */
const LIB = join(repoRoot, 'lib')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : []
  })
}

/** Relative imports of a file (static, dynamic and type-only), as paths relative to the repository. */
function importsOf(file: string, root: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!)
  return specs.map((s) => relative(root, resolve(dirname(file), s)))
}

const folderOf = (path: string) => path.split('/')[1]!

/** Which lib/ folders each folder may import; a folder absent here may import anything but cli/. */
const ALLOWED: Record<string, readonly string[]> = {
  core: ['core'],
  data: ['data', 'core', 'catalog'],
  catalog: ['catalog', 'core'],
  analysis: ['analysis', 'data', 'claims', 'catalog', 'core'],
  findings: ['findings', 'data', 'catalog', 'core'],
  claims: ['claims', 'data', 'catalog', 'core'],
  report: ['report', 'data', 'analysis', 'findings', 'claims', 'catalog', 'core'],
  docs: ['docs', 'report', 'data', 'analysis', 'findings', 'claims', 'catalog', 'core'],
  series: ['series', 'measure', 'roles', 'runtime', 'setup', 'data', 'catalog', 'core'],
  measure: ['measure', 'roles', 'runtime', 'setup', 'data', 'catalog', 'core'],
}

function violations(files: readonly string[], root = repoRoot): string[] {
  const out: string[] = []
  for (const file of files) {
    const from = relative(root, file)
    const folder = folderOf(from)
    for (const target of importsOf(file, root)) {
      if (!target.startsWith('lib/')) continue
      const to = folderOf(target)
      if (to === 'cli' && folder !== 'cli') out.push(`${from} imports ${target}: only notebooks use cli/`)
      const allowed = ALLOWED[folder]
      if (allowed && !allowed.includes(to)) out.push(`${from} imports ${target}: ${folder}/ may import only ${allowed.join(', ')}`)
    }
  }
  return out
}

test('lib/ follows the layout: the report side never imports the measuring side, nothing but notebooks imports cli/', () => {
  assert.deepEqual(violations(sources(LIB)), [])
})

test('every file of lib/ sits in a stage folder, none loose at the root', () => {
  const loose = readdirSync(LIB).filter((f) => !statSync(join(LIB, f)).isDirectory())
  assert.deepEqual(loose, [])
  assert.deepEqual(readdirSync(LIB).filter((f) => !['analysis', 'catalog', 'claims', 'cli', 'core', 'data', 'docs', 'findings', 'measure', 'report', 'roles', 'run', 'runtime', 'series', 'setup'].includes(f)), [])
})

test('the rule check catches a report file that imports the run, findings that import a runtime, and any use of cli/', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-rules-'))
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  write('lib/report/page.ts', "import { runBench } from '../run/run.ts'\nimport { esc } from './markdown.ts'\n")
  write('lib/findings/f.ts', "import type { Runtime } from '../runtime/types.ts'\n")
  write('lib/setup/s.ts', "const m = await import('../cli/flags.ts')\n")
  write('lib/run/ok.ts', "import { measureClosed } from '../measure/closed.ts'\n")
  assert.deepEqual(violations(sources(join(root, 'lib')), root).sort(), [
    'lib/findings/f.ts imports lib/runtime/types.ts: findings/ may import only findings, data, catalog, core',
    'lib/report/page.ts imports lib/run/run.ts: report/ may import only report, data, analysis, findings, claims, catalog, core',
    'lib/setup/s.ts imports lib/cli/flags.ts: only notebooks use cli/',
  ])
})

test('raw file names are built and parsed in data/raw-files.ts only', () => {
  const offenders = sources(LIB).filter((f) => !f.endsWith('data/raw-files.ts') && /\.(open|handshake|ws-echo|ws-hold)\.json|\.wrk\.txt/.test(readFileSync(f, 'utf8')))
  assert.deepEqual(offenders.map((f) => relative(repoRoot, f)), [])
})
