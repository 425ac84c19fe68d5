import assert from 'node:assert/strict'
import { test } from 'node:test'
import { detectableChange, machineChange, pairedCells, pairedChange, pooledNoise, proxyChanges, verdictText } from '../../lib/analysis/pairs.ts'
import { LEVEL, normalQuantile, studentQuantile } from '../../lib/core/intervals.ts'
import { seededRandom } from '../../lib/core/shuffle.ts'
import type { RunTables } from '../../lib/data/run-data.ts'
import { gauss, synthetic, tables, workRow } from '../fixtures/paired.ts'

test('an A/A run (no change, the machine drifting 15% round to round): no cell flagged, the drift cancels in the pair', () => {
  const { run, baseline } = synthetic({ cells: 30, rounds: 5, noise: 0.05, seed: 3 })
  const cells = pairedCells(run, baseline)
  assert.equal(cells.length, 30)
  assert.deepEqual(
    cells.filter((c) => c.verdict !== 'no change').map((c) => `${c.variant} ${c.verdict}`),
    [],
  )
  // The detectable change follows the paired noise (SD 0.05·√2 of a log ratio, 5 pairs, Bonferroni over 30 cells, 80% power), not the drift.
  const q = normalQuantile(1 - (1 - LEVEL) / 2 / 30) + normalQuantile(0.8)
  const expected = Math.exp((q * 0.05 * Math.SQRT2) / Math.sqrt(5)) - 1
  const median = cells.map((c) => c.detectable!).sort((a, b) => a - b)[15]!
  assert.ok(Math.abs(median - expected) / expected < 0.25, `median detectable ${median} vs ${expected}`)
  assert.match(verdictText(cells[0]!.verdict, cells[0]!.detectable), /^no change \(±\d+% detectable at 80% power\)$/)
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

test('the paired interval uses the pooled noise but never narrows a cell below its own spread, which keeps its own degrees of freedom', () => {
  const noise = pooledNoise([
    [0, 0.01],
    [0.02, 0.03],
  ])
  assert.equal(noise.df, 2)
  // Own SD 0.35 beats the pool's 0.007: the interval is the cell's own t, pairs − 1 = 3 degrees of freedom, not the pool's 2.
  const wide = pairedChange([-0.3, 0.3, -0.3, 0.3], noise, 1)
  const ownSd = Math.sqrt((4 * 0.09) / 3)
  assert.equal(wide.df, 3)
  assert.ok(Math.abs(Math.log(wide.change!.hi) - (studentQuantile(0.975, 3) * ownSd) / 2) < 1e-9)
  assert.ok(Math.abs(wide.detectable! - detectableChange(ownSd / 2, 3, 0.05)) < 1e-12)
  // A quiet cell takes the pool's SD and the pool's degrees of freedom.
  const many = pooledNoise(Array.from({ length: 10 }, () => [-0.1, 0.1, -0.1, 0.1]))
  const quiet = pairedChange([0, 0.01, 0, 0.01], many, 1)
  assert.deepEqual([many.df, quiet.df], [30, 30])
  assert.ok(Math.abs(quiet.logSe! - many.sd / 2) < 1e-12)
})

/** Sets of `pairs` log ratios, each pair N(shift, sd) from a seeded source. */
const pairSets = (seed: number, sets: number, pairs: number, sd: number) => {
  const z = gauss(seededRandom(seed))
  return Array.from({ length: sets }, () => Array.from({ length: pairs }, () => sd * z()))
}
const dearerShare = (sets: readonly (readonly number[])[], judge: (logs: readonly number[]) => string) =>
  sets.filter((s) => judge(s) === 'dearer').length / sets.length

test('a change the size of the detectable change is found 80% of the time; one the size of the half-width, half the time', () => {
  // 4000 cells judged alone (their own noise, 8 pairs, 7 df), log SD 0.05 a pair. The share found of 4000 moves by ±0.007 (1 SD) between seeds.
  const [pairs, sd, alpha] = [8, 0.05, 1 - LEVEL]
  const se = sd / Math.sqrt(pairs)
  const judge = (shift: number) => (logs: readonly number[]) => {
    const moved = logs.map((x) => x + shift)
    return pairedChange(moved, pooledNoise([moved]), 1).verdict
  }
  const sets = pairSets(21, 4000, pairs, sd)
  const detectable = Math.log(1 + detectableChange(se, pairs - 1, alpha))
  const found = dearerShare(sets, judge(detectable))
  assert.ok(Math.abs(found - 0.8) < 0.03, `found ${found} at the detectable change`)
  const halfWidth = studentQuantile(1 - alpha / 2, pairs - 1) * se
  const atHalfWidth = dearerShare(sets, judge(halfWidth))
  // About half: a little more, as a sample SD falls below the true one more often than not.
  assert.ok(atHalfWidth > 0.45 && atHalfWidth < 0.6, `found ${atHalfWidth} at the half-width`)
  // What a cell prints is its own: about the design's figure.
  const printed = sets.map((s) => pairedChange(s, pooledNoise([s]), 1).detectable!).sort((a, b) => a - b)[2000]!
  assert.ok(Math.abs(Math.log(1 + printed) / detectable - 1) < 0.1, `printed ${printed}`)
})

test('in a family of 20 cells, a change of the size each cell prints is found at least 80% of the time', () => {
  // 200 A/A runs of 20 cells, 6 pairs, Bonferroni over 20. Each cell's printed figure, planted in its own pairs, is found at
  // least 80% of the time: a cell whose own SD wins has its own degrees of freedom in its figure too.
  const z = gauss(seededRandom(22))
  let [found, judged] = [0, 0]
  for (let run = 0; run < 200; run++) {
    const cells = Array.from({ length: 20 }, () => Array.from({ length: 6 }, () => 0.05 * z()))
    const noise = pooledNoise(cells)
    for (const logs of cells) {
      const shift = Math.log(1 + pairedChange(logs, noise, 20).detectable!)
      const moved = logs.map((x) => x + shift)
      found += pairedChange(moved, pooledNoise(cells.map((c) => (c === logs ? moved : c))), 20).verdict === 'dearer' ? 1 : 0
      judged++
    }
  }
  assert.ok(found / judged > 0.78 && found / judged < 0.9, `found ${found} of ${judged}`)
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

test("noise is pooled per proxy: a noisy proxy's cells are not narrowed by a quiet proxy's, nor the quiet ones widened", () => {
  const quiet = synthetic({ cells: 6, rounds: 5, noise: 0.01, seed: 31 })
  const noisy = synthetic({ cells: 2, rounds: 5, noise: 0.05, seed: 32, proxy: 'caddy' })
  const both = {
    ...tables([...quiet.run.measurements, ...noisy.run.measurements]),
    paired: { ...quiet.run.paired, tables: tables([...quiet.run.paired.tables.measurements, ...noisy.run.paired.tables.measurements]) },
  }
  const se = (run: typeof both, proxy: string) =>
    pairedCells(run)
      .filter((c) => c.proxy === proxy)
      .map((c) => c.logSe!)
  assert.deepEqual(se(both, 'caddy'), se(noisy.run, 'caddy'))
  assert.deepEqual(se(both, 'haproxy'), se(quiet.run, 'haproxy'))
  assert.ok(pairedCells(both).every((c) => c.df === (c.proxy === 'caddy' ? 8 : 24)))
})

test('pairs measured at one instant: no machine change read from them, and their noise is a family apart from adjacent windows', () => {
  const { run, baseline } = synthetic({ cells: 6, rounds: 5, noise: 0.02, seed: 21, baselineFactor: 1.3 })
  const instant = <R extends object>(rows: readonly R[], from: number) => rows.map((r, i) => (i >= from ? { ...r, pair_window: 'instant' as const } : r))
  // The last 3 cells' rows (5 rounds each) shared one window with their twin.
  const shared = {
    ...tables(instant(run.measurements, 15)),
    paired: { ...run.paired, tables: tables(instant(run.paired.tables.measurements, 15)) },
  }
  const cells = pairedCells(shared, baseline)
  assert.deepEqual(
    cells.map((c) => c.sharedWindow),
    [false, false, false, true, true, true],
  )
  assert.ok(cells.every((c) => (c.sharedWindow ? c.machine === null : c.machine !== null)))
  assert.equal(machineChange(cells)!.cells, 3)
  // A family apart: the instant cells' noise is pooled over themselves, so their df is theirs (3 cells × 4).
  assert.ok(
    cells.filter((c) => c.sharedWindow).every((c) => c.df === 12),
    JSON.stringify(cells.map((c) => c.df)),
  )
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
  assert.ok(Math.abs(Math.log(c!.change!.hi / c!.change!.value) - studentQuantile(0.975, 4) * se) < 1e-4, `${c!.change!.hi}`)
  // Its detectable change, at 80% power: (t(0.975, 4) + t(0.8, 4)) · SE.
  assert.ok(Math.abs(c!.detectable! - (Math.exp((studentQuantile(0.975, 4) + studentQuantile(0.8, 4)) * se) - 1)) < 1e-4, `${c!.detectable}`)
  // One repeat a side: the pair is the count's, not the rounds'.
  assert.equal(c!.pairs, 1)
})

test('an A/A work cell is "no change" and says the fraction of a percent it could have seen', () => {
  const { run, baseline } = counted([workRow({ version: '3.0.0', value: 100_050, rel: 0.003 })], [workRow({ version: '2.8.25', value: 100_000, rel: 0.003 })])
  const [c] = pairedCells(run, baseline)
  assert.equal(c!.verdict, 'no change')
  assert.match(verdictText(c!.verdict, c!.detectable), /^no change \(±0\.\d% detectable at 80% power\)$/)
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
