import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { catalogCellPlan } from '../../lib/measure/cell.ts'
import { coresOutside, cpuIds } from '../../lib/measure/disturbance.ts'
import { MAX_FOREIGN_SHARE } from '../../lib/measure/validity.ts'
import { adaptiveSettings } from '../../lib/run/adaptive.ts'
import { runPhase } from '../../lib/run/phase.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { closedTasks } from '../../lib/series/tasks.ts'
import { smokeContext, waitForRunLock } from './support/smoke-cell.ts'

// Real HAProxy windows (smoke profile, native runtime): the disturbance columns are filled,
// and a busy loop pinned on the proxy's core, then on the generator's and backend's, makes
// every window of the cell disturbed: invalid with its reason, re-measured once (smoke's
// disturbed budget), then stopped.
test('disturbance columns are filled, and a busy loop on the proxy core or the load cores marks the window disturbed and re-measures it', async () => {
  const out = mkdtempSync(join(tmpdir(), 'pb-disturbed-'))
  const release = await waitForRunLock(out)
  const log = memoryLogger()
  const runtime = new NativeRuntime(`disturbed-${process.pid}`)
  const ctx = await smokeContext(runtime, 'disturbed', out, log)
  const { profile, cpus, connections } = ctx
  const adaptive = { settings: adaptiveSettings(profile), seed: 1, repeatS: 5 }
  const loops: ReturnType<typeof spawn>[] = []
  // 100% of each core given: the roles there get about half, the rest is foreign, far above any threshold.
  const busyOn = (cores: string) => {
    for (const c of cpuIds(cores)) loops.push(spawn('taskset', ['-c', String(c), 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }))
  }
  const stopLoops = () => {
    for (const l of loops.splice(0)) if (l.pid) l.kill('SIGKILL')
  }
  const load = coresOutside(`${cpus.generator},${cpus.backend}`, cpus.proxy)
  try {
    await runPhase('quiet', closedTasks([catalogCellPlan('haproxy', { series: 'same', variant: 'article', connections })], ctx), out, log, false, adaptive)
    const quiet = readTable(out, MEASUREMENTS)
    for (const r of quiet)
      console.log(
        `no deliberate load: steal ${r.steal_share} foreign ${r.foreign_cpu_share} load foreign ${r.load_foreign_cpu_share} proxy ${r.proxy_cpu_share} ${r.status} ${r.reason}`,
      )
    assert.ok(quiet.length >= 1)
    for (const r of quiet)
      assert.ok(r.steal_share !== null && r.foreign_cpu_share !== null && r.foreign_cpu_share >= 0 && r.steal_share >= 0, JSON.stringify(r))
    for (const r of quiet) assert.equal(r.load_foreign_cpu_share === null, load === '', JSON.stringify(r))

    busyOn(cpus.proxy)
    await runPhase(
      'busy',
      closedTasks([catalogCellPlan('haproxy', { series: 'pool-added', variant: 'pool-added', connections })], ctx),
      out,
      log,
      false,
      adaptive,
    )
    const rows = readTable(out, MEASUREMENTS).filter((r) => r.series === 'pool-added')
    for (const r of rows) console.log(`busy loop on the proxy core: steal ${r.steal_share} foreign ${r.foreign_cpu_share} proxy ${r.proxy_cpu_share}`)
    assert.equal(rows.length, 1 + profile.maxDisturbed!, 'the disturbed window is re-measured within its budget, then the cell stops')
    for (const r of rows) {
      assert.equal(r.status, 'invalid', JSON.stringify(r))
      assert.match(r.reason, /^disturbed: steal \d+\.\d% \/ foreign CPU \d+% on the proxy's cores/)
      assert.ok(r.foreign_cpu_share! > MAX_FOREIGN_SHARE, `foreign ${r.foreign_cpu_share}`)
    }
    assert.deepEqual(
      rows.map((r) => r.repeat),
      [1, 2],
    )
    assert.ok(
      log.lines.some((l) => /busy: 0 of 1 cells reached .*disturbed budget: 2 windows disturbed × 1/.test(l)),
      log.lines.join('\n'),
    )
    stopLoops()

    // The generator's and backend's cores (on 2 cores: core 0, which they share), where a machine has them apart from the proxy's.
    if (load === '') return
    busyOn(load)
    await runPhase(
      'load-busy',
      closedTasks([catalogCellPlan('haproxy', { series: 'pool-removed', variant: 'pool-removed', connections })], ctx),
      out,
      log,
      false,
      adaptive,
    )
    const slowed = readTable(out, MEASUREMENTS).filter((r) => r.series === 'pool-removed')
    for (const r of slowed)
      console.log(
        `busy loop on the load cores: steal ${r.steal_share} foreign ${r.foreign_cpu_share} load foreign ${r.load_foreign_cpu_share} proxy ${r.proxy_cpu_share}`,
      )
    assert.equal(slowed.length, 1 + profile.maxDisturbed!)
    for (const r of slowed) {
      assert.equal(r.status, 'invalid', JSON.stringify(r))
      assert.match(r.reason, /^disturbed: steal \d+\.\d% \/ foreign CPU \d+% on the proxy's cores, \d+% on the generator's and backend's/)
      assert.ok(r.load_foreign_cpu_share! > MAX_FOREIGN_SHARE, `load foreign ${r.load_foreign_cpu_share}`)
    }
  } finally {
    stopLoops()
    await runtime.stopAll()
    release()
  }
})
