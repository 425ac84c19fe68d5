import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadModelReport, modelCells, modelSummaries, rowSeconds, runMoves, typicalMove } from '../../lib/bench/load-model.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { measurement } from '../fixtures/rows.ts'

const at = (s: number) => new Date(Date.UTC(2026, 10, 30, 0, 0, s)).toISOString()

/** One run: haproxy article closed (3 repeats, 10 s each) then open at 2500 rps (3 repeats, 8 s each); the direct row has no proxy figure. */
function run(closed: number[], open: number[]): Measurement[] {
  let t = 0
  const rows: Measurement[] = []
  closed.forEach((v, i) => {
    rows.push(measurement({ repeat: i + 1, proxy_cpu_us_per_req: v, started_at: at(t) }))
    t += 10
  })
  rows.push(measurement({ series: 'direct', proxy: 'direct', variant: 'direct', proxy_cpu_us_per_req: null, started_at: at(t) }))
  t += 10
  open.forEach((v, i) => {
    rows.push(measurement({ model: 'open', target_rps: 2500, repeat: i + 1, proxy_cpu_us_per_req: v, started_at: at(t) }))
    t += 8
  })
  // An invalid open repeat: its time counts, its value does not.
  rows.push(
    measurement({ model: 'open', target_rps: 2500, repeat: 4, proxy_cpu_us_per_req: 999, status: 'invalid', reason: 'dropped 2.0% >= 1%', started_at: at(t) }),
  )
  return rows
}

test("row seconds: the gap to the next row; the last row takes its model's usual gap", () => {
  const rows = run([20, 22, 24], [60, 66, 72])
  const s = rowSeconds(rows)
  assert.deepEqual(
    rows.map((r) => s.get(r)),
    [10, 10, 10, 10, 8, 8, 8, 8],
  )
})

test('cells per model: median, relative half-width, n, seconds and ±/√min; direct and invalid values left out', () => {
  const cells = modelCells('a', run([20, 22, 24], [60, 66, 72]))
  assert.deepEqual(
    cells.map((c) => [c.cell, c.model, c.targetRps, c.median, c.n, c.rows, c.seconds]),
    [
      ['same haproxy 2.8.25 article', 'closed', null, 22, 3, 3, 30],
      ['same haproxy 2.8.25 article', 'open', 2500, 66, 3, 4, 32],
    ],
  )
  // n = 3: the order-statistics interval is [min, max] at 75% coverage.
  const [closed, open] = cells
  assert.equal(closed!.rel, 2 / 22)
  assert.equal(open!.rel, 6 / 66)
  assert.equal(closed!.level, 0.75)
  assert.equal(closed!.perMinute, (2 / 22) * Math.sqrt(30 / 60))
  assert.equal(open!.perMinute, (6 / 66) * Math.sqrt(32 / 60))
  const [sc, so] = modelSummaries(cells, new Map([['a', run([20, 22, 24], [60, 66, 72])]]))
  assert.deepEqual([sc!.model, sc!.cells, sc!.invalid], ['closed', 1, 0])
  assert.deepEqual([so!.model, so!.cells, so!.invalid], ['open', 1, 0.25])
})

test('run to run: ratio of medians per cell and model, and the typical move', () => {
  const a = modelCells('a', run([20, 22, 24], [60, 66, 72]))
  const b = modelCells('b', run([22, 24.2, 26], [60, 66, 70]))
  const moves = runMoves(a, b)
  assert.deepEqual(
    moves.map((m) => [m.model, Number(m.ratio.toFixed(3))]),
    [
      ['closed', 1.1],
      ['open', 1],
    ],
  )
  assert.equal(Number(typicalMove(moves, 'closed')!.toFixed(3)), 0.1)
  assert.equal(typicalMove(moves, 'open'), 0)
})

test('the printed report names both models, the per-model medians and the run-to-run table', () => {
  const text = loadModelReport([
    { name: 'a', rows: run([20, 22, 24], [60, 66, 72]) },
    { name: 'b', rows: run([22, 24.2, 26], [60, 66, 70]) },
  ])
  assert.match(text, /same haproxy 2\.8\.25 article\s+closed\s+22\.0\s+9\.1%\s+75%\s+3\/3\s+30/)
  assert.match(text, /open@2500\s+66\.0/)
  assert.match(text, /Run to run: b \/ a/)
  assert.match(text, /typical move .*closed 10\.0%, open 0\.0% over 1 cells/)
})
