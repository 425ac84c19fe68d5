import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { loadRun } from '../lib/data/run-data.ts'
import { aggregate } from '../lib/analysis/summary.ts'
import { evaluateClaims } from '../lib/claims/evaluate.ts'
import { loadLedger } from '../lib/claims/ledger.ts'
import { memoryLogger } from '../lib/core/log.ts'
import { repoRoot } from '../lib/core/paths.ts'
import { buildArticle } from '../lib/report/article.ts'
import { buildReport, runFindings } from '../lib/report/build.ts'
import { renderMarkdown } from '../lib/report/render.ts'
import { documentedReuse } from '../lib/catalog/reuse.ts'

const fixture = join(repoRoot, 'test/fixtures/run-quick')
const golden = join(repoRoot, 'test/golden/run-quick.md')

async function article(dir: string) {
  const run = loadRun(dir)
  return buildArticle({ run, aggregates: await aggregate(run), findings: runFindings(run), claims: evaluateClaims(loadLedger(), run), openSeries: [], documentedReuse })
}

// Golden file: created on a developer's machine (UPDATE_GOLDEN=1 rewrites it), compared in CI.
test('golden: the fixture run renders to the expected Markdown', async () => {
  const { markdown } = await article(fixture)
  if (!existsSync(golden) || process.env.UPDATE_GOLDEN) {
    assert.ok(!process.env.CI, `${golden} is missing: create it locally with UPDATE_GOLDEN=1 and commit it`)
    mkdirSync(join(golden, '..'), { recursive: true })
    writeFileSync(golden, markdown)
  }
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
  const dir = mkdtempSync(join(tmpdir(), 'pb-report-'))
  for (const f of ['manifest.json', 'measurements.csv']) writeFileSync(join(dir, f), readFileSync(join(fixture, f)))
  const { markdown } = await article(dir)
  assert.match(markdown, /## TLS handshake cost\n\n\*Not measured in this run \(tls series\)\.\*/)
  assert.match(markdown, /## WebSocket\n\n\*Not measured in this run \(ws series\)\.\*/)
})

test('hostile strings from the data render as text', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-report-'))
  for (const f of readdirSync(fixture)) writeFileSync(join(dir, f), readFileSync(join(fixture, f)))
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

test('site: no private key material; an unknown baseline changes nothing', async () => {
  const site = mkdtempSync(join(tmpdir(), 'pb-site-'))
  const dir = mkdtempSync(join(tmpdir(), 'pb-report-'))
  for (const f of readdirSync(fixture)) writeFileSync(join(dir, f), readFileSync(join(fixture, f)))
  await buildReport({ runDir: dir, siteDir: site, pdf: false, log: memoryLogger(), generated: 'test' })
  const before = readFileSync(join(site, 'index.html'), 'utf8')
  await assert.rejects(buildReport({ runDir: dir, baseline: 'no-such-baseline', siteDir: site, pdf: false, log: memoryLogger() }), /unknown baseline/)
  assert.equal(readFileSync(join(site, 'index.html'), 'utf8'), before)
  const header = ['-----BEGIN', 'PRIVATE KEY-----'].join(' ')
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]))
  for (const f of walk(site)) assert.ok(!readFileSync(f, 'latin1').includes('PRIVATE KEY'), `${f} has no key (${header})`)
})
