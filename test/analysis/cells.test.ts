import assert from 'node:assert/strict'
import { test } from 'node:test'
import { groupStats, summarizeCells, TABLE_SPECS, type CellSummary } from '../../lib/analysis/cells.ts'
import { projectId } from '../../lib/data/grouping.ts'
import { fixtureTables } from '../fixtures/run.ts'
import { cpuRepeats, measurement } from '../fixtures/rows.ts'

type Spec = (typeof TABLE_SPECS)[keyof typeof TABLE_SPECS]

/** Cells whose primary median danfojs and lib/stats read differently (a disagreement is a bug, not noise). */
function medianDisagreements(spec: Spec, danfo: Awaited<ReturnType<typeof groupStats>>, cells: readonly CellSummary[]): string[] {
  return cells.flatMap((c) => {
    const id = projectId(c.key, spec.keys)
    const grouped = danfo.get(id)
    const stats = c.summary?.median
    if ((grouped === undefined) !== (stats === undefined)) return [`${id}: danfojs ${grouped?.median ?? 'none'}, stats ${stats ?? 'none'}`]
    return grouped && stats !== undefined && Math.abs(grouped.median - stats) > 1e-9 * Math.max(1, Math.abs(stats))
      ? [`${id}: danfojs ${grouped.median}, stats ${stats}`]
      : []
  })
}

test('cells: danfojs medians agree with lib/stats; invalid rows excluded with a warning', async () => {
  const data = [
    ...cpuRepeats({}, [10, 30, 20]),
    ...cpuRepeats({ variant: 'pool-removed' }, [60, 61]),
    measurement({ variant: 'pool-removed', repeat: 3, proxy_cpu_us_per_req: 500, status: 'invalid' as const, reason: 'errors 5% >= 1%' }),
  ]
  const cells = await summarizeCells(TABLE_SPECS.measurements, data)
  assert.equal(cells.length, 2)
  const [article, removed] = cells
  assert.deepEqual([article!.summary!.median, article!.summary!.min, article!.summary!.max, article!.summary!.n], [20, 10, 30, 3])
  assert.equal(article!.status, 'valid')
  assert.equal(removed!.summary!.median, 60.5)
  assert.deepEqual(removed!.counts, { valid: 2, invalid: 1, failed: 0 })
  assert.deepEqual(removed!.reasons, ['errors 5% >= 1%'])
  assert.ok(removed!.warnings.some((w) => w === '1 of 3 rows not valid, excluded'))
  assert.equal(removed!.medians.backend_conns_per_1k_req, 0)
})

test('danfojs and lib/stats agree on the median of every cell of the fixture run, in every table', async () => {
  const tables = fixtureTables()
  let compared = 0
  for (const spec of Object.values(TABLE_SPECS)) {
    const rows = tables[spec.name] ?? []
    const danfo = await groupStats(spec, rows, spec.primary)
    assert.deepEqual(medianDisagreements(spec, danfo, await summarizeCells(spec, rows)), [], spec.name)
    compared += danfo.size
  }
  assert.ok(compared > 20, `compared ${compared} cells`)
})

test('the agreement check names a cell whose medians differ, and one that only one side has', async () => {
  const spec = TABLE_SPECS.measurements
  const rows = [...cpuRepeats({}, [10, 20, 30, 40]), ...cpuRepeats({ variant: 'pool-removed' }, [5, 6])]
  const cells = await summarizeCells(spec, rows)
  const danfo = await groupStats(spec, rows, spec.primary)
  assert.equal(cells[0]!.summary!.median, 25)
  assert.deepEqual(medianDisagreements(spec, danfo, cells), [])
  const [article, removed] = cells.map((c) => projectId(c.key, spec.keys))
  const off = new Map(danfo)
  off.set(article!, { ...danfo.get(article!)!, median: 20 })
  off.delete(removed!)
  assert.deepEqual(medianDisagreements(spec, off, cells), [`${article}: danfojs 20, stats 25`, `${removed}: danfojs none, stats 5.5`])
})

test('a cell with no valid row has no summary and keeps its reasons', async () => {
  const cells = await summarizeCells(TABLE_SPECS.measurements, cpuRepeats({ status: 'failed', reason: 'did not start' }, [1, 2]))
  assert.equal(cells[0]!.summary, null)
  assert.equal(cells[0]!.status, 'failed')
  assert.deepEqual(cells[0]!.reasons, ['did not start'])
})

test("a cell whose repeats disagree beyond the others' pooled noise is unstable; the others are not", async () => {
  const data = [
    ...cpuRepeats({ proxy: 'haproxy' }, [20, 21, 20.5]),
    ...cpuRepeats({ proxy: 'envoy' }, [50, 52]),
    ...cpuRepeats({ proxy: 'caddy' }, [60, 58, 61]),
    // One window in another regime: nginx's upstream pool reused its connections.
    ...cpuRepeats({ proxy: 'nginx' }, [40.2, 18.3]),
  ]
  const cells = await summarizeCells(TABLE_SPECS.measurements, data)
  assert.deepEqual(
    cells.map((c) => [c.key.proxy, c.unstable]),
    [
      ['caddy', false],
      ['envoy', false],
      ['haproxy', false],
      ['nginx', true],
    ],
  )
})
