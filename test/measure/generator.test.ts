import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cpuPerUnit, judgedColumns, type GeneratorOutcome } from '../../lib/measure/generator.ts'
import type { RunningRole } from '../../lib/runtime/types.ts'

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
