import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { formatLikeRun, likeRunFigures, PLANT_PROXY, plantedConfig, plantSize } from '../../lib/bench/year-later.ts'
import { stacksDir } from '../../lib/core/paths.ts'
import type { RunTables } from '../../lib/data/run-data.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { measurement } from '../fixtures/rows.ts'

const tables = (measurements: Measurement[]): RunTables => ({ measurements, handshakes: [], websocket: [] })

test('the plant goes after the frontend bind line of the article config, as many conversions as asked', () => {
  const article = readFileSync(join(stacksDir, PLANT_PROXY, 'templates', 'article.cfg'), 'utf8')
  const planted = plantedConfig(article, 3).split('\n')
  const bind = planted.findIndex((l) => /^\s+bind /.test(l))
  assert.match(planted[bind - 1]!, /^frontend /)
  assert.equal(planted[bind + 2], '    http-request set-var(txn.plant) req.hdr(host),sha2(512),hex,sha2(512),hex,sha2(512),hex')
  assert.equal(planted.length, article.split('\n').length + 2)
  assert.throws(() => plantedConfig('global\n', 1), /no frontend bind line/)
})

test('the plant size: the user-config cell over the article cell of the same round, median and range', () => {
  const rows = [1, 2, 3].flatMap((repeat) => [
    measurement({ series: 'same', variant: 'article', repeat, proxy_cpu_us_per_req: 40 * repeat }),
    measurement({ series: 'custom', variant: 'custom:article.cfg', repeat, proxy_cpu_us_per_req: 40 * repeat * [1.2, 1.3, 1.25][repeat - 1]! }),
  ])
  const size = plantSize(tables(rows), 'haproxy', 'custom:article.cfg')!
  assert.ok(Math.abs(size.value - 1.25) < 1e-9 && Math.abs(size.min - 1.2) < 1e-9 && Math.abs(size.max - 1.3) < 1e-9)
  assert.equal(size.rounds, 3)
  assert.equal(plantSize(tables(rows), 'nginx', 'custom:article.cfg'), null)
  // The planted cell's open-model rows at a fixed rate are another cell: they do not stand in for its closed rounds.
  const open = [1, 2, 3].flatMap((repeat) => [
    measurement({ series: 'same', variant: 'article', model: 'open', target_rps: 500, repeat, proxy_cpu_us_per_req: 10 }),
    measurement({ series: 'custom', variant: 'custom:article.cfg', model: 'open', target_rps: 500, repeat, proxy_cpu_us_per_req: 90 }),
  ])
  assert.deepEqual(plantSize(tables([...open, ...rows]), 'haproxy', 'custom:article.cfg'), size)
  assert.equal(plantSize(tables(open), 'haproxy', 'custom:article.cfg'), null)
})

test("a like run's figures: the flagged cells, the median cell's detectable change, the counts' movement", () => {
  // Two cells, five rounds; the article cell's now costs 1.5× then, with little noise; the machine 1.2× the baseline.
  const noise = [1, 1.02, 0.99, 1.01, 0.98]
  const side = (version: string, k: (variant: string) => number, machine = 1) =>
    ['article', 'pool-added'].flatMap((variant) =>
      noise.map((n, i) =>
        measurement({
          version,
          variant,
          series: variant === 'article' ? 'same' : 'pool-added',
          repeat: i + 1,
          proxy_cpu_us_per_req: 40 * k(variant) * machine * n,
          proxy_syscalls_per_req: 6,
        }),
      ),
    )
  const run = {
    ...tables(
      side('3.0.0', (v) => (v === 'article' ? 1.5 : 1), 1.2).map((r, i) => ({ ...r, proxy_cpu_us_per_req: r.proxy_cpu_us_per_req! * (i % 2 ? 1.01 : 0.99) })),
    ),
    paired: { sides: { baseline: 'b', pair_same: false, sides: [] }, tables: tables(side('2.8.25', () => 1, 1.2)) },
  }
  const baseline = tables(side('2.8.25', () => 1).map((r) => ({ ...r, proxy_syscalls_per_req: 6.06 })))
  const f = likeRunFigures('planted', run, baseline)
  assert.deepEqual([f.cells, f.compared], [2, 2])
  assert.deepEqual(
    f.flagged.map((c) => `${c.variant} ${c.verdict}`),
    ['article dearer'],
  )
  assert.ok(f.machine && Math.abs(f.machine.value - 1.2) < 0.03, String(f.machine?.value))
  assert.ok(Math.abs(f.countsMoved.proxy_syscalls_per_req! - 0.06 / 6.06) < 1e-9)
  assert.match(formatLikeRun(f), /flagged as a proxy change: haproxy same\/article dearer 1\.\d+ \[/)
})
