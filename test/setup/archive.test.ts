import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeEach, test } from 'node:test'
import { sha256File } from '../../lib/core/hash.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { archiveNotes, listArchived } from '../../lib/data/archive-index.ts'
import { tempCache } from '../support/temp-cache.ts'
import { archiveBuild, archiveDir, exportArchive, findArchived, importArchive, restoreBuild } from '../../lib/setup/archive.ts'
import { objectPath, walk } from '../../lib/setup/archive-tree.ts'

// Real files in temp folders, the archive under a temp PROXYBENCH_CACHE: no mocks.
const T = tempCache('pb-archive-')
beforeEach(() => rmSync(archiveDir(), { recursive: true, force: true }))

let n = 0
/** A build root: a regular file, an executable, a symlink, a nested dir; `extra` files on top. */
function tree(extra: Record<string, string> = {}): string {
  const root = join(T, `root-${++n}`)
  mkdirSync(join(root, 'usr/sbin'), { recursive: true })
  mkdirSync(join(root, 'usr/lib/x86_64-linux-gnu/deep'), { recursive: true })
  writeFileSync(join(root, 'usr/sbin/proxy'), `#!/bin/sh\necho proxy ${extra.binary ?? 'one'}\n`)
  chmodSync(join(root, 'usr/sbin/proxy'), 0o755)
  writeFileSync(join(root, 'usr/lib/x86_64-linux-gnu/libshared.so'), 'shared library bytes\n'.repeat(1000))
  writeFileSync(join(root, 'usr/lib/x86_64-linux-gnu/deep/data.txt'), 'nested\n')
  chmodSync(join(root, 'usr/lib/x86_64-linux-gnu/deep/data.txt'), 0o640)
  symlinkSync('x86_64-linux-gnu/libshared.so', join(root, 'usr/lib/libshared.so.1'))
  symlinkSync('usr/lib', join(root, 'lib'))
  for (const [p, text] of Object.entries(extra)) if (p !== 'binary') writeFileSync(join(root, p), text)
  return root
}

/** Every entry of a tree as restored: type, mode, content sha256 or link target. */
async function snapshot(root: string): Promise<string[]> {
  return Promise.all(
    walk(root).map(async ({ path, st }) =>
      st.isSymbolicLink()
        ? `${path} -> ${readlinkSync(join(root, path))}`
        : `${path} ${(st.mode & 0o7777).toString(8)} ${st.isFile() ? await sha256File(join(root, path)) : 'dir'}`,
    ),
  )
}

const build = (root: string, version = '1.0.0', b = '1.0.0-1') => ({
  proxy: 'nginx',
  version,
  build: b,
  source: 'debian:trixie',
  root,
  binary: 'usr/sbin/proxy',
})

test('a build is archived content-addressed, found by its binary, and restored with the same hashes, modes and links', async () => {
  const root = tree()
  const fifo = join(root, 'pipe')
  execFileSync('mkfifo', [fifo])
  const log = memoryLogger()
  const a = await archiveBuild(build(root), log)
  assert.equal(a.files, 3)
  assert.equal(a.binary_sha256, await sha256File(join(root, 'usr/sbin/proxy')))
  assert.ok(a.newBytes > 21_000)
  assert.match(log.lines.at(-1)!, /^archived nginx 1\.0\.0 \(1\.0\.0-1\): 3 files/)
  const { newBytes: _, ...entry } = a
  assert.deepEqual(findArchived('nginx', '1.0.0', a.binary_sha256), entry)
  assert.equal(findArchived('nginx', '1.0.0', a.binary_sha256)?.tree, a.tree)
  assert.equal(findArchived('nginx', '1.0.1', a.binary_sha256), undefined)
  assert.equal(readFileSync(join(archiveDir(), 'trees', a.tree), 'utf8').includes('"pipe","fifo"'), true, 'the fifo is listed as skipped')
  const again = await archiveBuild(build(root))
  assert.equal(again.newBytes, 0, 'archived already: nothing new')
  assert.equal(again.tree, a.tree)
  const dest = join(T, 'restored-1')
  await restoreBuild(a, dest)
  rmSync(fifo)
  assert.deepEqual(await snapshot(dest), await snapshot(root))
  assert.equal(lstatSync(join(dest, 'usr/sbin/proxy')).mode & 0o777, 0o755)
  assert.equal(readdirSync(T).filter((f) => f.includes('.tmp-')).length, 0, 'no temp folder left')
})

test('two builds sharing files: the second adds only its new objects, the total is deduplicated', async () => {
  const one = await archiveBuild(build(tree()))
  const objects = () => readdirSync(join(archiveDir(), 'objects'), { recursive: true }).filter((f) => String(f).length > 3).length
  const before = objects()
  const two = await archiveBuild(build(tree({ binary: 'two', 'usr/lib/extra.txt': 'only in two\n' }), '1.0.1', '1.0.1-1'))
  assert.equal(objects(), before + 2, 'a new binary and the extra file')
  assert.ok(two.newBytes < 100, `only the new files: ${two.newBytes}`)
  assert.notEqual(one.tree, two.tree)
  assert.deepEqual(
    listArchived().map((b) => b.version),
    ['1.0.0', '1.0.1'],
  )
})

