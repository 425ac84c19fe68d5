import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { isDisturbed } from '../../lib/data/precision.ts'
import { MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { catalogCellPlan } from '../../lib/measure/cell.ts'
import { cpuIds } from '../../lib/measure/disturbance.ts'
import { waitForQuiet } from '../../lib/measure/culprits.ts'
import { NEIGHBOUR_NAME, startNeighbour } from '../../lib/measure/neighbour.ts'
import { adaptiveSettings } from '../../lib/run/adaptive.ts'
import { runPhase } from '../../lib/run/phase.ts'
import { QuietBudget, quietSettings } from '../../lib/run/quiet.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { closedTasks } from '../../lib/series/tasks.ts'
import { smokeContext, waitForRunLock } from './support/smoke-cell.ts'

// Real HAProxy windows (smoke profile, native runtime) beside a real neighbour: a process
// outside the harness's tree spinning on the proxy's core for NEIGHBOUR_S seconds. The
// first window is disturbed and names it; the redo waits with its stack up, just before its
// load (it cannot be quiet while the neighbour spins, and a wait that finds no quiet lasts
// longer than the neighbour), so its load starts only after the neighbour has ended.
const NEIGHBOUR_S = 12

test('a disturbed window names the neighbour, the redo waits for quiet before its load, and that load starts only after the neighbour is gone', {
  timeout: 300_000,
}, async () => {
  const out = mkdtempSync(join(tmpdir(), 'pb-busy-'))
  const release = await waitForRunLock(out)
  const log = memoryLogger()
  const runtime = new NativeRuntime(`busy-${process.pid}`)
  const ctx = await smokeContext(runtime, 'busy', out, log)
  const { profile, cpus, connections } = ctx
  const settings = quietSettings(profile, cpus, { budgetS: 60 })
  assert.ok(settings.maxWaitS > NEIGHBOUR_S, 'a wait that finds no quiet must outlast the neighbour')
  // The real wait, its end noted: the redo's load starts right after it.
  const waitEnds: number[] = []
  const quiet = new QuietBudget(settings, log, undefined, null, async (o) => {
    const w = await waitForQuiet(o)
    waitEnds.push(Date.now())
    return w
  })
  ctx.windowGate = quiet
  const t0 = Date.now()
  const n = await startNeighbour({ cpu: cpuIds(cpus.proxy)[0]!, share: 1, burstS: [NEIGHBOUR_S, NEIGHBOUR_S], maxS: NEIGHBOUR_S })
  const neighbourEnd = t0 + NEIGHBOUR_S * 1000
  try {
    await runPhase(
      'busy',
      closedTasks([catalogCellPlan('haproxy', { series: 'same', variant: 'article', connections })], ctx),
      { runDir: out, invocation: null, quiet },
      log,
      false,
      { settings: adaptiveSettings(profile), seed: 1, repeatS: 5 },
    )
  } finally {
    await n.stop()
    await runtime.stopAll()
    release()
  }
  const rows = readTable(out, MEASUREMENTS)
  for (const r of rows)
    console.log(`${r.started_at} ${r.status} foreign ${r.foreign_cpu_share} load ${r.load_foreign_cpu_share} [${r.foreign_processes}] ${r.reason}`)
  console.log(JSON.stringify(quiet.record))
  const first = rows[0]!
  assert.ok(Date.parse(first.started_at) < neighbourEnd, 'the first window ran beside the neighbour')
  assert.ok(isDisturbed(first), JSON.stringify(first))
  assert.match(first.foreign_processes ?? '', new RegExp(`(^|, )${NEIGHBOUR_NAME} \\d+%`), 'the neighbour named among the top foreign commands')
  assert.ok(quiet.record.waits >= 1 && quiet.record.waited_s > 0, JSON.stringify(quiet.record))
  assert.ok(rows.length >= 2, 'the disturbed window was redone')
  // The first wait ran inside the redo's task, with its stack up, just before its load: that load began after the neighbour was gone.
  assert.ok(
    waitEnds[0]! >= neighbourEnd,
    `the first wait ended ${new Date(waitEnds[0]!).toISOString()}, before the neighbour (${new Date(neighbourEnd).toISOString()})`,
  )
  assert.ok(Date.parse(rows[1]!.started_at) < waitEnds[0]!, 'the wait ran inside the redo (stack up), not before its stack started')
})
