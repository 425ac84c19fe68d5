import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { CellSummary } from '../../../lib/analysis/cells.ts'
import { blankRow } from '../../../lib/data/columns/derive.ts'
import { ROW_FILES } from '../../../lib/data/columns/table.ts'
import type { Handshake, Measurement } from '../../../lib/data/schema.ts'
import { Article } from '../../../lib/report/markdown.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { pricePerKilo, workSection } from '../../../lib/report/sections/work.ts'

const identity = { run_id: 'r', proxy: 'haproxy', version: '3.4.7', key_type: 'ec256', repeat: 1, runtime: 'native', started_at: '' }
const work = (o: Partial<Measurement>): Measurement =>
  ({
    ...blankRow(ROW_FILES.measurements),
    ...identity,
    series: 'work',
    variant: 'pool-added',
    model: 'closed',
    connections: 1,
    duration_s: 1,
    requests: 2400,
    errors: 0,
    status: 'valid',
    reason: '',
    ...o,
  }) as Measurement
const handshake = (o: Partial<Handshake>): Handshake =>
  ({
    ...blankRow(ROW_FILES.handshakes),
    ...identity,
    series: 'work',
    variant: 'pool-added',
    connections: 1,
    duration_s: 1,
    handshakes: 240,
    resumed: 0,
    errors: 0,
    status: 'valid',
    reason: '',
    ...o,
  }) as Handshake
const timed = (table: 'measurements' | 'handshakes', key: Record<string, unknown>, median: number) =>
  ({ table, key, summary: { median } }) as unknown as CellSummary

const render = (measurements: Measurement[], handshakes: Handshake[] = []) => {
  const a = new Article()
  const aggregates = {
    cells: {
      measurements: [
        timed('measurements', { series: 'pool-added', model: 'closed', proxy: 'haproxy', version: '3.4.7', variant: 'pool-added', key_type: 'ec256' }, 21.9),
      ],
      handshakes: [timed('handshakes', { series: 'tls-handshake', proxy: 'haproxy', version: '3.4.7', key_type: 'rsa4096' }, 1480)],
    },
  }
  const charts = workSection(a, { run: { measurements, handshakes }, aggregates } as unknown as ArticleInput)
  return Object.assign(a, { charts })
}

test('work section: instructions with their interval beside the timed µs and the price; not-countable rows say why, escaped', () => {
  const a = render(
    [
      work({
        instructions_per_req: 43_823.1,
        instructions_per_req_low: 43_792.3,
        instructions_per_req_high: 43_854,
        counted_batches: 6,
        work_setup: 'valgrind-3.19.0 callgrind; 1 worker',
      }),
      work({ proxy: 'nginx', version: '1.31.3', status: 'failed', reason: 'not countable here: <b>x</b>' }),
    ],
    [handshake({ key_type: 'rsa4096', instructions_per_req: 9_500_000, instructions_per_req_low: 9_490_000, instructions_per_req_high: 9_510_000 })],
  )
  const md = a.toString()
  assert.match(md, /## Work counted: instructions per request/)
  assert.ok(md.includes('| haproxy | 3\\.4\\.7 | pool\\-added | 43\\,823 \\[43\\,792\\, 43\\,854\\] | ±0.07% | 21\\.9 | 0\\.5 | valid |'), md)
  assert.ok(md.includes('| nginx | 1\\.31\\.3 | pool\\-added | — | — | — | — | failed\\: not countable here\\: \\<b\\>x'))
  assert.ok(!md.includes('<b>'))
  assert.ok(md.includes('| haproxy | 3\\.4\\.7 | rsa4096 | 9\\,500\\,000 \\[9\\,490\\,000\\, 9\\,510\\,000\\] | ±0.11% | 1480 | 0\\.156 | valid |'))
  assert.ok(md.includes('*How counted:* valgrind\\-3\\.19\\.0 callgrind\\; 1 worker'))
  assert.deepEqual(
    a.files.map((f) => f.path),
    ['data/charts/work-requests.csv', 'data/work-requests.csv', 'data/work-handshakes.csv'],
  )
  // The chart draws the counted rows only (thousands, with the interval), the timed µs beside.
  const [chart] = a.charts
  assert.equal(chart!.path, 'charts/work-requests.svg')
  assert.deepEqual(chart!.rows, [{ category: 'haproxy 3.4.7', group: 'pool-added', value: 43.8231, lo: 43_792.3 / 1000, hi: 43.854 }])
  assert.deepEqual((chart!.options as { side?: { rows: unknown[] } }).side?.rows, [{ category: 'haproxy 3.4.7', group: 'pool-added', value: 21.9 }])
  assert.match(a.files[1]!.content, /^proxy,version,variant,instructions\/req \[95%\],±,low,high,µs\/req timed,µs per 1k instr\.,status,how counted/)
})

test('work section without work rows is left out with how to run it; the price needs both figures', () => {
  assert.match(render([]).notRunLine().toString(), /Work counted \(work series: `npx zx notebooks\/work\.mjs`/)
  assert.equal(pricePerKilo(21.9, 43_800), 0.5)
  assert.equal(pricePerKilo(null, 43_800), null)
  assert.equal(pricePerKilo(21.9, null), null)
})
