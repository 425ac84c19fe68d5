import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { CELL_COLUMNS } from '../../lib/data/grouping.ts'
import { relativeImports, sourceFiles } from '../support/imports.ts'

/**
 * The layout's import rules (CONTRIBUTING.md#layout), read from the sources: the report side
 * works from data and never loads the measuring side; only notebooks use cli/.
 */
const LIB = join(repoRoot, 'lib')

const sources = (dir: string) => sourceFiles(dir)

/** Relative imports of a file (static, dynamic and type-only), as paths relative to the repository. */
const importsOf = (file: string, root: string): string[] => relativeImports(file, readFileSync(file, 'utf8'), root)

const folderOf = (path: string) => path.split('/')[1]!

/**
 * Which lib/ folders each folder may import; a folder absent here (setup, roles, runtime,
 * run, bench) may import anything but cli/. bench/ holds the harness benchmarks' logic, which
 * measures and reports alike, so it may import both sides; nothing else in lib/ imports it.
 */
const ALLOWED: Record<string, readonly string[]> = {
  core: ['core'],
  data: ['data', 'core', 'catalog'],
  catalog: ['catalog', 'core'],
  analysis: ['analysis', 'data', 'claims', 'catalog', 'core'],
  findings: ['findings', 'claims', 'data', 'catalog', 'core'],
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
      if (to === 'bench' && folder !== 'bench') out.push(`${from} imports ${target}: only bench scripts use bench/`)
      const allowed = ALLOWED[folder]
      if (allowed && !allowed.includes(to)) out.push(`${from} imports ${target}: ${folder}/ may import only ${allowed.join(', ')}`)
    }
  }
  return out
}

test('lib/ follows the layout: the report side never imports the measuring side, nothing but notebooks imports cli/ or bench/', () => {
  assert.deepEqual(violations(sources(LIB)), [])
})

/** lib/'s folders; CONTRIBUTING.md's layout lists each (the docs check holds it to this tree). */
const STAGE_FOLDERS = [
  'analysis',
  'bench',
  'catalog',
  'claims',
  'cli',
  'core',
  'data',
  'docs',
  'findings',
  'measure',
  'report',
  'roles',
  'run',
  'runtime',
  'series',
  'setup',
]

test('every file of lib/ sits in a stage folder, none loose at the root', () => {
  const loose = readdirSync(LIB).filter((f) => !statSync(join(LIB, f)).isDirectory())
  assert.deepEqual(loose, [])
  assert.deepEqual(
    readdirSync(LIB).filter((f) => !STAGE_FOLDERS.includes(f)),
    [],
  )
})

/** Files only bench scripts load that stay in their stage folder, and why. */
const BENCH_ONLY_ELSEWHERE: Record<string, string> = {
  'lib/cli/load-model-options.ts': 'flags into typed options live in cli/',
  'lib/cli/run-all-argv.ts': "a notebook's command line lives in cli/",
  'lib/measure/neighbour.ts': 'the disturbance tests start the same neighbour',
}

/** lib/ files (outside bench/) whose every importer in lib/, notebooks/ and bench/ is a bench script or lib/bench/. */
export function benchOnly(files: readonly string[], root = repoRoot): string[] {
  const importers = new Map<string, Set<string>>()
  for (const file of files) for (const target of importsOf(file, root)) importers.set(target, (importers.get(target) ?? new Set()).add(relative(root, file)))
  return [...importers]
    .filter(
      ([target, from]) =>
        target.startsWith('lib/') && folderOf(target) !== 'bench' && [...from].every((f) => f.startsWith('bench/') || f.startsWith('lib/bench/')),
    )
    .map(([target]) => target)
    .sort()
}

const scripts = (dir: string) =>
  readdirSync(join(repoRoot, dir))
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => join(repoRoot, dir, f))

