import assert from 'node:assert/strict'
import { test } from 'node:test'
import { compareAcrossRuns, compareRuns, formatChange, formatDetectable, pairVersions, type ComparisonRow } from '../../lib/analysis/compare.ts'
import { estimateBetweenRun } from '../../lib/analysis/between-run.ts'
import { familyOf, runFigures } from '../../lib/analysis/run-figures.ts'
import { seededRandom } from '../../lib/core/shuffle.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { cpuRepeats, measurement } from '../fixtures/rows.ts'

const COST = familyOf('cost', 'proxy_cpu_us_per_req', 'measurements', { model: 'closed' })
const tables = (measurements: Measurement[]) => ({ measurements, handshakes: [], websocket: [] })

/**
 * Simulated runs of one machine: CELLS closed cells; a run shifts every cell by a common
 * log-normal factor (SD `common`) and each cell by its own (SD `own`); each window adds
 * noise (SD `within`). `change` multiplies cell 0.
 */
const SIM = { cells: 20, common: 0.08, own: 0.06, within: 0.08 }
function simulatedRun(random: () => number, rounds: number, change = 1): Measurement[] {
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())
  const shift = SIM.common * normal()
  const rows: Measurement[] = []
  for (let c = 0; c < SIM.cells; c++) {
    const level = (20 + 5 * c) * Math.exp(shift + SIM.own * normal()) * (c === 0 ? change : 1)
    for (let r = 1; r <= rounds; r++) rows.push(measurement({ variant: `v${c}`, repeat: r, proxy_cpu_us_per_req: level * Math.exp(SIM.within * normal()) }))
  }
  return rows
}
/** The prior a lab note would hold for these runs: the run shift and the cell's own, with many degrees of freedom. */
const PRIOR = { [COST]: { sd: Math.hypot(SIM.common, SIM.own), df: 200 } }
const cell0 = (rows: ComparisonRow[]) => rows.find((c) => c.kind === 'cost' && c.key.variant === 'v0')!

test('at 2+2 repeats without a prior: every figure is "too few repeats to compare", with the change and no test', () => {
  const random = seededRandom(1)
  const rows = compareAcrossRuns(tables(simulatedRun(random, 2)), tables(simulatedRun(random, 2, 2)), { prior: {} })
  assert.ok(rows.length >= SIM.cells)
  for (const c of rows) {
    assert.equal(c.verdict, 'too few repeats to compare')
    assert.equal(c.interval, null)
    assert.equal(c.detectable, null)
    assert.match(c.between.source, /no between-run variance/)
  }
  // Even a doubling is not called: a test that cannot reach its level is not shown.
  assert.ok(cell0(rows).change > 0.5)
  assert.equal(formatDetectable(cell0(rows)), '—')
})

test('power: with the prior, a change larger than the stated detectable change is found; no change is not called', () => {
  const random = seededRandom(7)
  const stated = cell0(compareAcrossRuns(tables(simulatedRun(random, 2)), tables(simulatedRun(random, 2)), { prior: PRIOR }))
  assert.notEqual(stated.verdict, 'too few repeats to compare')
  const d = stated.detectable!
  assert.ok(d > 0.2 && d < 1.5, `detectable ${d}`) // two repeats a side and a run shift: a coarse test, but one that can decide
  assert.match(stated.between.source, /lab note/)
  const trials = 200
  let found = 0
  let falseAlarms = 0
  for (let i = 0; i < trials; i++) {
    // 1.2 × the stated change (on the log scale): the test must find it in at least 80% of the pairs.
    const rows = compareAcrossRuns(tables(simulatedRun(random, 2)), tables(simulatedRun(random, 2, Math.exp(1.2 * Math.log(1 + d)))), { prior: PRIOR })
    if (cell0(rows).verdict === 'increased') found++
    const same = compareAcrossRuns(tables(simulatedRun(random, 2)), tables(simulatedRun(random, 2)), { prior: PRIOR })
    if (cell0(same).verdict !== 'no change') falseAlarms++
  }
  assert.ok(found / trials >= 0.8, `found ${found}/${trials}`)
  assert.ok(falseAlarms / trials <= 0.1, `false alarms ${falseAlarms}/${trials}`)
})

