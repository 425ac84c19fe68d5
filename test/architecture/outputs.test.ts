import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { repoRoot } from '../../lib/core/paths.ts'
import { sourceFiles } from '../support/imports.ts'

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

/** A write that bypasses lib/core/atomic.ts: a file written, appended or streamed to in place. */
const DIRECT_WRITES = /\b(writeFileSync|appendFileSync|createWriteStream|writeFile|appendFile)\s*\(/

/**
 * Files of lib/ that write files in place on purpose, and why: none writes a step's output
 * (those go through writeOutputs / writeFileAtomic). Every other file of lib/ writes through
 * lib/core/atomic.ts or not at all.
 */
const WRITES_IN_PLACE: Record<string, string> = {
  'lib/core/atomic.ts': 'the writer itself',
  'lib/core/hash.ts': 'a checksum cache stamp under ~/.cache (rewritten when missing)',
  'lib/report/publish.ts': 'marks into a staged copy that is swapped in whole',
  'lib/roles/proxy.ts': "a proxy's rendered config in its scratch folder",
  'lib/runtime/docker/host-keys.ts': 'appends to known_hosts (what ssh reads)',
  'lib/runtime/docker/lifecycle.ts': "a container's log, streamed as it runs",
  'lib/setup/apt.ts': "policy-rc.d in a chroot (Debian's own mechanism)",
  'lib/setup/certs.ts': 'certificates in a temp folder, renamed into place as a set',
  'lib/setup/docker-engine.ts': "the started dockerd's pid file",
  'lib/setup/images/base.ts': 'apt sources inside the image root being built',
  'lib/setup/suites.ts': 'apt sources inside a suite root being built',
}

const sources = (dir: string) => sourceFiles(dir)

/** Lines of a source that match `pattern` (default: any write), comments left out. */
export function writingLines(text: string, pattern = WRITES): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((l) => !/^\s*\/\//.test(l) && pattern.test(l))
    .map((l) => l.trim())
}

/** Files of lib/ (relative paths and their texts) that write in place without being listed, each with its first such line. */
export function inPlaceWriters(files: readonly { path: string; text: string }[], allowed: Readonly<Record<string, string>> = WRITES_IN_PLACE): string[] {
  return files.flatMap((f) => {
    const lines = writingLines(f.text, DIRECT_WRITES)
    return lines.length && !allowed[f.path] ? [`${f.path}: ${lines[0]}`] : []
  })
}

test('lib/analysis/ writes nothing and the producers of outputs write only through writeOutputs', () => {
  const files = [...PURE.flatMap((d) => sources(join(repoRoot, d))), ...THROUGH_ONE_WRITER.map((f) => join(repoRoot, f))]
  const offenders = [...new Set(files)].flatMap((f) => writingLines(readFileSync(f, 'utf8')).map((l) => `${relative(repoRoot, f)}: ${l}`))
  assert.deepEqual(offenders, [])
})

test('every file of lib/ writes through lib/core/atomic.ts, but the few listed that write in place', () => {
  const files = sources(join(repoRoot, 'lib')).map((p) => ({ path: relative(repoRoot, p), text: readFileSync(p, 'utf8') }))
  assert.deepEqual(inPlaceWriters(files), [])
  for (const f of Object.keys(WRITES_IN_PLACE))
    assert.ok(
      inPlaceWriters(files, {}).some((l) => l.startsWith(`${f}:`)),
      `${f} no longer writes in place: take it out of WRITES_IN_PLACE`,
    )
})

test('a new file of lib/ that writes a file in place fails the write rule; one that writes through the writer does not', () => {
  const newFile = { path: 'lib/measure/new-probe.ts', text: "import { writeFileSync } from 'node:fs'\nwriteFileSync(raw, s.stdout)\n" }
  assert.deepEqual(inPlaceWriters([newFile]), ['lib/measure/new-probe.ts: writeFileSync(raw, s.stdout)'])
  assert.deepEqual(inPlaceWriters([{ path: 'lib/measure/new-probe.ts', text: 'writeFileAtomic(raw, s.stdout)\n' }]), [])
  assert.deepEqual(inPlaceWriters([{ path: 'lib/run/log.ts', text: "const log = createWriteStream(file, { flags: 'a' })\n" }]).length, 1)
})

test('the check sees a write in code and not in a comment', () => {
  assert.deepEqual(writingLines('// writeFileAtomic(x, y) is not called here\nconst a = 1\n  writeFileAtomic(join(dir, name), text)\n/* rmSync(x) */\n'), [
    'writeFileAtomic(join(dir, name), text)',
  ])
  assert.deepEqual(writingLines('writeOutputs(dir, summaryOutputs(a))\n'), [])
})
