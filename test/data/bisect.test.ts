import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { promote } from '../../lib/data/baselines.ts'
import { copyFixtureRun } from '../fixtures/run.ts'
import { BISECT_FILE, bisectResults, readBisectPlan, writeBisectPlan, type BisectPlan } from '../../lib/data/bisect.ts'

type Row = Parameters<typeof bisectResults>[1][number]
/** Synthetic rows of a bisect: five repeats a version, CPU and backend connections per level. */
const rows = (variant: string, levels: Record<string, [number, number]>, status: Row['status'] = 'valid'): Row[] =>
  Object.entries(levels).flatMap(([version, [cpu, conns]]) =>
    [0.98, 1.01, 0.99, 1.02, 1].map((f, i) => ({
      series: 'bisect',
      proxy: 'nginx',
      version,
      variant,
      model: 'closed' as const,
      repeat: i + 1,
      status,
      proxy_cpu_us_per_req: cpu * f,
      backend_conns_per_1k_req: conns * f,
    })),
  )

const plan = (metric: BisectPlan['metric']): BisectPlan => ({
  metric,
  alpha: 0.05,
  min_effect: 0.1,
  searches: [{ proxy: 'nginx', variant: 'upstream-default', source: 'catalog', versions: ['1.22.1', '1.26.3', '1.30.6', '1.31.3'], skipped: [], images: {} }],
})

test("the step line: the pair, the effect with its interval on the chosen metric, the other metric's medians", () => {
  const data = rows('upstream-default', { '1.22.1': [88, 1001], '1.26.3': [87, 1000], '1.30.6': [55, 205], '1.31.3': [54, 210] })
  const [conns] = bisectResults(plan('conns'), data)
  assert.equal(conns!.state.kind, 'step')
  assert.match(
    conns!.line,
    /^nginx upstream-default: the step is between 1\.26\.3 and 1\.30\.6: 0\.2\d \[0\.\d\d, 0\.\d\d\]x backend conns\/1k 1000 → 205 \(p=0\.008, 5\+5 repeats\), proxy CPU µs\/req 87\.0 → 55\.0$/,
  )
  const [cpu] = bisectResults(plan('cpu'), data)
  assert.match(cpu!.line, /the step is between 1\.26\.3 and 1\.30\.6: 0\.63 \[/)
})

test('unfinished and no-step lines; invalid rows count as measured, never as values', () => {
  assert.equal(bisectResults(plan('cpu'), [])[0]!.line, 'nginx upstream-default: unfinished, 1.22.1, 1.31.3 still to measure')
  const flat = bisectResults(plan('cpu'), rows('upstream-default', { '1.22.1': [80, 1000], '1.31.3': [81, 1000] }))[0]!
  assert.match(flat.line, /^nginx upstream-default: no significant step from 1\.22\.1 to 1\.31\.3 \(±10% or less, or not significant\): 1\.01/)
  const disturbed = bisectResults(plan('cpu'), [
    ...rows('upstream-default', { '1.22.1': [80, 1000] }),
    ...rows('upstream-default', { '1.31.3': [50, 200] }, 'invalid'),
  ])[0]!
  assert.equal(disturbed.state.kind, 'inconclusive')
  assert.match(disturbed.line, /inconclusive, the step \(if any\) lies between 1\.22\.1 and 1\.31\.3: 1\.31\.3 has 0 valid repeats/)
  // Another variant's rows are not this search's.
  assert.equal(bisectResults(plan('cpu'), rows('article', { '1.22.1': [80, 1000] }))[0]!.state.kind, 'measure')
})

test('bisect.json: written atomically and read back; a malformed one is one line naming the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-bisect-'))
  assert.equal(readBisectPlan(dir), undefined)
  writeBisectPlan(dir, plan('conns'))
  assert.deepEqual(readBisectPlan(dir), plan('conns'))
  writeFileSync(join(dir, BISECT_FILE), '{"metric": "rps", "searches": []}')
  assert.throws(
    () => readBisectPlan(dir),
    (e: Error) => e instanceof UserError && e.message.startsWith(`${join(dir, BISECT_FILE)}: metric:`) && !e.message.includes('\n'),
  )
})

test('a promoted run keeps its bisect.json (the report reads the bisect rows through it)', () => {
  const run = copyFixtureRun()
  writeBisectPlan(run, plan('cpu'))
  const target = promote(run, { id: 'with-bisect', dir: mkdtempSync(join(tmpdir(), 'pb-baselines-')), log: memoryLogger() })
  assert.deepEqual(readBisectPlan(target), plan('cpu'))
})
