import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { aggregate } from '../../lib/analysis/summary.ts'
import { documentedReuse } from '../../lib/catalog/reuse.ts'
import { evaluateClaims } from '../../lib/claims/evaluate.ts'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { loadRun } from '../../lib/data/run-data.ts'
import type { Handshake, Measurement } from '../../lib/data/schema.ts'
import { appendRow, HANDSHAKES, MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { buildArticle } from '../../lib/report/article.ts'
import { runFindings } from '../../lib/report/build.ts'
import { renderMarkdown } from '../../lib/report/render.ts'
import { copyFixtureRun, FIXTURE_RUN as fixture } from '../fixtures/run.ts'

const golden = join(repoRoot, 'test/golden/run-quick.md')

async function article(dir: string) {
  const run = loadRun(dir)
  return buildArticle({ run, aggregates: await aggregate(run), findings: runFindings(run), claims: evaluateClaims(loadLedger(), run), openSeries: [], documentedReuse })
}

// Golden file: written only when asked (UPDATE_GOLDEN=1, never in CI); a missing one fails.

test('golden: the fixture run renders to the expected Markdown', async () => {
  const { markdown } = await article(fixture)
  if (process.env.UPDATE_GOLDEN && !process.env.CI) {
    mkdirSync(join(golden, '..'), { recursive: true })
    writeFileSync(golden, markdown)
  }
  assert.ok(existsSync(golden), `${golden} is missing: create it with UPDATE_GOLDEN=1 npm run test:unit and commit it`)
  assert.equal(markdown, readFileSync(golden, 'utf8'))
})

test('every section is there, each table links its CSV, and the CSVs are produced', async () => {
  const { markdown, files, charts } = await article(fixture)
  for (const h of ['Setup and fairness', 'Backend pooling: documented and measured', 'The three pooling series', 'nginx and HAProxy isolation', 'TLS handshake cost', 'Open model and generator calibration', 'Versions', 'WebSocket', 'Claims ledger', 'Comparison with the baseline', 'How to reproduce']) {
    assert.match(markdown, new RegExp(`^## ${h.replace(/[()]/g, '\\$&')}$`, 'm'), h)
  }
  for (const f of files) assert.ok(markdown.includes(`](${f.path})`), `${f.path} is linked`)
  assert.ok(files.some((f) => f.path === 'data/claims.csv'))
  assert.deepEqual(charts.map((c) => c.path).sort(), ['charts/handshakes.svg', 'charts/pooling.svg', 'charts/versions.svg', 'charts/websocket-hold.svg'])
})

test('a section whose CSV is absent says "not measured in this run"', async () => {
  const dir = copyFixtureRun(['manifest.json', 'measurements.csv'])
  const { markdown } = await article(dir)
  assert.match(markdown, /## TLS handshake cost\n\n\*Not measured in this run \(tls series\)\.\*/)
  assert.match(markdown, /## WebSocket\n\n\*Not measured in this run \(ws series\)\.\*/)
})

test('hostile strings from the data render as text', async () => {
  const dir = copyFixtureRun()
  const hostile = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>']
  const csv = join(dir, 'measurements.csv')
  const lines = readFileSync(csv, 'utf8').split('\n')
  // Two rows get a version string and a reason an attacker chose (CSV-quoted).
  lines[1] = lines[1]!.replace(/^([^,]*,[^,]*,[^,]*),[^,]*,/, `$1,"${hostile[0]}",`)
  lines[2] = lines[2]!.replace(/^([^,]*,[^,]*,[^,]*),[^,]*,/, `$1,"${hostile[1]!.replace(/"/g, '""')}",`)
  writeFileSync(csv, lines.join('\n'))
  const { markdown } = await article(dir)
  const { html } = renderMarkdown(markdown)
  assert.ok(!/<script/i.test(html), 'no script element')
  assert.ok(!/<img[^>]+src="?x/i.test(html), 'no injected image')
  assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the script text is shown')
  assert.ok(html.includes('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'), 'the img text is shown')
})

test('a run whose every window was disturbed renders: no empty chart, one line saying why', async () => {
  const dir = copyFixtureRun(['manifest.json'])
  for (const t of [MEASUREMENTS, HANDSHAKES]) {
    for (const row of readTable<Measurement | Handshake>(fixture, t)) appendRow(dir, t, { ...row, status: 'invalid', reason: 'disturbed: foreign CPU 80% on the proxy\'s cores' })
  }
  const { markdown, charts } = await article(dir)
  assert.ok(charts.every((c) => c.rows.length > 0), 'every chart has rows')
  assert.ok(!charts.some((c) => c.path === 'charts/pooling.svg' || c.path === 'charts/handshakes.svg'))
  assert.equal(markdown.match(/No chart: no cell has a valid value/g)?.length, 2)
})
