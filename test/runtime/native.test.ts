import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { cleanupStale, isAlive, NativeRuntime, stateDir } from '../../lib/runtime/native.ts'
import { bootId, procRef, procStartTime } from '../../lib/runtime/proc.ts'

const dir = mkdtempSync(join(tmpdir(), 'pb-native-'))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('native runtime: CPU of a busy role is counted, stop ends its whole process tree', async () => {
  const rt = new NativeRuntime(`test-${process.pid}-a`)
  const busy = await rt.start({ role: 'proxy', name: 'busy', argv: ['sh', '-c', 'sleep 60 & while :; do :; done'], cpus: '0', logFile: join(dir, 'busy.log') })
  const before = await rt.cpuNs(busy)
  await sleep(400)
  const used = (await rt.cpuNs(busy)) - before
  // A spinning shell on its own core: well over 50 ms of 400 ms even on a loaded machine.
  assert.ok(used > 50e6, `counted ${used / 1e6} ms of CPU`)
  const idle = await rt.start({ role: 'backend', name: 'idle', argv: ['sleep', '60'], cpus: '0', logFile: join(dir, 'idle.log') })
  const idleBefore = await rt.cpuNs(idle)
  await sleep(200)
  assert.ok((await rt.cpuNs(idle)) - idleBefore < 20e6, 'an idle role uses (almost) no CPU')
  await rt.stopAll()
  assert.equal(isAlive(busy.pid), false)
  assert.equal(isAlive(idle.pid), false)
  assert.notEqual(busy.exit, undefined)
})

/** A harness that has gone: a process that ran and exited. */
async function deadHarness() {
  const dead = spawn('true')
  const ref = { pid: dead.pid!, start: procStartTime(dead.pid!) ?? '1', boot: bootId }
  await new Promise((r) => dead.once('exit', r))
  return ref
}

function writeState(name: string, state: unknown): string {
  mkdirSync(stateDir(), { recursive: true })
  const file = join(stateDir(), `test-${process.pid}-${name}.json`)
  writeFileSync(file, typeof state === 'string' ? state : JSON.stringify(state))
  return file
}

test('native runtime: the state file names each process by boot id, pid and start time, written atomically', async () => {
  const rt = new NativeRuntime(`test-${process.pid}-state`)
  const role = await rt.start({ role: 'backend', name: 'idle', argv: ['sleep', '60'], cpus: '0', logFile: join(dir, 'state.log') })
  const file = join(stateDir(), `test-${process.pid}-state.json`)
  const state = JSON.parse(readFileSync(file, 'utf8'))
  assert.deepEqual(state.harness, procRef(process.pid))
  assert.deepEqual(state.roles, [{ name: 'idle', pid: role.pid, start: procStartTime(role.pid), boot: bootId }])
  assert.deepEqual(
    readdirSync(stateDir()).filter((f) => f.includes('.tmp-')),
    [],
    'no temp file left',
  )
  await rt.stopAll()
  assert.equal(existsSync(file), false)
})

test('native runtime: the next start kills what a killed run left, only if it is the same process', async () => {
  const harness = await deadHarness()
  const orphan = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' })
  const reaped = new Promise((r) => orphan.once('exit', r))
  const real = { pid: orphan.pid!, start: procStartTime(orphan.pid!)!, boot: bootId }
  try {
    // After a reboot the pid may be anyone's: another boot id → not killed.
    const rebooted = writeState('reboot', { harness: { ...harness, boot: 'another-boot' }, roles: [{ name: 'orphan', ...real, boot: 'another-boot' }] })
    cleanupStale(memoryLogger())
    assert.equal(isAlive(orphan.pid!), true, 'a process of another boot is never signalled')
    assert.equal(existsSync(rebooted), false, 'the state of another boot is done with')
    // The same pid, reused by another process (another start time) → not killed.
    writeState('reused', { harness, roles: [{ name: 'orphan', ...real, start: String(Number(real.start) + 1) }] })
    cleanupStale(memoryLogger())
    assert.equal(isAlive(orphan.pid!), true, 'a reused pid is never signalled')
    // The very process → killed.
    writeState('real', { harness, roles: [{ name: 'orphan', ...real }] })
    const log = memoryLogger()
    assert.ok(cleanupStale(log) >= 1)
    await reaped
    assert.equal(isAlive(orphan.pid!), false)
    assert.ok(log.lines.some((l) => l.includes(`killed orphan (pid ${orphan.pid})`)))
  } finally {
    orphan.kill('SIGKILL')
  }
})

test('native runtime: a live harness keeps its processes', async () => {
  const orphan = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' })
  try {
    const file = writeState('live', { harness: procRef(process.pid), roles: [{ name: 'mine', ...procRef(orphan.pid!) }] })
    cleanupStale(memoryLogger())
    assert.equal(isAlive(orphan.pid!), true)
    assert.equal(existsSync(file), true)
    rmSync(file)
  } finally {
    orphan.kill('SIGKILL')
  }
})

test('native runtime: an unreadable state file is kept aside with a warning naming it, never deleted', () => {
  for (const [name, text] of [
    ['corrupt', '{"harness": {"pid": 1'],
    ['old', JSON.stringify({ harnessPid: 1, roles: [{ name: 'x', pid: 1 }] })],
  ] as const) {
    const file = writeState(name, text)
    const log = memoryLogger()
    cleanupStale(log)
    assert.equal(existsSync(file), false)
    const aside = readdirSync(stateDir()).find((f) => f.startsWith(`test-${process.pid}-${name}.json.corrupt-`))
    assert.ok(aside, 'kept aside')
    assert.equal(readFileSync(join(stateDir(), aside), 'utf8'), text, 'unchanged')
    assert.ok(
      log.lines.some((l) => l.startsWith('warning: ') && l.includes(aside)),
      log.lines.join('\n'),
    )
    // A second start leaves it alone (it no longer ends in .json).
    cleanupStale(memoryLogger())
    assert.equal(existsSync(join(stateDir(), aside)), true)
    rmSync(join(stateDir(), aside))
  }
})
