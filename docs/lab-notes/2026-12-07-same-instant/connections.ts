// Split or full connections per side (node --import tsx docs/lab-notes/2026-12-07-same-instant/connections.ts ROUNDS PROXY):
// with 200 each (full) and 100 each (split of 200), beside adjacent single windows of 200.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROFILES } from '../../../lib/catalog/profiles.ts'
import { loadStack } from '../../../lib/catalog/stack.ts'
import { memoryLogger } from '../../../lib/core/log.ts'
import { catalogCellPlan } from '../../../lib/measure/cell.ts'
import { measureClosed } from '../../../lib/measure/closed.ts'
import { measureClosedPair } from '../../../lib/measure/pair-window.ts'
import { NativeRuntime } from '../../../lib/runtime/native.ts'
import { thenContext } from '../../../lib/series/then.ts'
import { resolveThenBuild } from '../../../lib/setup/then-builds.ts'
import { smokeContext, waitForRunLock } from '../../../test/integration/support/smoke-cell.ts'

const out = mkdtempSync(join(tmpdir(), 'pb-conn-exp-'))
const release = await waitForRunLock(out)
const runtime = new NativeRuntime(`conn-exp-${process.pid}`)
const rounds = Number(process.argv[2] ?? 4)
const proxy = (process.argv[3] ?? 'haproxy') as 'haproxy'
try {
  const ctx = await smokeContext(runtime, 'conn-exp', out, memoryLogger())
  const q = PROFILES.quick!
  ctx.profile = { ...q, durationS: 1 }
  const cell = (connections: number) => catalogCellPlan(proxy, { series: 'pool-added', variant: 'pool-added', connections })
  const c200 = cell(200)
  const copy = await resolveThenBuild(loadStack(proxy), { proxy, baseline: 't', version: c200.version, sha256: null, now: c200.stackVersion!, pairSame: true, configs: 'today' })
  const twin = (c: ReturnType<typeof cell>) => ({ ...c, build: copy.build! })
  const thenCtx = thenContext(ctx)
  const show = (kind: string, r: number, rows: { proxy_cpu_us_per_req: number | null; rps: number | null; generator_cpu_share: number | null; foreign_cpu_share: number | null; status: string; reason: string }[]) =>
    console.log(JSON.stringify({ kind, r, rows: rows.map((x) => [x.proxy_cpu_us_per_req, x.rps, x.generator_cpu_share, x.foreign_cpu_share, x.status, x.reason.slice(0, 60)]) }))
  let rep = 0
  for (let r = 1; r <= rounds; r++) {
    show('full', r, await measureClosedPair(c200, twin(c200), ++rep, ctx, thenCtx))
    show('split', r, await measureClosedPair(cell(100), twin(cell(100)), ++rep, ctx, thenCtx))
    show('adjacent', r, [await measureClosed(c200, ++rep, ctx), await measureClosed(twin(c200), rep, thenCtx)])
  }
} finally {
  await runtime.stopAll()
  release()
}
