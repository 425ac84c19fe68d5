import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Invocation, Manifest } from '../../lib/data/schema.ts'
import { closeRun, recordFailed, recordFinished, recordOnExit } from '../../lib/run/exit.ts'
import type { RunRecord } from '../../lib/run/manifest.ts'
import type { Runtime } from '../../lib/runtime/types.ts'

/** A run record in the middle of its pooling series; save() counts instead of writing. */
function midRun(): RunRecord & { saves: number } {
  const r = {
    runDir: '/nowhere',
    manifest: { steps: { pooling: 'running', tls: 'pending' }, finished: null } as unknown as Manifest,
    invocation: { finished: null } as unknown as Invocation,
    current: 'pooling' as string | undefined,
    saves: 0,
    save: () => void r.saves++,
  }
  return r
}

test('a kill: the exit hook marks the series interrupted, finishes the invocation and saves; its unhook removes it', () => {
  const r = midRun()
  const before = process.listenerCount('exit')
  const unhook = recordOnExit(r)
  assert.equal(process.listenerCount('exit'), before + 1)
  const hook = process.listeners('exit').at(-1) as () => void
  hook()
  assert.equal(r.manifest.steps.pooling, 'interrupted')
  assert.equal(r.manifest.steps.tls, 'pending')
  assert.ok(r.invocation.finished, 'the invocation has an end')
  assert.equal(r.saves, 1)
  unhook()
  assert.equal(process.listenerCount('exit'), before)
})

test('an error: the series it was in failed; a finished run: the manifest and the invocation end together', async () => {
  const failed = midRun()
  await recordFailed(failed)
  assert.equal(failed.manifest.steps.pooling, 'failed')
  assert.ok(failed.invocation.finished)
  assert.equal(failed.saves, 1)
  const done = midRun()
  done.current = undefined
  recordFinished(done)
  assert.ok(done.manifest.finished)
  assert.equal(done.invocation.finished, done.manifest.finished)
  assert.equal(done.manifest.steps.pooling, 'running', "steps are the series loop's to mark")
})

test('closing a run unhooks first, then stops every role, however it ended', async () => {
  const order: string[] = []
  const runtime = { stopAll: async () => void order.push('stopAll') } as unknown as Runtime
  await closeRun(midRun(), runtime, () => void order.push('unhook'))
  assert.deepEqual(order, ['unhook', 'stopAll'])
})
