import assert from 'node:assert/strict'
import { test } from 'node:test'
import { summarizeCells, TABLE_SPECS } from '../../lib/analysis/cells.ts'
import { cpuRepeats, measurement } from '../fixtures/rows.ts'

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

test('a cell with no valid row has no summary and keeps its reasons', async () => {
  const cells = await summarizeCells(TABLE_SPECS.measurements, cpuRepeats({ status: 'failed', reason: 'did not start' }, [1, 2]))
  assert.equal(cells[0]!.summary, null)
  assert.equal(cells[0]!.status, 'failed')
  assert.deepEqual(cells[0]!.reasons, ['did not start'])
})

test('a cell whose repeats disagree beyond the others\' pooled noise is unstable; the others are not', async () => {
  const data = [
    ...cpuRepeats({ proxy: 'haproxy' }, [20, 21, 20.5]),
    ...cpuRepeats({ proxy: 'envoy' }, [50, 52]),
    ...cpuRepeats({ proxy: 'caddy' }, [60, 58, 61]),
    // One window in another regime: nginx's upstream pool reused its connections.
    ...cpuRepeats({ proxy: 'nginx' }, [40.2, 18.3]),
  ]
  const cells = await summarizeCells(TABLE_SPECS.measurements, data)
  assert.deepEqual(cells.map((c) => [c.key.proxy, c.unstable]), [['caddy', false], ['envoy', false], ['haproxy', false], ['nginx', true]])
})
