import assert from 'node:assert/strict'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { loadRun } from '../../lib/data/run-data.ts'

const fixture = join(repoRoot, 'test/fixtures/run-quick')
const copy = (change: (dir: string) => void) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'pb-run-data-')), 'run')
  cpSync(fixture, dir, { recursive: true })
  change(dir)
  return dir
}
const lines = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8').split('\n')
const refused = (dir: string, re: RegExp) =>
  assert.throws(
    () => loadRun(dir),
    (e: Error) => e instanceof UserError && re.test(e.message),
    re.source,
  )

test('the fixture run loads: every table has rows and no repeat twice', () => {
  const r = loadRun(fixture)
  assert.ok(r.measurements.length > 0 && r.handshakes.length > 0 && r.websocket.length > 0)
})

test('a table with a header and no rows is refused at its line 1, naming the fix', () => {
  for (const file of ['measurements.csv', 'handshakes.csv', 'websocket.csv', 'tcp.csv']) {
    const dir = copy((d) => writeFileSync(join(d, file), lines(d, file)[0] + '\n'))
    refused(dir, new RegExp(`${file.replace('.', '\\.')}:1: a header and no rows: .*\\. Restore its rows .*, or remove the file`))
  }
})

test('the same cell and repeat twice (a pasted line) is refused at the second line, naming the first', () => {
  // Line 5 pasted again at the end: the file's own values, whatever they are.
  const dir = copy((d) => {
    const l = lines(d, 'measurements.csv').filter(Boolean)
    writeFileSync(join(d, 'measurements.csv'), [...l, l[4]].join('\n') + '\n')
  })
  const n = lines(dir, 'measurements.csv').filter(Boolean).length
  refused(dir, new RegExp(`measurements\\.csv:${n}: repeat \\d+ of cell .+ is also on line 5\\. Remove one of the two lines`))
  // The same row with another repeat number is another repeat: accepted.
  const other = copy((d) => {
    const l = lines(d, 'handshakes.csv').filter(Boolean)
    const at = l[0]!.split(',').indexOf('repeat')
    const cells = l[1]!.split(',')
    cells[at] = '99'
    writeFileSync(join(d, 'handshakes.csv'), [...l, cells.join(',')].join('\n') + '\n')
  })
  assert.equal(loadRun(other).handshakes.length, lines(fixture, 'handshakes.csv').filter(Boolean).length)
})