test('lib/bench/ mirrors bench/: each file is the logic of the bench script of its name, and what only bench scripts load is there', () => {
  const names = new Set(scripts('bench').map((f) => f.replace(/^.*\/|\.mjs$/g, '')))
  assert.deepEqual(
    readdirSync(join(LIB, 'bench')).filter((f) => !names.has(f.replace(/\.ts$/, ''))),
    [],
  )
  const loaders = [...sources(LIB), ...scripts('notebooks'), ...scripts('bench')]
  assert.deepEqual(
    benchOnly(loaders).filter((f) => !BENCH_ONLY_ELSEWHERE[f]),
    [],
  )
  for (const f of Object.keys(BENCH_ONLY_ELSEWHERE))
    assert.ok(benchOnly(loaders).includes(f), `${f} is no longer loaded by bench scripts only: take it out of BENCH_ONLY_ELSEWHERE`)
})

test('the rule check catches a report file that imports the run, findings that import a runtime, any use of cli/, and bench/ used from lib/', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-rules-'))
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  write('lib/report/page.ts', "import { runBench } from '../run/run.ts'\nimport { esc } from './markdown.ts'\n")
  write('lib/findings/f.ts', "import type { Runtime } from '../runtime/types.ts'\n")
  write('lib/setup/s.ts', "const m = await import('../cli/flags.ts')\n")
  write('lib/run/ok.ts', "import { measureClosed } from '../measure/closed.ts'\n")
  write('lib/bench/ok.ts', "import { runBench } from '../run/run.ts'\nimport { buildReport } from '../report/build.ts'\n")
  write('lib/run/r.ts', "import { runKillResume } from '../bench/kill-resume.ts'\n")
  assert.deepEqual(violations(sources(join(root, 'lib')), root).sort(), [
    'lib/findings/f.ts imports lib/runtime/types.ts: findings/ may import only findings, claims, data, catalog, core',
    'lib/report/page.ts imports lib/run/run.ts: report/ may import only report, data, analysis, findings, claims, catalog, core',
    'lib/run/r.ts imports lib/bench/kill-resume.ts: only bench scripts use bench/',
    'lib/setup/s.ts imports lib/cli/flags.ts: only notebooks use cli/',
  ])
})

test('raw file names are built and parsed in data/raw-files.ts only', () => {
  const offenders = sources(LIB).filter(
    (f) => !f.endsWith('data/raw-files.ts') && /\.(open|handshake|ws-echo|ws-hold)\.json|\.wrk\.txt/.test(readFileSync(f, 'utf8')),
  )
  assert.deepEqual(
    offenders.map((f) => relative(repoRoot, f)),
    [],
  )
})

/** Every column that identifies a cell in some table (lib/data/grouping.ts CELL_COLUMNS). */
const CELL_WORDS = [...new Set(Object.values(CELL_COLUMNS).flat())]

