import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { cleanupStaleCopies, copiesStateDir, KeyCopies } from '../../lib/runtime/key-copies.ts'
import { bootId, procStartTime } from '../../lib/runtime/proc.ts'
import { testNeeding } from '../support/needs.ts'

const root = process.getuid?.() === 0
const keys = mkdtempSync(join(tmpdir(), 'pb-keys-'))
writeFileSync(join(keys, 'ec256.key'), 'secret', { mode: 0o600 })
const outside = mkdtempSync(join(tmpdir(), 'pb-outside-'))
writeFileSync(join(outside, 'other.key'), 'secret', { mode: 0o600 })

async function deadPid(): Promise<number> {
  const p = spawn('true')
  await new Promise((r) => p.once('exit', r))
  return p.pid!
}

testNeeding(
  'key copies: only under the keys dir, owned by the container user, 0400, gone at release',
  { id: 'runtime/key-copies', missing: root ? false : 'chown needs root' },
  () => {
    const copies = new KeyCopies({ uid: 65534, gid: 65534 }, keys)
    const dest = copies.copy(join(keys, 'ec256.key'))
    const st = statSync(dest)
    assert.equal(st.uid, 65534)
    assert.equal(st.mode & 0o777, 0o400)
    assert.equal(statSync(join(keys, `.docker-${process.pid}`)).mode & 0o777, 0o700)
    assert.throws(
      () => copies.copy(join(outside, 'other.key')),
      (e: Error) => e.name === 'UserError' && e.message.startsWith(`${join(outside, 'other.key')}: not readable by the container user`),
    )
    copies.release()
    assert.deepEqual(readdirSync(keys), ['ec256.key'], 'no copy remains')
    assert.equal(existsSync(join(copiesStateDir(), `${process.pid}.json`)), false)
  },
)

test('key copies: the next start removes those of a crashed run, listed or not, and keeps a live one', async () => {
  const dead = await deadPid()
  const listed = join(keys, `.docker-${dead}`)
  mkdirSync(listed)
  writeFileSync(join(listed, 'ec256.key'), 'secret')
  mkdirSync(copiesStateDir(), { recursive: true })
  const stateFile = join(copiesStateDir(), `test-${process.pid}.json`)
  writeFileSync(stateFile, JSON.stringify({ harness: { pid: dead, start: '1', boot: bootId }, copies: [listed, '/etc'] }))
  // Unlisted (the harness died before its state file): found by name.
  const unlisted = join(keys, `.docker-${await deadPid()}`)
  mkdirSync(unlisted)
  // A live process's copies stay.
  const live = join(keys, `.docker-${process.pid}`)
  mkdirSync(live)
  assert.ok(procStartTime(process.pid))
  const log = memoryLogger()
  assert.equal(cleanupStaleCopies(log, [keys]), 2)
  assert.deepEqual(readdirSync(keys).sort(), [`.docker-${process.pid}`, 'ec256.key'])
  assert.equal(existsSync(stateFile), false)
  assert.ok(existsSync('/etc'), 'a path a state file names that is not a copy dir is never removed')
  assert.ok(log.lines.some((l) => l.includes(unlisted)))
})