test('a corrupted or missing object: restore fails with one line naming it and leaves nothing at dest', async () => {
  const a = await archiveBuild(build(tree()))
  const lib = walk(archiveDir()).find((w) => w.st.isFile() && w.st.size === 21_000)!
  writeFileSync(join(archiveDir(), lib.path), 'x'.repeat(21_000))
  const dest = join(T, 'restored-bad')
  await assert.rejects(restoreBuild(a, dest), (e: Error) => {
    assert.match(e.message, /objects\/[0-9a-f]{2}\/[0-9a-f]{64}: does not match its sha256 \(usr\/lib\/x86_64-linux-gnu\/libshared\.so: corrupted\)/)
    assert.equal(e.message.split('\n').length, 1)
    return true
  })
  assert.equal(existsSync(dest), false)
  rmSync(join(archiveDir(), lib.path))
  await assert.rejects(restoreBuild(a, dest), /missing from the archive \(usr\/lib\/x86_64-linux-gnu\/libshared\.so\)/)
})

test('export → wipe the archive → import → restore gives the same files; a tampered export imports nothing', async () => {
  const r1 = tree()
  const r2 = tree({ binary: 'two' })
  const a = await archiveBuild(build(r1))
  const b = await archiveBuild(build(r2, '1.0.1', '1.0.1-1'))
  const file = join(T, 'export.tar.gz')
  const sizes = await exportArchive([a, b], file)
  assert.equal(sizes.files, 4, 'two binaries, the library and the nested file, each once')
  assert.ok(sizes.compressedBytes > 0 && sizes.compressedBytes < sizes.bytes)
  const names = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).trim().split('\n').sort()
  assert.ok(names.includes('LISTING.txt'))
  assert.equal(names.filter((f) => f.startsWith('objects/')).length, 4)
  assert.equal(names.filter((f) => f.startsWith('index/')).length, 2)
  rmSync(archiveDir(), { recursive: true })
  const got = await importArchive(file)
  assert.deepEqual(got.map((x) => x.tree).sort(), [a.tree, b.tree].sort())
  const dest = join(T, 'restored-import')
  await restoreBuild(findArchived('nginx', '1.0.1', b.binary_sha256)!, dest)
  assert.deepEqual(await snapshot(dest), await snapshot(r2))
  assert.deepEqual(await importArchive(file).then((x) => x.length), 2, 'importing twice is harmless')

  // Tampered: one object's bytes changed inside a well-formed tar.
  const x = join(T, 'unpacked')
  mkdirSync(x)
  execFileSync('tar', ['-xzf', file, '-C', x])
  const obj = objectPath(b.binary_sha256, x)
  writeFileSync(obj, '#!/bin/sh\necho evil\n')
  const bad = join(T, 'tampered.tar.gz')
  execFileSync('tar', ['-czf', bad, '-C', x, '.'])
  rmSync(archiveDir(), { recursive: true })
  await assert.rejects(importArchive(bad), /tampered\.tar\.gz: objects\/[0-9a-f]{2}\/[0-9a-f]{64}: does not match its sha256 \(tampered or corrupted\)/)
  assert.deepEqual(listArchived(), [])
  assert.deepEqual(readdirSync(archiveDir()), [], 'nothing half-imported, no temp folder left')
  // Truncated: gzip and tar refuse it.
  writeFileSync(bad, readFileSync(file).subarray(0, 200))
  await assert.rejects(importArchive(bad), /not a readable export/)
  assert.deepEqual(readdirSync(archiveDir()), [])
})

test('a zstd export, a name without a known suffix, and what promote says', async () => {
  const a = await archiveBuild(build(tree()))
  await assert.rejects(exportArchive([a], join(T, 'x.zip')), /x\.zip: not a name an export can take/)
  const zst = join(T, 'export.tar.zst')
  await exportArchive([a], zst)
  rmSync(archiveDir(), { recursive: true })
  assert.equal((await importArchive(zst))[0]!.tree, a.tree)
  const notes = archiveNotes('base-1', [
    { component: 'nginx', version: '1.0.0', sha256: a.binary_sha256 },
    { component: 'haproxy', version: '2.8.0', sha256: 'f'.repeat(64) },
    { component: 'wrk', version: '4.2', sha256: 'e'.repeat(64) },
  ])
  assert.deepEqual(notes[0], `archive: 1 of 2 proxy builds of base-1 archived (${archiveDir()})`)
  assert.match(notes[1]!, /^ {2}archived {6}nginx 1\.0\.0 \(1\.0\.0-1, debian:trixie/)
  assert.match(notes[2]!, /^ {2}not archived {2}haproxy 2\.8\.0/)
  assert.equal(notes[3], 'export them: npm run archive -- export base-1 base-1.tar.gz')
})