/** Template literals that join interpolations of cell columns with `|`: a cell key made by hand. */
function handMadeKeys(text: string): string[] {
  return [...text.matchAll(/`[^`]*`/g)]
    .map((m) => m[0])
    .filter(
      (literal) =>
        literal.includes('}|${') && [...literal.matchAll(/\$\{([^}]*)\}/g)].some((x) => CELL_WORDS.some((w) => new RegExp(`\\b${w}\\b`).test(x[1]!))),
    )
}

/**
 * A map of arrays filled by hand, the grouping lib/data/grouping.ts does (groupBy, groupRows,
 * groupCells): `m.set(k, [...(m.get(k) ?? []), r])`, a group started by hand (`m.set(k, [r])`),
 * or pushed into (`(m[k] ??= []).push(r)`, `m.get(k)!.push(r)`).
 */
export const handMadeGroups = (text: string) =>
  [
    ...text.matchAll(/\.set\(([^\n]+?), \[\.\.\.\(\w+\.get\(\1\)/g),
    ...text.matchAll(/\.set\([^\n]+?, \[\w+\]\)/g),
    ...text.matchAll(/(?:\?\?|\|\|)= \[\]\)\.push\(/g),
    ...text.matchAll(/\.get\([^\n]+?\)[!?]\.push\(/g),
  ].map((m) => m[0])

/** Files of lib/ that fill a map of arrays by hand on purpose, and why: none groups rows. */
const GROUPS_BY_HAND: Record<string, string> = {
  'lib/data/grouping.ts': 'the one home of grouping',
  'lib/measure/culprits.ts': 'a process tree (child pids by parent pid), not rows',
}

/** The stages that group rows into cells (CONTRIBUTING.md#grouping) import lib/data/grouping.ts; by file name within lib/, wherever their folder moves. */
const GROUPING_CONSUMERS = [
  'analysis/cells.ts',
  'claims/cells.ts',
  'findings/pooling.ts',
  'analysis/l4.ts',
  'load-model.ts',
  'run/phase.ts',
  'series/open-rate.ts',
  'data/tables.ts',
  'data/quiet.ts',
  'analysis/h3.ts',
  'analysis/protocols.ts',
  'report/sections/latency.ts',
  'bench/stability.ts',
  'bench/busy-machine.ts',
]

test('cell keys are made in lib/data/grouping.ts only: no template literal joins cell columns with |', () => {
  const offenders = sources(LIB)
    .filter((f) => !f.endsWith('data/grouping.ts'))
    .flatMap((f) => handMadeKeys(readFileSync(f, 'utf8')).map((k) => `${relative(repoRoot, f)}: ${k}`))
  assert.deepEqual(offenders, [])
})

test('no file of lib/ groups rows by hand: every map of arrays is filled through lib/data/grouping.ts', () => {
  const byHand = sources(LIB).flatMap((f) => handMadeGroups(readFileSync(f, 'utf8')).map((g) => `${relative(repoRoot, f)}: ${g}`))
  assert.deepEqual(
    byHand.filter((g) => !GROUPS_BY_HAND[g.slice(0, g.indexOf(':'))]),
    [],
  )
  for (const f of Object.keys(GROUPS_BY_HAND))
    assert.ok(
      byHand.some((g) => g.startsWith(`${f}:`)),
      `${f} no longer groups by hand: take it out of GROUPS_BY_HAND`,
    )
})

test('the stages that group rows into cells group through lib/data/grouping.ts', () => {
  const files = sources(LIB).filter((f) => GROUPING_CONSUMERS.some((c) => f.endsWith(`/${c}`)))
  assert.equal(files.length, GROUPING_CONSUMERS.length, `found ${files.map((f) => relative(repoRoot, f)).join(', ')}`)
  const notThrough = files.filter((f) => !importsOf(f, repoRoot).includes('lib/data/grouping.ts')).map((f) => relative(repoRoot, f))
  assert.deepEqual(notThrough, [])
  // The series' open-model rates come from one module.
  for (const series of ['pooling.ts', 'tls.ts']) assert.ok(importsOf(join(LIB, 'series', series), repoRoot).includes('lib/series/open-rate.ts'), series)
})

test('the key rules catch a hand-made cell key and each form of a hand-filled group, not a label, a count or another key', () => {
  assert.deepEqual(handMadeKeys('const k = `${r.proxy}|${r.version}|${r.variant}`'), ['`${r.proxy}|${r.version}|${r.variant}`'])
  assert.deepEqual(handMadeKeys('const k = `${table}|${metric}`; const label = `${r.proxy} ${r.version}`'), [])
  // A new file of lib/ that groups by hand: each form is caught.
  const newFile = [
    'for (const r of rows) groups.set(id, [...(groups.get(id) ?? []), r])',
    'clean.set(cellOf(t, r), [...(clean.get(cellOf(t, r)) ?? []), v])',
    'if (g) g.push(r)\nelse groups.set(id, [r])',
    ';(byProxy[r.proxy] ??= []).push(r)',
    'byProxy.get(r.proxy)!.push(r)',
  ].join('\n')
  assert.equal(handMadeGroups(newFile).length, 5)
  assert.deepEqual(handMadeGroups('counts.set(id, (counts.get(id) ?? 0) + 1)\nseen.set(id, true)\nconst groups = groupBy(rows, (r) => [r.proxy])'), [])
})
