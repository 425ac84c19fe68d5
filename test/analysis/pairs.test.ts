import assert from 'node:assert/strict'
import { test } from 'node:test'
import { machineChange, pairedCells, pairedChange, pooledNoise, proxyChanges, verdictText } from '../../lib/analysis/pairs.ts'
import { LEVEL, normalQuantile, studentQuantile } from '../../lib/core/intervals.ts'
import type { RunTables } from '../../lib/data/run-data.ts'
import { synthetic, tables } from '../fixtures/paired.ts'

test('an A/A run (no change, the machine drifting 15% round to round): no cell flagged, the drift cancels in the pair', () => {
  const { run, baseline } = synthetic({ cells: 30, rounds: 5, noise: 0.05, seed: 3 })
  const cells = pairedCells(run, baseline)
  assert.equal(cells.length, 30)
  assert.deepEqual(
    cells.filter((c) => c.verdict !== 'no change').map((c) => `${c.variant} ${c.verdict}`),
    [],
  )
  // The smallest detectable change follows the paired noise (SD 0.05·√2 of a log ratio, 5 pairs, Bonferroni over 30 cells), not the drift.
  const q = normalQuantile(1 - (1 - LEVEL) / 2 / 30)
  const expected = Math.exp((q * 0.05 * Math.SQRT2) / Math.sqrt(5)) - 1
  const median = cells.map((c) => c.detectable!).sort((a, b) => a - b)[15]!
  assert.ok(Math.abs(median - expected) / expected < 0.25, `median detectable ${median} vs ${expected}`)
  assert.match(verdictText(cells[0]!.verdict, cells[0]!.detectable), /^no change beyond \d+%$/)
})

test('a planted change of +20% in one cell is found with the right sign and its interval holds it; no other cell is flagged', () => {
  const { run, baseline } = synthetic({ cells: 20, rounds: 8, noise: 0.03, seed: 5, change: 1.2, changed: [4] })
  const cells = pairedCells(run, baseline)
  const flagged = cells.filter((c) => c.verdict !== 'no change')
  assert.deepEqual(
    flagged.map((c) => `${c.variant} ${c.verdict}`),
    ['v4 dearer'],
  )
  const c = flagged[0]!
  assert.ok(c.change!.lo <= 1.2 && 1.2 <= c.change!.hi, `${c.change!.lo} .. ${c.change!.hi}`)
})

test("the machine change is then-today over the baseline's record, per cell and as a median with its interval", () => {
  const { run, baseline } = synthetic({ cells: 12, rounds: 5, noise: 0.02, seed: 8, baselineFactor: 1.3 })
  const cells = pairedCells(run, baseline)
  const mc = machineChange(cells)!
  assert.equal(mc.cells, 12)
  // The drift's mean log is 0 but 5 rounds of SD 0.15 leave it within about ±0.15: the factor 1.3 is seen within that.
  assert.ok(mc.value > 1.1 && mc.value < 1.55, `${mc.value}`)
  assert.ok(mc.lo <= mc.value && mc.value <= mc.hi)
  // Code-path counts cross machines (then today vs the baseline), the within-run ones sit beside them.
  assert.deepEqual(cells[0]!.counts.proxy_syscalls_per_req, { now: 6, thenToday: 6, baseline: 6 })
  // A pooled proxy opens no backend connection: 0 is a count, not a missing one.
  assert.deepEqual(cells[0]!.counts.backend_conns_per_1k_req, { now: 0, thenToday: 0, baseline: 0 })
  assert.equal(cells[0]!.counts.proxy_ctxsw_per_req!.baseline, null)
})

