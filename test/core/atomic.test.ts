import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { writeFileAtomic } from '../../lib/core/atomic.ts'

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
