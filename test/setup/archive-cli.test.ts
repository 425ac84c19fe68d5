import assert from 'node:assert/strict'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { exec } from '../../lib/core/exec.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { archiveComponents } from '../../lib/data/archive-index.ts'
import { tempCache } from '../support/temp-cache.ts'
import { archiveBuild, archiveDir } from '../../lib/setup/archive.ts'
import { archiveCommand } from '../../lib/setup/archive-cli.ts'

// `npm run archive` on real files: a run folder whose manifest names one archived build and one not.
const T = tempCache('pb-archive-cli-')

async function archivedRun(): Promise<{ run: string; tree: string }> {
  const root = join(T, 'root')
  mkdirSync(join(root, 'bin'), { recursive: true })
  writeFileSync(join(root, 'bin/haproxy'), '#!/bin/sh\necho haproxy\n')
  chmodSync(join(root, 'bin/haproxy'), 0o755)
  const a = await archiveBuild({ proxy: 'haproxy', version: '3.0.11', build: '3.0.11-1+deb13u5', source: 'debian:trixie', root, binary: 'bin/haproxy' })
  const run = join(T, 'run')
  cpSync(join(repoRoot, 'test/fixtures/run-quick'), run, { recursive: true })
  const m = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8'))
  m.components = [
    { component: 'haproxy', version: '3.0.11', source: 'debian:trixie', path: '/x/bin/haproxy', sha256: a.binary_sha256, archive: a.tree },
    // Measured by the run (its tree named) on a machine whose archive this one does not have.
    { component: 'nginx', version: '1.26.3', source: 'debian:trixie', path: '/x/nginx', sha256: 'a'.repeat(64), archive: 'c'.repeat(64) },
    // Set up, not measured: no tree, not exported.
    { component: 'caddy', version: '2.11.7', source: 'pypi', path: '/x/caddy', sha256: 'd'.repeat(64) },
    { component: 'wrk', version: '4.2.0', source: 'debian', path: '/usr/bin/wrk', sha256: 'b'.repeat(64) },
  ]
  writeFileSync(join(run, 'manifest.json'), JSON.stringify(m, null, 2))
  return { run, tree: a.tree }
}

test('export a run: the archived build goes into the file, the missing one is named, exit 1; import adds it back', async () => {
  const { run, tree } = await archivedRun()
  assert.equal(archiveComponents(run)![0]!.archive, tree, 'the archive field is read as written')
  const file = join(T, 'run.tar.gz')
  const out = await archiveCommand(['export', run, file], memoryLogger())
  assert.equal(out.code, 1)
  assert.ok(existsSync(file))
  const text = out.out.join('\n')
  assert.match(text, /haproxy +3\.0\.11 +3\.0\.11-1\+deb13u5 +debian:trixie +1 +0\.0 MB/)
  assert.match(text, /^missing: nginx 1\.26\.3 \(binary aaaaaaaaaaaa\): not in the archive on this machine$/m)
  assert.doesNotMatch(text, /wrk/, 'only proxies are archived')
  assert.doesNotMatch(text, /caddy/, 'only the builds the run measured')
  assert.match(text, /^in all: 1 builds, 1 distinct files, .* compressed → .*run\.tar\.gz \(\d+\.\ds\)$/m)
  assert.match((await archiveCommand(['list'], memoryLogger())).out.join('\n'), /1 builds, 0\.0 MB in all, 0\.0 MB deduplicated \(1 distinct files\)/)
  rmSync(archiveDir(), { recursive: true })
  assert.match((await archiveCommand(['list'], memoryLogger())).out[0]!, /the archive is empty/)
  const imported = await archiveCommand(['import', file], memoryLogger())
  assert.match(imported.out[0]!, /^added +haproxy 3\.0\.11 \(3\.0\.11-1\+deb13u5, debian:trixie\): 1 files/)
  assert.match(imported.out.at(-1)!, /1 of 1 builds new, every hash verified/)
  assert.match((await archiveCommand(['import', file], memoryLogger())).out[0]!, /^had +haproxy/)
})

test('export to an existing file: refused in one line, its bytes kept; --force replaces it', async () => {
  const { run } = await archivedRun()
  const file = join(T, 'earlier.tar.gz')
  writeFileSync(file, 'an earlier export')
  const beside = () => readdirSync(T).filter((f) => f.startsWith('earlier'))
  await assert.rejects(
    archiveCommand(['export', run, file], memoryLogger()),
    (e: Error) => e.message === `${file}: already exists. Pass --force to replace it, or name another file`,
  )
  assert.equal(readFileSync(file, 'utf8'), 'an earlier export')
  assert.deepEqual(beside(), ['earlier.tar.gz'], 'no temp file left beside it')
  const out = await archiveCommand(['export', run, file], memoryLogger(), { force: true })
  assert.equal(out.code, 1, 'exported, one build missing as before')
  assert.notEqual(readFileSync(file, 'utf8'), 'an earlier export')
  assert.match((await exec('tar', ['-t', '-f', file])).stdout, /^LISTING\.txt$/m)
  assert.deepEqual(beside(), ['earlier.tar.gz'])
})

test('bad input is one line naming what is wrong', async () => {
  const log = memoryLogger()
  await assert.rejects(archiveCommand(['frob'], log), /notebooks\/archive\.mjs: unknown sub-command 'frob'\. Use: npm run archive -- list/)
  await assert.rejects(archiveCommand(['export', 'x'], log), /archive export: takes <run-id\|baseline-id> FILE, got 1 argument/)
  await assert.rejects(archiveCommand(['export', 'no-such-run', join(T, 'x.tar.gz')], log), /: no-such-run: no manifest\.json in results\/no-such-run\//)
  await assert.rejects(archiveCommand(['export', 'no-such-run', join(T, 'x.rar')], log), /x\.rar: not a name an export can take/)
  await assert.rejects(archiveCommand(['import', join(T, 'absent.tar.gz')], log), /absent\.tar\.gz: no such file/)
})

const zx = (args: string[]) =>
  exec('npx', ['zx', 'notebooks/archive.mjs', ...args], { cwd: repoRoot, env: { PROXYBENCH_CACHE: join(T, 'cache') }, timeoutMs: 120_000 })

test('the notebook: --help, a bad sub-command exits 2 with one line', async () => {
  const help = await zx(['--help'])
  assert.equal(help.code, 0)
  assert.match(help.stdout, /^Usage: npm run archive -- list$/m)
  const bad = await zx(['frob'])
  assert.equal(bad.code, 2)
  assert.equal(bad.stderr.trim().split('\n').length, 1)
  assert.match(bad.stderr, /^proxybench: notebooks\/archive\.mjs: unknown sub-command 'frob'/)
  const flag = await zx(['list', '--nope'])
  assert.equal(flag.code, 2)
  assert.match(flag.stderr, /--nope/)
  const existing = join(T, 'existing.tar.gz')
  writeFileSync(existing, 'kept')
  const refused = await zx(['export', 'no-such-run', existing])
  assert.equal(refused.code, 2)
  assert.equal(refused.stderr, `proxybench: ${existing}: already exists. Pass --force to replace it, or name another file\n`)
  // --force reaches export: past the existing file, on to the run it cannot find.
  assert.match((await zx(['export', 'no-such-run', existing, '--force'])).stderr, /no-such-run: no manifest\.json/)
  assert.equal(readFileSync(existing, 'utf8'), 'kept')
})
