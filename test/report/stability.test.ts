import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { cellSpreads, countFlips, formatStability, verdictLines } from '../../lib/report/stability.ts'
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
  const runs = [{ name: 'a', tables: t, series: ['pooling', 'tls', 'ws'] }, { name: 'b', tables: t, series: ['pooling', 'tls', 'ws'] }]
  const lines = verdictLines(runs, loadLedger())
  assert.ok(lines.length > 20)
  assert.ok(lines.every((l) => l.same && l.flips === 0))
  const spreads = cellSpreads(runs)
  assert.ok(spreads.some((s) => s.table === 'measurements') && spreads.every((s) => s.spread === null || s.spread === 0))
})

test('a run whose HAProxy costs doubled: its cells spread by 100% and the printout names the worst cell', () => {
  const t = fixtureTables()
  const doubled = { ...t, measurements: t.measurements.map((r) => (r.proxy === 'haproxy' && r.proxy_cpu_us_per_req !== null ? { ...r, proxy_cpu_us_per_req: r.proxy_cpu_us_per_req * 2 } : r)) }
  const runs = [{ name: 'a', tables: t, series: ['pooling'] }, { name: 'b', tables: doubled, series: ['pooling'] }]
  const spreads = cellSpreads(runs).filter((s) => s.table === 'measurements' && s.cell.includes('haproxy') && s.spread !== null)
  assert.ok(spreads.length > 0 && spreads.every((s) => Math.abs(s.spread! - 1) < 1e-9), JSON.stringify(spreads.slice(0, 2)))
  const text = formatStability(runs, verdictLines(runs, loadLedger()), cellSpreads(runs))
  assert.match(text, /worst 100\.0% \(.*haproxy/)
  assert.match(text, /inconclusive claims per run: \d+\/\d+ runnable \([\d.]+%\), of \d+ measured [\d.]+%; /)
})
