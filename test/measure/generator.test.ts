import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import type { CellContext } from '../../lib/measure/cell.ts'
import { cpuPerUnit, judgedColumns, RAMP_DROPPED, runGenerator, type GeneratorOutcome } from '../../lib/measure/generator.ts'
import { MAX_EXTENSION } from '../../lib/measure/slices.ts'
import type { Exit, RoleSpec, Runtime, RunningRole } from '../../lib/runtime/types.ts'

const proxy = { spec: { role: 'proxy' } } as RunningRole
const outcome = (o: Partial<GeneratorOutcome<unknown>>): GeneratorOutcome<unknown> => ({
  result: null,
  cpuNs: new Map([[proxy, 2_000_000]]),
  counts: new Map(),
  generatorShare: 0.1,
  wallS: 1,
  exit: null,
  disturbance: null,
  counted: null,
  workShare: 1,
  disturbedSliceShare: 0,
  extendedS: null,
  unjudged: null,
  ...o,
})

test("a run counted whole: the proxy's CPU over the generator's units", () => {
  assert.equal(cpuPerUnit(outcome({}), proxy, 400), 5)
  assert.equal(cpuPerUnit(outcome({}), proxy, 0), null)
  assert.deepEqual(judgedColumns(outcome({}), []), {
    status: 'valid',
    reason: '',
    steal_share: null,
    foreign_cpu_share: null,
    load_foreign_cpu_share: null,
    foreign_processes: '',
    counted_share: 1,
    disturbed_slice_share: 0,
  })
  assert.equal(judgedColumns(outcome({}), ['errors 2.0% >= 1%']).status, 'invalid')
  assert.equal(judgedColumns(outcome({ disturbedSliceShare: null }), []).disturbed_slice_share, null, 'not read in slices')
})

test("a run counted from its clean slices: their CPU over the units scaled by their share of the backend's work", () => {
  // The clean slices did 40% of the backend's work: 400 handshakes over the run count as 160.
  assert.equal(cpuPerUnit(outcome({ workShare: 0.4 }), proxy, 400), 12.5)
})

const disturbed = (clean: boolean) => ({
  seconds: 0.5,
  work: 100,
  rolesNs: [1e6],
  disturbance: { stealShare: 0, foreignShare: clean ? 0 : 0.5, loadForeignShare: 0 },
  clean,
})
const countedSlices = (counts: boolean[]) => ({
  slices: counts.map(disturbed),
  counts,
  seconds: 0.5 * counts.filter(Boolean).length,
  work: 100 * counts.filter(Boolean).length,
  rolesNs: [1e6 * counts.filter(Boolean).length],
  share: counts.filter(Boolean).length / counts.length,
  disturbance: { stealShare: 0, foreignShare: 0, loadForeignShare: 0 },
})

test('a run whose ramp slice was disturbed says its figure is the steady cost; one with its ramp does not', () => {
  const dropped = judgedColumns(outcome({ counted: countedSlices([false, true, true, true]) }), [])
  assert.match(dropped.reason, new RegExp(`^counted 1\\.5 of 2\\.0 s \\(3 of 4 slices\\).*; ${RAMP_DROPPED}$`))
  const kept = judgedColumns(outcome({ counted: countedSlices([true, true, false, true]) }), [])
  assert.doesNotMatch(kept.reason, new RegExp(RAMP_DROPPED))
})

test('an extended run states the length it took; one that ended on time keeps the planned duration_s', () => {
  assert.equal(judgedColumns(outcome({ extendedS: 13.5 }), []).duration_s, 13.5)
  assert.equal('duration_s' in judgedColumns(outcome({}), []), false)
})

/**
 * A runtime whose generator runs until interrupted, then prints its summary: what a loadgen
 * load does on SIGINT (stacks/loadgen/interrupt.go). It records the argv and when the SIGINT came.
 */
function interruptibleRuntime() {
  const seen: { argv?: string[]; interruptedAfterMs?: number } = {}
  let startedAt = 0
  const runtime = {
    kind: 'native',
    async start(spec: RoleSpec): Promise<RunningRole> {
      seen.argv = spec.argv
      startedAt = Date.now()
      let end: (e: Exit) => void = () => {}
      const role: RunningRole = { spec, pid: 0, exited: new Promise<Exit>((r) => (end = r)) }
      ;(role as RunningRole & { end: typeof end }).end = (e) => {
        role.exit = e
        end(e)
      }
      return role
    },
    cpuNs: async () => 0,
    async interrupt(role: RunningRole) {
      seen.interruptedAfterMs = Date.now() - startedAt
      writeFileSync(role.spec.logFile, '{"ok": 7}\n')
      ;(role as RunningRole & { end(e: Exit): void }).end({ code: 0, signal: null })
    },
    async stop() {},
  } as unknown as Runtime
  return { runtime, seen }
}

test('a run that may extend itself is started for its longest window and interrupted when its planned window is over, its summary read', async () => {
  const { runtime, seen } = interruptibleRuntime()
  const runDir = mkdtempSync(join(tmpdir(), 'pb-generator-'))
  const ctx = { runtime, runDir, counts: false, cpus: { proxy: '1', backend: '0', generator: '0' } } as unknown as CellContext
  const plannedS = 1
  // No work counter: not read in slices, so it cannot extend; it ends at its planned end.
  const g = await runGenerator<{ ok: number }>(ctx, 'x', (s) => ['loadgen', 'open', '-d', `${s}s`], join(runDir, 'x.json'), [], [], plannedS)
  assert.deepEqual(seen.argv, ['loadgen', 'open', '-d', `${(1 + MAX_EXTENSION) * plannedS}s`])
  assert.ok(seen.interruptedAfterMs! >= plannedS * 1000 - 50 && seen.interruptedAfterMs! < plannedS * 1000 + 1000, `${seen.interruptedAfterMs} ms`)
  assert.deepEqual(g.result, { ok: 7 })
  assert.equal(g.exit, null)
  assert.equal(g.extendedS, null)
})
