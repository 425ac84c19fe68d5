import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { test } from 'node:test'
import { loadRun } from '../../lib/data/run-data.ts'
import { SCHEMA_VERSION } from '../../lib/data/schema.ts'
import { listBaselines, loadBaseline, promote } from '../../lib/data/baselines.ts'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { repoRoot } from '../../lib/core/paths.ts'

const fixture = join(repoRoot, 'test/fixtures/run-quick')

/** A copy of the fixture run with a few things a real run directory has beside the data. */
function runCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-baseline-'))
  for (const f of readdirSync(fixture)) writeFileSync(join(dir, f), readFileSync(join(fixture, f)))
  mkdirSync(join(dir, 'raw'))
  writeFileSync(join(dir, 'raw', 'wrk.txt'), 'raw tool output')
  mkdirSync(join(dir, 'configs'))
  writeFileSync(join(dir, 'configs', 'leaf.key'), 'not for baselines')
  return dir
}

test('promote copies the CSVs and manifest only, validated, and refuses to overwrite', () => {
  const run = runCopy()
  const dir = mkdtempSync(join(tmpdir(), 'pb-baselines-'))
  const target = promote(run, { id: 'b1', dir, log: memoryLogger() })
  assert.deepEqual(
    readdirSync(target).sort(),
    readdirSync(fixture)
      .filter((f) => /\.(csv|json)$/.test(f))
      .sort(),
  )
  assert.deepEqual(listBaselines(dir), [{ id: 'b1', kind: 'run' }])
  assert.equal(loadRun(target).measurements.length, loadRun(run).measurements.length)
  assert.throws(() => promote(run, { id: 'b1', dir, log: memoryLogger() }), /exists.*--force/)
  promote(run, { id: 'b1', dir, force: true, log: memoryLogger() })
  assert.throws(() => promote(run, { id: '../x', dir, log: memoryLogger() }), /not a usable baseline id/)
})

test('promote --force swaps by rename: the old baseline stays whole until the new one is in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-baselines-'))
  const first = runCopy()
  promote(first, { id: 'b2', dir, log: memoryLogger() })
  const oldManifest = readFileSync(join(dir, 'b2', 'manifest.json'), 'utf8')
  // A second run, told apart by its manifest.
  const second = runCopy()
  const m = JSON.parse(readFileSync(join(second, 'manifest.json'), 'utf8'))
  writeFileSync(join(second, 'manifest.json'), JSON.stringify({ ...m, started: '2026-12-01T00:00:00.000Z' }, null, 2))
  // The rename that brings the new one in fails: the old one is back, nothing else is left.
  const calls: string[] = []
  const failing = ((from: string, to: string) => {
    calls.push(`${basename(from)} → ${basename(to)}`)
    if (basename(to) === 'b2' && basename(from).includes('.new-')) throw new Error('EIO (simulated)')
    renameSync(from, to)
  }) as typeof renameSync
  assert.throws(() => promote(second, { id: 'b2', dir, force: true, log: memoryLogger(), rename: failing }), /EIO/)
  assert.deepEqual(calls, [`b2 → .b2.old-${process.pid}`, `.b2.new-${process.pid} → b2`, `.b2.old-${process.pid} → b2`], 'never deleted first')
  assert.equal(readFileSync(join(dir, 'b2', 'manifest.json'), 'utf8'), oldManifest)
  assert.deepEqual(readdirSync(dir), ['b2'])
  // A second run that does not validate: the old one is untouched.
  const bad = runCopy()
  writeFileSync(join(bad, 'measurements.csv'), 'not,a,header\n1,2,3\n')
  assert.throws(() => promote(bad, { id: 'b2', dir, force: true, log: memoryLogger() }), UserError)
  assert.equal(readFileSync(join(dir, 'b2', 'manifest.json'), 'utf8'), oldManifest)
  assert.deepEqual(readdirSync(dir), ['b2'])
  // The real swap.
  promote(second, { id: 'b2', dir, force: true, log: memoryLogger() })
  assert.equal(JSON.parse(readFileSync(join(dir, 'b2', 'manifest.json'), 'utf8')).started, '2026-12-01T00:00:00.000Z')
  assert.deepEqual(readdirSync(dir), ['b2'], 'no temp or old dir left')
  // A temp dir a crash left is never listed as a baseline.
  mkdirSync(join(dir, '.b3.new-1'))
  writeFileSync(join(dir, '.b3.new-1', 'manifest.json'), oldManifest)
  assert.deepEqual(listBaselines(dir), [{ id: 'b2', kind: 'run' }])
})

test('a malformed CSV promotes nothing and names the file and line', () => {
  const run = runCopy()
  const csv = join(run, 'measurements.csv')
  const lines = readFileSync(csv, 'utf8').split('\n')
  lines[3] = lines[3]!.replace(/,ec256,closed,200,/, ',ec256,closed,two hundred,')
  writeFileSync(csv, lines.join('\n'))
  const dir = mkdtempSync(join(tmpdir(), 'pb-baselines-'))
  assert.throws(
    () => promote(run, { id: 'bad', dir, log: memoryLogger() }),
    (e: Error) => e instanceof UserError && /measurements\.csv:4: column connections/.test(e.message),
  )
  assert.equal(existsSync(join(dir, 'bad')), false)
})

test('a missing column and another schema version are one-line errors', () => {
  const run = runCopy()
  const csv = join(run, 'measurements.csv')
  // The run_id column gone from the header and from every row (papaparse keeps the fields aligned).
  writeFileSync(
    csv,
    readFileSync(csv, 'utf8')
      .split('\n')
      .map((l) => l.replace(/^[^,]*,/, ''))
      .join('\n'),
  )
  assert.throws(
    () => loadRun(run),
    (e: Error) =>
      e instanceof UserError && /measurements\.csv:1: column "run_id" missing from the header: every file of schema version 1 has it\./.test(e.message),
  )
  const other = runCopy()
  const m = JSON.parse(readFileSync(join(other, 'manifest.json'), 'utf8'))
  writeFileSync(join(other, 'manifest.json'), JSON.stringify({ ...m, schema_version: 99 }))
  assert.throws(
    () => loadRun(other),
    (e: Error) =>
      e instanceof UserError && new RegExp(`schema version 99, this harness reads 1 to ${SCHEMA_VERSION}`).test(e.message) && !e.message.includes('\n'),
  )
})

test('the published baseline 2026-08-23 is listed; an unknown id names the known ones', () => {
  assert.ok(listBaselines().some((b) => b.id === '2026-08-23' && b.kind === 'published'))
  assert.equal(loadBaseline('2026-08-23').kind, 'published')
  assert.throws(
    () => loadBaseline('1999-01-01'),
    (e: Error) => e instanceof UserError && /unknown baseline \(known: .*2026-08-23/.test(e.message),
  )
})
