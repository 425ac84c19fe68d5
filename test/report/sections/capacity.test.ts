import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { Article } from '../../../lib/report/markdown.ts'
import { capacitySection } from '../../../lib/report/sections/capacity.ts'
import { measurement } from '../../fixtures/rows.ts'

const SLO = 'p99<10ms,errors<0.1%'
const step = (rate: number, f: Parameters<typeof measurement>[0] = {}) =>
  measurement({
    series: 'capacity',
    variant: 'pool-added',
    model: 'open',
    connections: 1000,
    target_rps: rate,
    rps: rate,
    slo: SLO,
    proxy_cpu_share: rate / 20000,
    proxy_cpu_us_per_req: 40,
    ...f,
  })

const render = (rows: ReturnType<typeof measurement>[]) => {
  const a = new Article()
  capacitySection(a, { run: { measurements: rows } } as unknown as ArticleInput)
  return { md: a.toString().replace(/\\(.)/g, '$1'), files: a.files }
}

test('capacity: the rate found per proxy with its CPU share and cost there, and every step with its verdict and why', () => {
  const { md, files } = render([
    step(1000, { p99_ms: 1 }),
    step(2000, { p99_ms: 2, proxy_cpu_us_per_req: 38.5 }),
    step(4000, { p99_ms: 3, status: 'invalid', reason: 'generator saturated: 95% of its cpuset >= 90%' }),
    step(3000, { p99_ms: 14 }),
    step(2500, { p99_ms: 9, requests: 10000, errors: 20 }),
    step(1000, { proxy: 'nginx', p99_ms: 25 }),
    step(500, { proxy: 'nginx', p99_ms: 1, proxy_cpu_share: 0.02 }),
    measurement({ series: 'same' }),
  ])
  assert.match(md, /^## Capacity$/m)
  assert.match(
    md,
    /\| haproxy \| 2\.8\.25 \| pool-added \| ec256 \| p99<10ms,errors<0\.1% \| 2000 \| 2 \| 10% \| 38\.5 \| 5 \| 2500 rps: errors 0\.2% >= 0\.1% \|/,
  )
  assert.match(md, /\| nginx \| 1\.31\.3 \| pool-added \| ec256 \| p99<10ms,errors<0\.1% \| 500 \| 1 \| 2% \| 40 \| 2 \| 1000 rps: p99 25 ms >= 10 ms \|/)
  // An invalid step whose figures are inside the SLO is shown as invalid, with its reason.
  assert.match(md, /\| haproxy pool-added \| 3 \| 4000 \| 4000 \| 3 \| 0 \| 20% \| invalid \| generator saturated: 95% of its cpuset >= 90% \|/)
  assert.match(md, /\| haproxy pool-added \| 4 \| 3000 \| 3000 \| 14 \| 0 \| 15% \| miss \| p99 14 ms >= 10 ms \|/)
  assert.deepEqual(
    files.map((f) => f.path),
    ['data/capacity.csv', 'data/capacity-steps.csv'],
  )
})

test('capacity: not measured says how to measure it; data strings are escaped', () => {
  // Not run: no heading (so not in the contents), and the not-run line names it with how to measure it.
  const none = new Article()
  capacitySection(none, { run: { measurements: [measurement()] } } as unknown as ArticleInput)
  none.notRunLine()
  assert.doesNotMatch(none.toString(), /## Capacity/)
  assert.match(none.toString(), /Not in this run, so not below:\* Capacity \(capacity series: `npx zx notebooks\/capacity\.mjs`/)
  const a = new Article()
  capacitySection(a, { run: { measurements: [step(1000, { variant: 'custom:x|<b>.cfg', reason: '', p99_ms: 1 })] } } as unknown as ArticleInput)
  // Every punctuation character of a data string is escaped: a | never splits a cell, a < never opens a tag.
  assert.ok(a.toString().includes('custom\\:x\\|\\<b\\>\\.cfg'))
  assert.ok(!a.toString().includes('x|<b>'))
})
