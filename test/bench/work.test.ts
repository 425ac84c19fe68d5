import assert from 'node:assert/strict'
import { test } from 'node:test'
import { articleConfig, PLANT_PROXY } from '../../lib/bench/year-later.ts'
import { countedCells, formatWorkBench, plantedVariables, workBenchFigures, workWallS } from '../../lib/bench/work.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { tables, workRow } from '../fixtures/paired.ts'
import { handshake, measurement } from '../fixtures/rows.ts'

const at = (s: number) => new Date(Date.UTC(2026, 11, 6, 20, 0, s)).toISOString()
const finished = (measurements: Measurement[], end: number | null = 100) => ({ ...tables(measurements), manifest: { finished: end === null ? null : at(end) } })

/** Two proxies' article cells counted, haproxy also pool-added; started 10 s apart from t0. */
const counts = (o: { t0?: number; haproxy?: number; nginx?: number; version?: string } = {}) =>
  [
    workRow({ version: o.version ?? '3.4.7', value: o.haproxy ?? 53_000, rel: 0.002 }),
    workRow({ version: o.version ?? '3.4.7', value: 52_000, rel: 0.004, variant: 'pool-added' }),
    workRow({ proxy: 'nginx', version: '1.31.3', value: o.nginx ?? 45_000, rel: 0.001 }),
  ].map((r, i) => ({ ...r, started_at: at((o.t0 ?? 0) + 10 * i) }))

const timed = (proxy: string, us: number, s: number) => measurement({ proxy, series: 'same', variant: 'article', proxy_cpu_us_per_req: us, started_at: at(s) })

test('counted cells: requests and handshakes of the work series, a failed row kept with its reason and no figure', () => {
  const run = {
    measurements: [
      ...counts(),
      timed('haproxy', 20, 50),
      { ...workRow({ proxy: 'envoy', version: '1.40.0', value: 1, rel: 0 }), status: 'failed' as const, reason: 'not countable here: x' },
    ],
    handshakes: [
      handshake({ series: 'work', key_type: 'rsa4096', instructions_per_req: 9e6, instructions_per_req_low: 8.91e6, instructions_per_req_high: 9.09e6 }),
    ],
  }
  const cells = countedCells(run)
  assert.deepEqual(
    cells.map((c) => c.label),
    ['haproxy 3.4.7 article', 'haproxy 3.4.7 pool-added', 'nginx 1.31.3 article', 'envoy 1.40.0 article', 'haproxy 2.8.25 pool-added handshake rsa4096'],
  )
  assert.equal(cells[3]!.value, null)
  assert.equal(cells[3]!.reason, 'not countable here: x')
  assert.ok(Math.abs(cells[4]!.halfWidth! - 0.01) < 1e-12)
})

test("the work series' wall time: its first row to the next series' first row, else the run's end", () => {
  assert.equal(workWallS(finished([...counts({ t0: 5 }), timed('haproxy', 20, 60)])), 55)
  assert.equal(workWallS(finished(counts({ t0: 5 }), 95)), 90)
  assert.equal(workWallS(finished(counts(), null)), null)
  assert.equal(workWallS(finished([timed('haproxy', 20, 1)])), null)
})

test('figures: the interval of the median cell, the tax moving time but not counts, each against its target', () => {
  const base = finished([...counts(), timed('haproxy', 20, 40), timed('nginx', 30, 41)])
  const taxed = tables([
    ...counts({ haproxy: 53_053, nginx: 45_000 }),
    timed('haproxy', 26, 40),
    timed('nginx', 36, 41),
    // The open model's fixed-rate window of the same cell is another load: never the price.
    { ...timed('nginx', 500, 42), model: 'open' as const },
  ])
  const f = workBenchFigures({ base, taxed, plantProxy: PLANT_PROXY })
  assert.ok(Math.abs(f.base.interval! - 0.002) < 1e-12)
  assert.equal(f.base.wallS, 40)
  assert.ok(Math.abs(f.tax!.counts.median! - 0) < 1e-12)
  assert.equal(f.tax!.counts.worst!.label, 'haproxy 3.4.7 article')
  assert.deepEqual(
    f.tax!.price.map((p) => [p.proxy, p.ratio.toFixed(2)]),
    [
      ['haproxy', '1.30'],
      ['nginx', '1.20'],
    ],
  )
  const text = formatWorkBench(f)
  assert.match(text, /^work series: 3 of 3 cells counted; wall time 40 s$/m)
  assert.match(text, /interval of the median cell ±0\.20% \(target ≤ ±0\.5%: met\)/)
  assert.match(
    text,
    /under the syscall tax: counts moved 0\.00% on the median cell \(≤ 0\.5%: met\), worst 0\.10% haproxy 3\.4\.7 article; timed µs\/req taxed ÷ base: haproxy 1\.300, nginx 1\.200/,
  )
})

test('figures: the planted run is seen on its cell only, and the base agrees with then counted again', () => {
  const base = finished(counts())
  const planted = {
    ...tables(counts({ haproxy: 53_800 })),
    paired: { sides: { baseline: 'work-base', pair_same: true, sides: [] }, tables: tables(counts({ nginx: 45_020 })) },
  }
  const f = workBenchFigures({ base, planted, plantProxy: PLANT_PROXY })
  const c = f.plant!.cell!
  assert.equal(c.verdict, 'dearer')
  assert.ok(c.change!.lo > 1 && Math.abs(c.change!.value - 53_800 / 53_000) < 1e-9)
  assert.deepEqual(f.plant!.others, [])
  assert.equal(f.runs!.cells, 3)
  assert.equal(f.runs!.worst!.label, 'nginx 1.31.3 article')
  assert.ok(Math.abs(f.runs!.worst!.moved - 20 / 45_000) < 1e-9)
  const text = formatWorkBench(f)
  assert.match(text, /two runs \(base vs then counted again\): median cell 0\.00% \(≤ 0\.5%: met\), worst 0\.04% nginx 1\.31\.3 article \(≤ 2%: met\), 3 cells/)
  assert.match(
    text,
    /plant: haproxy article now ÷ then 1\.0151 \[1\.0\d+, 1\.0\d+\] \(1\.51%\), dearer: seen, dearer, interval above 1; other cells flagged: none of 2/,
  )
})

test('a plant the counts cannot tell from none is printed as not seen', () => {
  const planted = { ...tables(counts()), paired: { sides: { baseline: 'b', pair_same: true, sides: [] }, tables: tables(counts()) } }
  assert.match(formatWorkBench(workBenchFigures({ base: finished(counts()), planted, plantProxy: PLANT_PROXY })), /no change: NOT seen/)
})

test("the work plant: n transaction variables after the article's frontend bind line", () => {
  const planted = plantedVariables(articleConfig(), 2).split('\n')
  const bind = planted.findIndex((l) => /^\s+bind /.test(l))
  assert.deepEqual(planted.slice(bind + 1, bind + 4), [
    '    # planted by bench/work.mjs: a known cost per request',
    '    http-request set-var(txn.plant0) int(0)',
    '    http-request set-var(txn.plant1) int(1)',
  ])
})
