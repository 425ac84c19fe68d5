import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { cellSpreads, countFlips, formatPrecision, formatStability, precisionByRun, verdictLines } from '../../lib/bench/stability.ts'
import { fixtureTables } from '../fixtures/run.ts'

test('flips count only changes between decided verdicts', () => {
  assert.equal(countFlips(['held', 'held', 'held']), 0)
  assert.equal(countFlips(['held', 'not held', 'held']), 2)
  // inconclusive and not measured sit between decided verdicts without being flips
  assert.equal(countFlips(['held', 'inconclusive', 'held', null, 'not measured']), 0)
  assert.equal(countFlips(['reproduced', 'inconclusive', 'not reproduced']), 1)
})

test('the same rows twice: every verdict identical, no flips, no spread', () => {
  const t = fixtureTables()
  const runs = [
    { name: 'a', tables: t, series: ['pooling', 'tls', 'ws'] },
    { name: 'b', tables: t, series: ['pooling', 'tls', 'ws'] },
  ]
  const lines = verdictLines(runs, loadLedger())
  assert.ok(lines.length > 20)
  assert.ok(lines.every((l) => l.same && l.flips === 0))
  const spreads = cellSpreads(runs)
  assert.ok(spreads.some((s) => s.table === 'measurements') && spreads.every((s) => s.spread === null || s.spread === 0))
})

test('a run whose HAProxy costs doubled: its cells spread by 100% and the printout names the worst cell', () => {
  const t = fixtureTables()
  const doubled = {
    ...t,
    measurements: t.measurements.map((r) =>
      r.proxy === 'haproxy' && r.proxy_cpu_us_per_req !== null ? { ...r, proxy_cpu_us_per_req: r.proxy_cpu_us_per_req * 2 } : r,
    ),
  }
  const runs = [
    { name: 'a', tables: t, series: ['pooling'] },
    { name: 'b', tables: doubled, series: ['pooling'] },
  ]
  const spreads = cellSpreads(runs).filter((s) => s.table === 'measurements' && s.cell.includes('haproxy') && s.spread !== null)
  assert.ok(spreads.length > 0 && spreads.every((s) => Math.abs(s.spread! - 1) < 1e-9), JSON.stringify(spreads.slice(0, 2)))
  const text = formatStability(runs, verdictLines(runs, loadLedger()), cellSpreads(runs))
  assert.match(text, /worst 100\.0% \(.*haproxy/)
  assert.match(text, /inconclusive claims per run: \d+\/\d+ runnable \([\d.]+%\), of \d+ measured [\d.]+%; /)
})

test('precision per run: a cell of six close repeats reaches ±3%, a scattered one does not, and the printout says so', async () => {
  const t = fixtureTables()
  const template = t.measurements.find((r) => r.series === 'same' && r.status === 'valid' && r.proxy_cpu_us_per_req !== null)!
  const cell = (variant: string, values: number[]) => values.map((v, i) => ({ ...template, variant, repeat: i + 1, proxy_cpu_us_per_req: v }))
  const tables = {
    measurements: [...cell('close', [20, 20.1, 19.9, 20.2, 19.8, 20]), ...cell('scattered', [20, 26, 14, 30, 18, 22])],
    handshakes: [],
    websocket: [],
  }
  const runs = [
    { name: 'a', tables, series: ['pooling'] },
    {
      name: 'b',
      tables: {
        ...tables,
        manifest: { profile_settings: { repeats: 3, warmup_s: 1, duration_s: 5, connections: 200, threads: 1, precision: 0.5 } },
      },
      series: ['pooling'],
    },
  ]
  const [a, b] = await precisionByRun(runs)
  assert.equal(a!.target, 0.03)
  assert.deepEqual(
    a!.groups.map((g) => [g.group, g.cells, g.atTarget]),
    [['same', 2, 1]],
  )
  assert.ok(a!.groups[0]!.worst > 0.2 && a!.groups[0]!.median > a!.groups[0]!.worst / 4)
  // The run's own target decides: ±50% takes both.
  assert.equal(b!.groups[0]!.atTarget, 2)
  const text = formatPrecision(runs, [a!, b!])
  assert.match(text, /targets: a ±3\.0%, b ±50\.0%/)
  assert.match(text, /same +1\/2, ±[\d.]+%, worst ±[\d.]+% +2\/2/)
  assert.match(text, /unstable cells: a \d+, b \d+/)
})
