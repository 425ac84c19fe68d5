import assert from 'node:assert/strict'
import { test } from 'node:test'
import { summarizeCells, TABLE_SPECS } from '../lib/analysis/cells.ts'
import { compareRuns, formatDelta, pairVersions } from '../lib/analysis/compare.ts'
import { derivedRatios } from '../lib/analysis/derived.ts'
import { aggregate, summaryCsvs } from '../lib/analysis/summary.ts'
import type { Handshake, Measurement } from '../lib/data/schema.ts'

const base: Measurement = {
  run_id: 'r', series: 'same', proxy: 'haproxy', version: '2.8.25', variant: 'article', key_type: 'ec256', model: 'closed', connections: 200,
  target_rps: null, duration_s: 3, repeat: 1, requests: 1000, errors: 0, rps: 1000, p50_ms: 1, p90_ms: 1, p99_ms: 1, p999_ms: 1, max_ms: 1,
  proxy_cpu_us_per_req: 20, backend_cpu_us_per_req: 10, generator_cpu_share: 0.5, backend_conns_per_1k_req: 0, max_vus: null, dropped: null,
  status: 'valid', reason: '', proxy_cpu_share: 0.9, runtime: 'native', started_at: '',
}
const rows = (o: Partial<Measurement>, cpus: number[]): Measurement[] => cpus.map((cpu, i) => ({ ...base, ...o, repeat: i + 1, proxy_cpu_us_per_req: cpu }))

const hs = (proxy: string, key_type: string, cpu: number): Handshake => ({
  run_id: 'r', series: 'tls-handshake', proxy, version: '1', variant: 'pool-added', key_type, connections: 4, duration_s: 3, repeat: 1,
  handshakes: 100, resumed: 0, errors: 0, rate: 100, p50_ms: 1, p99_ms: 2, proxy_cpu_us_per_handshake: cpu, generator_cpu_share: 0.5, proxy_cpu_share: 0.5,
  status: 'valid', reason: '', runtime: 'native', started_at: '',
})

test('cells: danfojs medians agree with lib/stats; invalid rows excluded with a warning', async () => {
  const data = [
    ...rows({}, [10, 30, 20]),
    ...rows({ variant: 'pool-removed' }, [60, 61]),
    { ...base, variant: 'pool-removed', repeat: 3, proxy_cpu_us_per_req: 500, status: 'invalid' as const, reason: 'errors 5% >= 1%' },
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
  const cells = await summarizeCells(TABLE_SPECS.measurements, rows({ status: 'failed', reason: 'did not start' }, [1, 2]))
  assert.equal(cells[0]!.summary, null)
  assert.equal(cells[0]!.status, 'failed')
  assert.deepEqual(cells[0]!.reasons, ['did not start'])
})

test('derived ratios: pool effect, spread, key types, proxy vs direct', async () => {
  const m = [
    ...rows({ series: 'pool-added', variant: 'pool-added' }, [20]),
    ...rows({ series: 'pool-removed', variant: 'pool-removed' }, [60]),
    ...rows({ series: 'pool-removed', variant: 'pool-removed', proxy: 'envoy', version: '1.40.0' }, [90]),
    ...rows({ series: 'same', variant: 'article', proxy: 'nginx', version: '1.31.3' }, [40]),
    ...rows({ series: 'pool-added', variant: 'pool-added', proxy: 'nginx', version: '1.31.3' }, [20]),
    { ...base, series: 'direct', proxy: 'direct', variant: 'direct', proxy_cpu_us_per_req: null, backend_cpu_us_per_req: 8, rps: 4000 },
  ]
  const a = await aggregate({ measurements: m, handshakes: [hs('haproxy', 'ec256', 500), hs('haproxy', 'rsa4096', 5000)], websocket: [] })
  const by = (name: string, proxy: string) => a.ratios.find((r) => r.name === name && r.proxy === proxy)
  assert.equal(by('pool-removed / pool-added', 'haproxy')!.value, 3)
  assert.equal(by('pool-removed spread (max / min)', 'all')!.value, 1.5)
  assert.equal(by('rsa4096 / ec256 handshake', 'haproxy')!.value, 10)
  assert.equal(by('proxy CPU / backend CPU (direct)', 'haproxy'), undefined, 'no article cell: no tax ratio')
  assert.equal(by('proxy CPU / backend CPU (direct)', 'nginx')!.value, 5)
  assert.deepEqual([by('rps / direct rps', 'nginx')!.value, by('rps / direct rps', 'nginx')!.comparable], [0.25, false])
  assert.equal(by('article / pool-added', 'nginx')!.value, 2)
  assert.deepEqual(by('article / pool-added', 'haproxy')!.warnings, ['article: not measured'])
  assert.equal(by('article / pool-added', 'haproxy')!.value, null)
  const csv = summaryCsvs(a)
  assert.deepEqual([...csv.keys()], ['summary/measurements.csv', 'summary/handshakes.csv', 'summary/ratios.csv'])
  assert.match(csv.get('summary/measurements.csv')!.split('\n')[0]!, /^series,proxy,version,variant,key_type,model,connections,target_rps,rows,valid,invalid,failed,status,proxy_cpu_us_per_req_median,/)
  assert.equal(derivedRatios([], []).length, 0)
})

test('baseline comparison: same version pairs with itself, else newest with newest; ~ when not significant', () => {
  assert.deepEqual(pairVersions(['1.22.1', '1.29.0'], ['1.22.1', '1.31.3']), [['1.22.1', '1.22.1'], ['1.29.0', '1.31.3']])
  assert.deepEqual(pairVersions(['1'], ['1']), [['1', '1']])
  const old = { measurements: rows({}, [10, 11, 12, 10.5, 11.5]), handshakes: [], websocket: [] }
  const slower = { measurements: rows({ version: '3.0.0' }, [20, 21, 22, 20.5, 21.5]), handshakes: [], websocket: [] }
  const [d] = compareRuns(old, slower)
  assert.equal(d!.key.version, '2.8.25 → 3.0.0')
  assert.equal(d!.delta, 21 / 11 - 1)
  assert.ok(d!.significant)
  assert.equal(formatDelta(d!), '+90.9% (p=0.008 n=5+5)')
  const same = compareRuns(old, { measurements: rows({}, [10.2, 11.1, 11.9, 10.6, 11.4]), handshakes: [], websocket: [] })[0]!
  assert.ok(!same.significant)
  assert.match(formatDelta(same), /^~ \(p=\d\.\d{3} n=5\+5\)$/)
})
