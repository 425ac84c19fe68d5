import assert from 'node:assert/strict'
import { test } from 'node:test'
import { aggregate } from '../../../lib/analysis/summary.ts'
import { Article } from '../../../lib/report/markdown.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { scenariosSection } from '../../../lib/report/sections/scenarios.ts'
import { measurement } from '../../fixtures/rows.ts'

const pair = (f: Parameters<typeof measurement>[0], cost: number) =>
  [0.99, 1.01].map((k, i) => measurement({ series: 'scenarios', repeat: i + 1, proxy_cpu_us_per_req: cost * k, ...f }))

async function render(measurements: ReturnType<typeof measurement>[]) {
  const run = { measurements, handshakes: [], websocket: [], tcp: [], manifest: { profile_settings: { connections: 200 } } }
  const a = new Article()
  scenariosSection(a, { run, aggregates: await aggregate(run) } as unknown as ArticleInput)
  return a
}

test('scenarios section: a subsection per scenario with its cells and its ratio, data strings escaped', async () => {
  const a = await render([
    ...pair({ variant: 'pool-added' }, 30),
    ...pair({ variant: 'http', scheme: 'http' }, 12),
    ...pair({ variant: 'logging', status: 'invalid', reason: '<i>no log</i>' }, 33),
    ...pair({ variant: 'pool-added', path: '/json', body_bytes: 10240 }, 45),
    ...pair({ variant: 'http', scheme: 'http', connections: 1000 }, 13),
  ])
  const md = a.toString()
  for (const h of ['S1 Plain HTTP and HTTPS', 'S2 Access logs on', 'S3 A dynamic endpoint with a sized body', 'S4 Connection counts'])
    assert.ok(md.includes(`### ${h}`), h)
  assert.match(md, /haproxy proxy CPU µs\\\/req: pool\\-added\\, 200 conns \/ http\\, 200 conns = \*\*2\\\.50 \\\[/)
  assert.match(md, /\| haproxy \| 2\\\.8\\\.25 \| pool\\-added \| \\\/json\\\?size\\=10240 \| 200 \|/)
  // Every logging row is invalid: no ratio, and the reason is shown escaped.
  assert.ok(md.includes('*No ratio: a side has no valid row.*'))
  assert.ok(!md.includes('<i>'))
  assert.deepEqual(
    a.files.map((f) => f.path),
    ['data/scenarios-https-http.csv', 'data/scenarios-logging.csv', 'data/scenarios-json.csv', 'data/scenarios-conns.csv'],
  )
})

test('scenarios section without scenarios rows says so', async () => {
  const a = (await render([measurement({ series: 'pool-added' })])).notRunLine()
  assert.doesNotMatch(a.toString(), /## Scenarios/)
  assert.match(a.toString(), /Not in this run, so not below:\* Scenarios \(scenarios series\)/)
})
