import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { cacheDir } from '../../lib/core/paths.ts'
import { cleanupStale, isAlive, NativeRuntime } from '../../lib/runtime/native.ts'

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

test('native runtime: the next start removes what a killed run left behind', async () => {
  // A "dead harness": a pid that has exited.
  const dead = spawn('true')
  await new Promise((r) => dead.once('exit', r))
  const orphan = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' })
  const reaped = new Promise((r) => orphan.once('exit', r))
  mkdirSync(join(cacheDir(), 'native'), { recursive: true })
  writeFileSync(join(cacheDir(), 'native', `test-${process.pid}-dead.json`), JSON.stringify({ harnessPid: dead.pid, roles: [{ name: 'orphan', pid: orphan.pid }] }))
  assert.equal(isAlive(orphan.pid!), true)
  assert.ok(cleanupStale() >= 1)
  await reaped
  assert.equal(isAlive(orphan.pid!), false)
})