test('a proxy change pools its cells; a cell with fewer than two pairs is "too few repeats"', () => {
  const { run, baseline } = synthetic({ cells: 10, rounds: 4, noise: 0.03, seed: 2, change: 0.8, changed: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] })
  const [p] = proxyChanges(pairedCells(run, baseline))
  assert.equal(p!.verdict, 'cheaper')
  assert.ok(p!.change!.lo <= 0.8 && 0.8 <= p!.change!.hi, `${p!.change!.lo} .. ${p!.change!.hi}`)
  assert.equal(pairedChange([0.1], pooledNoise([[0.1, 0.2]]), 1).verdict, 'too few repeats')
  // A cell none of whose then windows was valid is still a paired cell: too few repeats, not left out.
  const spoiled = {
    ...run,
    paired: { ...run.paired, tables: tables(run.paired.tables.measurements.map((r) => (r.variant === 'v0' ? { ...r, status: 'invalid' as const } : r))) },
  }
  const v0 = pairedCells(spoiled, baseline).find((c) => c.variant === 'v0')!
  assert.deepEqual([v0.pairs, v0.verdict, v0.machine], [0, 'too few repeats', null])
})

test('the paired interval uses the pooled noise but never narrows a cell below its own spread', () => {
  const noise = pooledNoise([
    [0, 0.01],
    [0.02, 0.03],
  ])
  assert.equal(noise.df, 2)
  const wide = pairedChange([-0.3, 0.3, -0.3, 0.3], noise, 1)
  const ownSd = Math.sqrt((4 * 0.09) / 3)
  const q = studentQuantile(0.975, 2)
  assert.ok(Math.abs(Math.log(wide.change!.hi) - (q * ownSd) / 2) < 1e-9)
})

test('the family-wise level counts every cell the run judges, across its tables', () => {
  const { run } = synthetic({ cells: 10, rounds: 5, noise: 0.05, seed: 11 })
  // Cells v0 and v1 as handshake cells: the same rows under the handshakes table's cost column.
  const asHandshakes = (rows: typeof run.measurements) =>
    rows.filter((r) => r.variant === 'v0' || r.variant === 'v1').map((r) => ({ ...r, resumption: 'full', proxy_cpu_us_per_handshake: r.proxy_cpu_us_per_req }))
  const rest = (rows: typeof run.measurements) => rows.filter((r) => r.variant !== 'v0' && r.variant !== 'v1')
  const split = <T extends RunTables>(t: T): T => ({ ...t, measurements: rest(t.measurements), handshakes: asHandshakes(t.measurements) as never })
  const whole = { ...split(run), paired: { ...run.paired, tables: split(run.paired.tables) } }
  const alone = { ...whole, measurements: [], paired: { ...whole.paired, tables: { ...whole.paired.tables, measurements: [] } } }
  const detectable = (r: typeof whole) =>
    pairedCells(r)
      .filter((c) => c.table === 'handshakes')
      .map((c) => c.detectable!)
  const inRun = detectable(whole)
  const byThemselves = detectable(alone)
  assert.equal(inRun.length, 2)
  // Judged among 10 cells, a handshake cell needs a larger change to be flagged than among its table's 2.
  for (const [i, d] of inRun.entries()) assert.ok(d > byThemselves[i]!, `${d} vs ${byThemselves[i]}`)
})

test('noise is pooled per load model: noisy open-model cells do not widen the closed cells', () => {
  const quiet = synthetic({ cells: 10, rounds: 5, noise: 0.02, seed: 12 })
  const noisy = synthetic({ cells: 2, rounds: 5, noise: 0.3, seed: 13 })
  const open = (rows: typeof quiet.run.measurements) => rows.map((r) => ({ ...r, model: 'open' as const, variant: `open-${r.variant}` }))
  const both = {
    ...tables([...quiet.run.measurements, ...open(noisy.run.measurements)]),
    paired: { ...quiet.run.paired, tables: tables([...quiet.run.paired.tables.measurements, ...open(noisy.run.paired.tables.measurements)]) },
  }
  const closedSe = (run: typeof both) =>
    pairedCells(run)
      .filter((c) => c.key.model !== 'open')
      .map((c) => c.logSe!)
      .sort((a, b) => a - b)[5]!
  const alone = closedSe(quiet.run)
  const beside = closedSe(both)
  assert.ok(beside < alone * 1.2, `closed cells' median log SE ${beside} beside noisy open cells, ${alone} alone`)
})
