import assert from 'node:assert/strict'
import { test } from 'node:test'
import { machineChange, pairedCells, pairedChange, pooledNoise, proxyChanges, verdictText } from '../../lib/analysis/pairs.ts'
import { LEVEL, normalQuantile, studentQuantile } from '../../lib/core/intervals.ts'
import type { RunTables } from '../../lib/data/run-data.ts'
import { synthetic, tables, workRow } from '../fixtures/paired.ts'

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

/** A --like run of work rows: now and then, and the baseline's record of then. */
const counted = (now: ReturnType<typeof workRow>[], then: ReturnType<typeof workRow>[], base: ReturnType<typeof workRow>[] = then) => ({
  run: { ...tables(now), paired: { sides: { baseline: 'b', pair_same: false, sides: [] }, tables: tables(then) } },
  baseline: tables(base),
})

test('a work cell reads its counts: 3.1% less work is decided with an interval that holds it and excludes 1', () => {
  const { run, baseline } = counted([workRow({ version: '3.0.0', value: 96_900, rel: 0.002 })], [workRow({ version: '2.8.25', value: 100_000, rel: 0.002 })])
  const [c] = pairedCells(run, baseline)
  assert.equal(c!.basis, 'work')
  assert.equal(c!.verdict, 'cheaper')
  assert.ok(c!.change!.lo < 0.969 && 0.969 < c!.change!.hi && c!.change!.hi < 1, `${c!.change!.lo} .. ${c!.change!.hi}`)
  // Each side's ±0.2% over 3 rounds is a standard error of 0.2%/t(0.975, 2) = 0.047%; the change's is √2 of it, at Welch's 4 df: ±0.18%.
  const se = Math.SQRT2 * (0.002 / studentQuantile(0.975, 2))
  assert.ok(Math.abs(c!.detectable! - (Math.exp(studentQuantile(0.975, 4) * se) - 1)) < 1e-4, `${c!.detectable}`)
  // One repeat a side: the pair is the count's, not the rounds'.
  assert.equal(c!.pairs, 1)
})

test('an A/A work cell is "no change" and says the fraction of a percent it could have seen', () => {
  const { run, baseline } = counted([workRow({ version: '3.0.0', value: 100_050, rel: 0.003 })], [workRow({ version: '2.8.25', value: 100_000, rel: 0.003 })])
  const [c] = pairedCells(run, baseline)
  assert.equal(c!.verdict, 'no change')
  assert.match(verdictText(c!.verdict, c!.detectable), /^no change beyond 0\.\d%$/)
})

test('a proxy with work cells is read by its work; its timed change is shown beside it, and the machine change leaves work cells out', () => {
  const timed = synthetic({ cells: 3, rounds: 4, noise: 0.05, seed: 4, change: 1.3, changed: [0, 1, 2], baselineFactor: 1.2 })
  const now = [...timed.run.measurements, workRow({ version: '3.0.0', value: 97_000, rel: 0.002 })]
  const then = [...timed.run.paired.tables.measurements, workRow({ version: '2.8.25', value: 100_000, rel: 0.002 })]
  const base = [...timed.baseline.measurements, workRow({ version: '2.8.25', value: 100_000, rel: 0.002 })]
  const { run, baseline } = counted(now, then, base)
  const cells = pairedCells(run, baseline)
  const [p] = proxyChanges(cells)
  assert.deepEqual([p!.basis, p!.cells, p!.verdict], ['work', 1, 'cheaper'])
  assert.ok(p!.time!.value > 1.1, `time ${p!.time!.value}`)
  // The machine's change is the timed cells' (1.2 recorded), never the count's 1.0.
  assert.equal(machineChange(cells)!.cells, 3)
  assert.equal(cells.find((c) => c.basis === 'work')!.machine, 1)
})

test('a work cell whose baseline counted with other CPU features says the counting set-up changed', () => {
  const other = 'valgrind-3.19.0 callgrind; 1 worker; cpu sse4_2; idle 0.20% taken off'
  const { run, baseline } = counted(
    [workRow({ version: '3.0.0', value: 100_000, rel: 0.002 })],
    [workRow({ version: '2.8.25', value: 100_000, rel: 0.002 })],
    [workRow({ version: '2.8.25', value: 104_000, rel: 0.002, setup: other })],
  )
  const [c] = pairedCells(run, baseline)
  assert.equal(c!.setupChanged, 'valgrind-3.19.0 callgrind; 1 worker; cpu sse4_2')
  // The corrections (idle, GC) of a row are not its set-up.
  const same = counted([workRow({ version: '3.0.0', value: 1, rel: 0.002 })], [workRow({ version: '2.8.25', value: 1, rel: 0.002 })])
  assert.equal(pairedCells(same.run, same.baseline)[0]!.setupChanged, null)
})
