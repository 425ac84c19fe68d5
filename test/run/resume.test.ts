import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { parseRunOptions, type RunFlags } from '../../lib/cli/run-options.ts'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { SCHEMA_VERSION } from '../../lib/data/schema.ts'
import { checkLateChanges, openRun } from '../../lib/run/resume.ts'

const T = mkdtempSync(join(tmpdir(), 'pb-resume-'))
after(() => rmSync(T, { recursive: true, force: true }))
/** A copy of the fixture run: profile quick, all five proxies, docker, cpusets proxy=1 backend=0 generator=0. */
const finished = join(T, 'finished')
cpSync(join(repoRoot, 'test/fixtures/run-quick'), finished, { recursive: true })
// As if this harness wrote it: a schema version apart is a difference of its own (test/run/provenance.test.ts).
const manifest = JSON.parse(readFileSync(join(finished, 'manifest.json'), 'utf8'))
manifest.schema_version = SCHEMA_VERSION
for (const i of manifest.invocations) i.schema_version = SCHEMA_VERSION
writeFileSync(join(finished, 'manifest.json'), JSON.stringify(manifest))
const asRun: RunFlags = { runtime: 'docker', cpus: 'proxy=1 backend=0 generator=0' }
const options = (f: RunFlags) => {
  const log = memoryLogger()
  return { o: parseRunOptions({ ...asRun, ...f }, { install: false, log }), log }
}

test('a new run directory: nothing before it, no changes', () => {
  const { o } = options({ out: join(T, 'new') })
  const run = openRun(o)
  assert.equal(run.runDir, join(T, 'new'))
  assert.equal(run.runId, 'new')
  assert.equal(run.previous, undefined)
  assert.deepEqual(run.changes, [])
})

test('a directory that holds a run is refused without --resume; with it, the run is read', () => {
  assert.throws(
    () => openRun(options({ out: finished }).o),
    (e: Error) => e instanceof UserError && /already holds a run\. Add --resume/.test(e.message),
  )
  const run = openRun(options({ out: finished, resume: true }).o)
  assert.equal(run.previous?.profile, 'quick', 'the fixture manifest is read')
  assert.ok(!run.changes.some((c) => c.startsWith('--profile')), run.changes.join('; '))
})

test('a resume whose settings differ is refused; --allow-changes measures on and says each difference', () => {
  assert.throws(
    () => openRun(options({ out: finished, resume: true, profile: 'smoke' }).o),
    (e: Error) =>
      e instanceof UserError &&
      e.message.startsWith(`--resume: ${finished} differs from the run it resumes: `) &&
      e.message.includes('--profile quick → smoke'),
  )
  const { o, log } = options({ out: finished, resume: true, profile: 'smoke', 'allow-changes': true })
  const run = openRun(o)
  assert.ok(run.changes.includes('--profile quick → smoke'), run.changes.join('; '))
  assert.ok(log.lines.includes('warning: resume with --allow-changes: --profile quick → smoke'), log.lines.join('\n'))
})

test('the runtime auto chose is checked once known, by the same rule, and each difference is recorded once', () => {
  const auto = options({ out: finished, resume: true, runtime: 'auto' }).o
  const run = openRun(auto)
  assert.ok(!run.changes.some((c) => c.startsWith('--runtime')), "auto matches the run's docker before it has chosen")
  assert.throws(
    () => checkLateChanges(auto, run, 'native', auto.cpus),
    (e: Error) => e instanceof UserError && e.message.includes('--runtime docker → native'),
  )
  const allowed = options({ out: finished, resume: true, runtime: 'auto', 'allow-changes': true }).o
  const later = openRun(allowed)
  const before = later.changes.length
  checkLateChanges(allowed, later, 'native', allowed.cpus)
  checkLateChanges(allowed, later, 'native', allowed.cpus)
  assert.equal(later.changes.length, before + 1)
  assert.ok(later.changes.includes('--runtime docker → native'))
})
