import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { after, before, describe } from 'node:test'
import { loadStack, type StackVersion } from '../../lib/catalog/stack.ts'
import { cacheDir } from '../../lib/core/paths.ts'
import { consoleLogger } from '../../lib/core/log.ts'
import { sha256Text } from '../../lib/core/hash.ts'
import { suiteRow } from '../../lib/setup/builds.ts'
import { baseTarball } from '../../lib/setup/images/base.ts'
import { testNeeding } from '../support/needs.ts'

/**
 * The build rule of lib/setup/builds.ts on real apt: a local Debian repository (dpkg-deb,
 * apt-ftparchive) served as a `file:` source to the trixie roots, holding a small package in
 * two revisions of one upstream version and one of another.
 */
const SUITE = 'trixie'
const PKG = 'proxybench-testpkg'
const realImages = join(cacheDir(), 'images')
const cache = mkdtempSync(join(tmpdir(), 'pb-builds-cache-'))
const work = mkdtempSync(join(tmpdir(), 'pb-builds-'))
process.env.PROXYBENCH_CACHE = cache

const script = (rev: string) => `#!/bin/sh\necho ${PKG} ${rev}\n`

function buildDeb(debVersion: string, dir: string): string {
  const root = join(work, `pkg-${debVersion}`)
  mkdirSync(join(root, 'DEBIAN'), { recursive: true })
  mkdirSync(join(root, 'usr/bin'), { recursive: true })
  writeFileSync(
    join(root, 'DEBIAN/control'),
    `Package: ${PKG}\nVersion: ${debVersion}\nArchitecture: all\nMaintainer: proxybench <test@localhost>\nDescription: test package\n`,
  )
  writeFileSync(join(root, `usr/bin/${PKG}`), script(debVersion), { mode: 0o755 })
  const deb = join(dir, `${PKG}_${debVersion}_all.deb`)
  execFileSync('dpkg-deb', ['--root-owner-group', '--build', root, deb], { stdio: 'ignore' })
  return deb
}

/** A flat repository in its own folder holding these revisions. */
function repository(name: string, debVersions: readonly string[]): string {
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  for (const d of debVersions) buildDeb(d, dir)
  writeFileSync(join(dir, 'Packages'), execFileSync('apt-ftparchive', ['packages', '.'], { cwd: dir }))
  writeFileSync(join(dir, 'Release'), execFileSync('apt-ftparchive', ['release', '.'], { cwd: dir }))
  return dir
}

const useRepository = (dir: string) => {
  process.env.PROXYBENCH_APT_SOURCES = `deb [trusted=yes] file:${dir} ./`
}

const stack = loadStack('nginx')
const version = (debVersion: string, sha256 = sha256Text(script(debVersion))): StackVersion => ({
  version: '1.0.0',
  source: `debian:${SUITE}`,
  package: PKG,
  deb_version: debVersion,
  binary: `/usr/bin/${PKG}`,
  lib_dir: null,
  sha256,
  april_2025: false,
})

const missing = (): string | false => {
  if (process.getuid?.() !== 0) return 'needs root (chroot, apt in a suite root)'
  for (const tool of ['apt-ftparchive', 'dpkg-deb', 'chroot']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' })
    } catch {
      return `${tool} is not installed (apt-get install apt-utils dpkg coreutils)`
    }
  }
  return existsSync(join(realImages, basename(baseTarball(SUITE)))) ? false : `no cached ${SUITE} base (npx zx notebooks/00-setup.mjs builds it)`
}

describe('which build a suite version measures', () => {
  const log = consoleLogger(process.stderr, true)
  const fresh = () => {
    for (const dir of ['suites', 'builds']) rmSync(join(cache, dir), { recursive: true, force: true })
  }
  before(() => {
    if (existsSync(realImages)) symlinkSync(realImages, join(cache, 'images'))
  })
  after(() => {
    rmSync(cache, { recursive: true, force: true })
    rmSync(work, { recursive: true, force: true })
  })
  const need = { id: 'apt-repository', missing: missing(), timeout: 10 * 60_000 }

  testNeeding('the pinned build, served: installed and verified; a sha256 that differs on the same build is a hard error', need, async () => {
    fresh()
    useRepository(repository('both', ['1.0.0-1', '1.0.0-2']))
    const row = await suiteRow(stack, version('1.0.0-1'), { install: true, log })
    assert.equal(row.status, 'installed', row.note)
    assert.equal(row.sha256, sha256Text(script('1.0.0-1')))
    assert.equal(readFileSync(row.path, 'utf8'), script('1.0.0-1'))
    const tampered = await suiteRow(stack, version('1.0.0-1', '0'.repeat(64)), { install: true, log })
    assert.equal(tampered.status, 'failed')
    assert.match(tampered.note ?? '', /does not match the sha256 pinned .* same build/)
  })

  testNeeding('the pinned build gone: the newest build of the same upstream version, recorded; --strict-builds refuses it', need, async () => {
    fresh()
    useRepository(repository('newer', ['1.0.0-2', '1.0.0-3', '2.0.0-1']))
    const strict = await suiteRow(stack, version('1.0.0-1'), { install: true, strict: true, log })
    assert.equal(strict.status, 'failed')
    assert.doesNotMatch(strict.note ?? '', /\n/)
    assert.match(strict.note ?? '', /pinned build 1\.0\.0-1 .*--strict-builds.*npm run catalog -- --check/)

    const row = await suiteRow(stack, version('1.0.0-1'), { install: true, log })
    assert.equal(row.status, 'substituted', row.note)
    assert.equal(row.build, '1.0.0-3')
    assert.deepEqual(row.pinned, { build: '1.0.0-1', sha256: sha256Text(script('1.0.0-1')) })
    assert.equal(row.sha256, sha256Text(script('1.0.0-3')))
    assert.match(row.note ?? '', /pinned 1\.0\.0-1, measured 1\.0\.0-3 \(sha256 [0-9a-f]{12}\): pinned build no longer served/)
    assert.equal(readFileSync(row.path, 'utf8'), script('1.0.0-3'))

    // The next setup takes the recorded substitute without asking apt (no source at all now).
    process.env.PROXYBENCH_APT_SOURCES = 'not a source line'
    const again = await suiteRow(stack, version('1.0.0-1'), { install: true, log })
    assert.equal(again.status, 'substituted')
    assert.equal(again.path, row.path)
    const refused = await suiteRow(stack, version('1.0.0-1'), { install: true, strict: true, log })
    assert.equal(refused.status, 'failed')
  })

  testNeeding('the upstream version gone: not runnable here, with the reason', need, async () => {
    fresh()
    useRepository(repository('other', ['2.0.0-1']))
    const row = await suiteRow(stack, version('1.0.0-1'), { install: true, log })
    assert.equal(row.status, 'not runnable')
    assert.match(row.note ?? '', /^nginx 1\.0\.0: not runnable here: pinned build 1\.0\.0-1 could not be installed .*serves no build of upstream 1\.0\.0/)
    assert.doesNotMatch(row.note ?? '', /\n/)
    // A step that installs nothing says the same, instead of stopping for a missing build.
    const step = await suiteRow(stack, version('1.0.0-1'), { install: false, log })
    assert.equal(step.status, 'not runnable')
    assert.equal(step.note, row.note)
  })
})
