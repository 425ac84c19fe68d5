import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { replaceDir, writeFileAtomic } from '../../lib/core/atomic.ts'

test('writeFileAtomic replaces text or bytes whole, creates the folder and leaves no temp file, also when it fails', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'pb-atomic-')), 'sub')
  const file = join(dir, 'a.txt')
  writeFileAtomic(file, 'one\n')
  writeFileAtomic(file, Buffer.from([0x74, 0x77, 0x6f]))
  assert.equal(readFileSync(file, 'utf8'), 'two')
  // a folder in the way: the rename fails, the error comes through, the temp file is gone
  mkdirSync(join(dir, 'taken', 'x'), { recursive: true })
  assert.throws(() => writeFileAtomic(join(dir, 'taken'), 'x'))
  assert.deepEqual(readdirSync(dir).sort(), ['a.txt', 'taken'])
})

test('replaceDir: the new folder in place of the old; a failed rename puts the old one back', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-replace-'))
  const [target, tmp, old] = ['site', 'site.tmp', 'site.old'].map((n) => join(root, n))
  for (const [dir, text] of [[target!, 'old'], [tmp!, 'new']] as const) {
    mkdirSync(dir)
    writeFileSync(join(dir, 'f'), text)
  }
  const failing = ((from: string, to: string) => {
    if (from === tmp) throw new Error('rename failed')
    renameSync(from, to)
  }) as typeof renameSync
  assert.throws(() => replaceDir(tmp!, target!, old!, failing), /rename failed/)
  assert.equal(readFileSync(join(target!, 'f'), 'utf8'), 'old')
  replaceDir(tmp!, target!, old!)
  assert.equal(readFileSync(join(target!, 'f'), 'utf8'), 'new')
  assert.deepEqual(readdirSync(root), ['site'])
})
