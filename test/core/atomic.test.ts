import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { replaceDir, writeFileAtomic, writeOutputFolder, writeOutputs } from '../../lib/core/atomic.ts'
import { textOutputs } from '../../lib/core/output.ts'

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
  for (const [dir, text] of [
    [target!, 'old'],
    [tmp!, 'new'],
  ] as const) {
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

test('writeOutputs: each output under its root, rendered once, in order; a render that throws writes nothing of its file', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-outputs-'))
  let renders = 0
  const paths = writeOutputs(root, [
    { path: 'summary/a.csv', render: () => (renders++, 'a\n') },
    { path: 'report.pdf', render: () => (renders++, Buffer.from([1, 2])) },
    ...textOutputs(new Map([['summary/b.csv', 'b\n']])),
  ])
  assert.deepEqual(paths, ['summary/a.csv', 'report.pdf', 'summary/b.csv'])
  assert.equal(renders, 2)
  assert.equal(readFileSync(join(root, 'summary', 'a.csv'), 'utf8'), 'a\n')
  assert.deepEqual([...readFileSync(join(root, 'report.pdf'))], [1, 2])
  assert.deepEqual(readdirSync(join(root, 'summary')).sort(), ['a.csv', 'b.csv'])
  assert.throws(
    () =>
      writeOutputs(root, [
        {
          path: 'c.csv',
          render: () => {
            throw new Error('no rows')
          },
        },
      ]),
    /no rows/,
  )
  assert.deepEqual(readdirSync(root).sort(), ['report.pdf', 'summary'])
})

test('writeOutputFolder swaps a folder of outputs in whole; a failed check keeps the old folder and leaves no temp folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-outfolder-'))
  const [target, tmp, old] = ['page', '.tmp-page', '.old-page'].map((n) => join(root, n)) as [string, string, string]
  writeOutputFolder(
    target,
    [
      { path: 'index.html', render: () => 'one' },
      { path: 'data/a.csv', render: () => 'a\n' },
    ],
    { tmp, old },
  )
  assert.deepEqual(readdirSync(target).sort(), ['data', 'index.html'])
  assert.throws(
    () =>
      writeOutputFolder(target, [{ path: 'index.html', render: () => 'two' }], {
        tmp,
        old,
        check: () => {
          throw new Error('key material')
        },
      }),
    /key material/,
  )
  assert.equal(readFileSync(join(target, 'index.html'), 'utf8'), 'one')
  writeOutputFolder(target, [{ path: 'index.html', render: () => 'three' }], { tmp, old })
  assert.equal(readFileSync(join(target, 'index.html'), 'utf8'), 'three')
  assert.deepEqual(readdirSync(root), ['page'])
  assert.deepEqual(readdirSync(target), ['index.html'])
})
