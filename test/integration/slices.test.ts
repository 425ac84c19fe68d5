import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { rawFile, repeatStem } from '../../lib/data/raw-files.ts'
import { catalogCellPlan } from '../../lib/measure/cell.ts'
import { measureClosed } from '../../lib/measure/closed.ts'
import { cpuIds } from '../../lib/measure/disturbance.ts'
import { NEIGHBOUR_NAME, startNeighbour, type Neighbour } from '../../lib/measure/neighbour.ts'
import { MIN_COUNTED_SHARE } from '../../lib/measure/slices.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import { smokeContext, waitForRunLock } from './support/smoke-cell.ts'

// Real HAProxy windows (native runtime) of 4 s, and inside each a real neighbour spinning on
// the proxy's core for 1 s from 1.5 s into the window: the slices it ran in are disturbed,
// the others are clean and cover more than half the window, so the row is valid and counted
// from them. A window the machine disturbed elsewhere too is tried again (3 tries).
const WINDOW_S = 4
const BURST_AT_S = 1.5
const BURST_S = 1

test('a window with a short neighbour burst inside is counted from its clean slices, named, and its slices kept in raw/', { timeout: 300_000 }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'pb-slices-'))
  const release = await waitForRunLock(out)
  const log = memoryLogger()
  const runtime = new NativeRuntime(`slices-${process.pid}`)
  const ctx = await smokeContext(runtime, 'slices', out, log)
  ctx.profile = { ...ctx.profile, durationS: WINDOW_S }
  const neighbours: Promise<Neighbour>[] = []
  // The gate runs right before the generator starts; the window opens after the warm-up.
  ctx.windowGate = {
    beforeWindow: async () => {
      const at = (ctx.profile.warmupS + BURST_AT_S) * 1000
      neighbours.push(
        new Promise((resolve, reject) =>
          setTimeout(() => startNeighbour({ cpu: cpuIds(ctx.cpus.proxy)[0]!, share: 1, burstS: [BURST_S, BURST_S], maxS: BURST_S }).then(resolve, reject), at),
        ),
      )
    },
  }
  const cell = catalogCellPlan('haproxy', { series: 'same', variant: 'article', connections: ctx.connections })
  const rows = []
  try {
    for (let repeat = 1; repeat <= 3; repeat++) {
      const row = await measureClosed(cell, repeat, ctx)
      rows.push(row)
      console.log(`${row.status} counted ${row.counted_share} foreign ${row.foreign_cpu_share} [${row.foreign_processes}] ${row.reason}`)
      if (row.status === 'valid' && row.counted_share! < 1) break
    }
  } finally {
    for (const n of await Promise.allSettled(neighbours)) if (n.status === 'fulfilled') await n.value.stop()
    await runtime.stopAll()
    release()
  }
  const counted = rows.find((r) => r.status === 'valid' && r.counted_share! < 1)
  assert.ok(counted, `no window counted from its clean slices in ${rows.length} tries: ${rows.map((r) => r.reason).join(' | ')}`)
  assert.ok(counted.counted_share! >= MIN_COUNTED_SHARE, String(counted.counted_share))
  assert.match(counted.reason, /counted \d+\.\d of \d+\.\d s \(\d+ of \d+ slices\): the others disturbed \(foreign CPU up to \d+%/)
  assert.match(counted.foreign_processes ?? '', new RegExp(`(^|, )${NEIGHBOUR_NAME} \\d+%`), 'the neighbour named')
  assert.ok(counted.foreign_cpu_share! <= 0.1, 'the counted slices are clean')
  assert.ok(counted.proxy_cpu_us_per_req! > 0 && counted.requests! > 0)
  const file = rawFile(out, repeatStem(cell, counted.repeat), 'slices.json')
  assert.ok(existsSync(file), file)
  const kept = JSON.parse(readFileSync(file, 'utf8')) as { counted_share: number; slices: { seconds: number; clean: boolean; work: number }[] }
  assert.equal(kept.counted_share, counted.counted_share)
  assert.ok(kept.slices.some((s) => !s.clean) && kept.slices.some((s) => s.clean))
  const cleanS = kept.slices.filter((s) => s.clean).reduce((t, s) => t + s.seconds, 0)
  const totalS = kept.slices.reduce((t, s) => t + s.seconds, 0)
  assert.ok(Math.abs(cleanS / totalS - kept.counted_share) < 0.01, `${cleanS} of ${totalS} s`)
})