test("more rounds: the runs' own rounds give a between-run variance without a prior, and a smaller detectable change", () => {
  const random = seededRandom(3)
  const quick = cell0(compareAcrossRuns(tables(simulatedRun(random, 2)), tables(simulatedRun(random, 2)), { prior: PRIOR }))
  const rows = compareAcrossRuns(tables(simulatedRun(random, 6)), tables(simulatedRun(random, 6)), { prior: {} })
  const c = cell0(rows)
  assert.notEqual(c.verdict, 'too few repeats to compare')
  assert.match(c.between.source, /own rounds \(10 df/)
  const withPrior = cell0(compareAcrossRuns(tables(simulatedRun(random, 6)), tables(simulatedRun(random, 6)), { prior: PRIOR }))
  assert.ok(withPrior.detectable! < quick.detectable!, `${withPrior.detectable} < ${quick.detectable}`)
})

test("between-run estimate from repeated runs: recovers the run shift and the cells' own shift", () => {
  const random = seededRandom(11)
  const runs = Array.from({ length: 12 }, () => runFigures(tables(simulatedRun(random, 3))))
  const e = estimateBetweenRun(runs).find((x) => x.family === COST)!
  assert.equal(e.runs, 12)
  assert.equal(e.cells, SIM.cells)
  assert.ok(Math.abs(e.total.sd - Math.hypot(SIM.common, SIM.own)) < 0.04, `total ${e.total.sd}`)
  assert.ok(Math.abs(e.own.sd - SIM.own) < 0.025, `own ${e.own.sd}`)
  assert.equal(e.own.df, 11 * 19)
})

test('counts, ratios within a run and costs: in that order; a ratio cancels a machine that is 2x slower in everything', () => {
  const run = (k: number, conns: number) => [
    ...[1, 2, 3, 4, 5, 6].flatMap((r) => [
      ...['haproxy', 'nginx'].flatMap((proxy, p) => [
        measurement({
          proxy,
          series: 'pool-added',
          variant: 'pool-added',
          repeat: r,
          proxy_cpu_us_per_req: k * (20 + p + (r % 2)),
          backend_conns_per_1k_req: conns,
        }),
        measurement({
          proxy,
          series: 'pool-removed',
          variant: 'pool-removed',
          repeat: r,
          proxy_cpu_us_per_req: k * (60 + 3 * p + (r % 3)),
          backend_conns_per_1k_req: 1000,
        }),
      ]),
      measurement({
        series: 'direct',
        proxy: 'direct',
        variant: 'direct',
        repeat: r,
        proxy_cpu_us_per_req: null,
        backend_cpu_us_per_req: k * (10 + (r % 2) / 4),
      }),
    ]),
  ]
  const rows = compareAcrossRuns(tables(run(1, 0)), tables(run(2, 0)), { prior: {} })
  const kinds = rows.map((c) => c.kind)
  assert.deepEqual([...new Set(kinds)], ['count', 'ratio', 'cost'])
  assert.deepEqual(
    kinds,
    [...kinds].sort((a, b) => ['count', 'ratio', 'cost'].indexOf(a) - ['count', 'ratio', 'cost'].indexOf(b)),
  )
  const pooling = rows.filter((c) => c.metric === 'pool-removed / pool-added')
  assert.equal(pooling.length, 2)
  for (const c of pooling) {
    assert.ok(Math.abs(c.change) < 1e-9)
    assert.equal(c.verdict, 'no change')
  }
  const calibrated = rows.filter((c) => c.metric === 'proxy / direct')
  assert.equal(calibrated.length, 4)
  for (const c of calibrated) assert.ok(Math.abs(c.change) < 0.03, formatChange(c))
  const raw = rows.find((c) => c.kind === 'cost' && c.key.series === 'pool-added' && c.key.proxy === 'haproxy')!
  assert.equal(raw.verdict, 'increased')
  assert.ok(Math.abs(raw.change - 1) < 1e-9)
  // Without the counters' columns there are no such figures; backend conns/1k compare on (x + 1).
  assert.ok(!rows.some((c) => c.metric === 'proxy_syscalls_per_req'))
  assert.equal(rows.find((c) => c.metric === 'backend_conns_per_1k_req' && c.key.series === 'pool-added' && c.key.proxy === 'haproxy')!.change, 0)
})

test("the counters' columns, when a run has them, are counts compared first", () => {
  const withCounts = (k: number) =>
    [1, 2, 3, 4, 5, 6].map(
      (r) =>
        ({
          ...measurement({ repeat: r, proxy_cpu_us_per_req: 30 + r }),
          proxy_syscalls_per_req: k * (7.4 + r / 100),
          proxy_ctxsw_per_req: 0.014,
        }) as Measurement,
    )
  const rows = compareAcrossRuns(tables(withCounts(1)), tables(withCounts(1.5)), { prior: {} })
  const sys = rows.find((c) => c.metric === 'proxy_syscalls_per_req')!
  assert.equal(sys.kind, 'count')
  assert.ok(Math.abs(sys.change - 0.5) < 0.01)
  assert.ok(rows.some((c) => c.metric === 'proxy_ctxsw_per_req'))
  assert.equal(rows[0]!.kind, 'count')
})

test('versions: the same version pairs with itself, else newest with newest; medians side by side', () => {
  assert.deepEqual(pairVersions(['1.22.1', '1.29.0'], ['1.22.1', '1.31.3']), [
    ['1.22.1', '1.22.1'],
    ['1.29.0', '1.31.3'],
  ])
  assert.deepEqual(pairVersions(['1'], ['1']), [['1', '1']])
  const [d] = compareRuns(tables(cpuRepeats({}, [10, 11, 12])), tables(cpuRepeats({ version: '3.0.0' }, [20, 21, 22])))
  assert.equal(d!.key.version, '2.8.25 → 3.0.0')
  assert.equal(d!.delta, 21 / 11 - 1)
  const [c] = compareAcrossRuns(tables(cpuRepeats({}, [10, 11, 12])), tables(cpuRepeats({ version: '3.0.0' }, [20, 21, 22])), { prior: {} }).filter(
    (x) => x.kind === 'cost',
  )
  assert.equal(c!.key.version, '2.8.25 → 3.0.0')
})
