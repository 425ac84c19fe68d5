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
  return buildArticle({
    run,
    aggregates: await aggregate(run),
    findings: runFindings(run),
    claims: evaluateClaims(loadLedger(), run),
    openSeries: [],
    documentedReuse,
  })
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

test('answer first: title, summary and verdict table, then the pictures, then the details after the appendix marker', async () => {
  const { markdown, files, charts } = await article(fixture)
  const at = (re: RegExp) => markdown.search(re)
  const [title, verdicts, firstPicture, appendix] = [
    at(/^# /m),
    at(/^\[\[class:verdicts\]\]$/m),
    at(/^## Pooling: CPU per request/m),
    at(/^\[\[appendix\]\]$/m),
  ]
  assert.ok(title === 0 && title < verdicts && verdicts < firstPicture && firstPicture < appendix, `${title} ${verdicts} ${firstPicture} ${appendix}`)
  // Nothing but the title, one line, the summary and the table before the first picture.
  assert.equal(markdown.slice(0, firstPicture).match(/^#{1,3} /gm)?.length, 1)
  for (const h of [
    'Details',
    'Findings in full',
    'Setup and fairness',
    'Backend pooling: documented and measured',
    'The three pooling series',
    'nginx and HAProxy isolation',
    'TLS handshake cost',
    'Open model and generator calibration',
    'Versions',
    'WebSocket',
    'Claims ledger',
    'How to reproduce',
    'Data',
  ]) {
    const i = at(new RegExp(`^## ${h.replace(/[()]/g, '\\$&')}$`, 'm'))
    assert.ok(i > appendix, `${h} is in the details`)
  }
  // Series that did not run have no heading: one line names them with the reason.
  for (const h of ['Capacity', 'Comparison with the baseline', 'Latency spectrum']) assert.doesNotMatch(markdown, new RegExp(`^## ${h}`, 'm'))
  assert.match(markdown, /^\*Not in this run, so not below:\* .*Capacity \(capacity series.*Comparison with the baseline \(no `--baseline <id>` given\)/m)
  for (const f of files) assert.ok(markdown.includes(`](${f.path})`), `${f.path} is linked`)
  assert.ok(files.some((f) => f.path === 'data/claims.csv') && files.some((f) => f.path === 'data/verdicts.csv'))
  assert.deepEqual(
    charts.map((c) => c.path),
    ['charts/pooling.svg', 'charts/handshakes.svg', 'charts/websocket-hold.svg', 'charts/versions.svg'],
  )
  // Every chart: its CSV in the caption line right below it, and its load model in the SVG's subtitle.
  for (const c of charts) {
    const csv = c.path.replace(/^charts\//, 'data/charts/').replace(/\.svg$/, '.csv')
    assert.ok(
      files.some((f) => f.path === csv),
      csv,
    )
    const below = markdown.slice(markdown.indexOf(`](${c.path} `)).split('\n\n')[1]!
    assert.match(below, /^\*Unit:\* .*\*Load:\* .*\]\(data\/charts\/[a-z-]+\.csv\)$/, c.path)
    assert.ok(below.endsWith(`(${csv})`), c.path)
    assert.ok((c.options as { subtitle?: string }).subtitle, `${c.path} names its load model`)
  }
})

test('the verdict table: a row per finding and per source article of the claims, each with a badge, a figure, a bound and links', async () => {
  const run = loadRun(fixture)
  const { markdown, files } = await article(fixture)
  const findings = runFindings(run)
  const csv = files
    .find((f) => f.path === 'data/verdicts.csv')!
    .content.trim()
    .split('\n')
  const sources = new Set(evaluateClaims(loadLedger(), run).map((c) => c.source))
  assert.equal(csv.length - 1, findings.length + sources.size)
  const table = markdown.slice(markdown.indexOf('[[class:verdicts]]'), markdown.indexOf('## Pooling'))
  const rows = table.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| verdict'))
  assert.equal(rows.length, findings.length + sources.size)
  for (const r of rows) assert.match(r, /^\| \[\[badge:[a-z-]+(:\d+:short)?\]\]/, r)
  const plain = table.replace(/\\(.)/g, '$1')
  // F2's bound is read from its title and its deciding figure is a single repeat (why it is undecided).
  assert.match(
    plain,
    /\*\*F2\*\* pool-removed [^|]* \| 1\.54 \[1 repeat\] caddy [^|]* \| ≥ 1\.7 \| \[picture\]\(#pooling-cpu-per-request-with-the-pool-as-shipped-added-removed\) · \[section\]\(#the-three-pooling-series\) · \[rows\]\(data\/pooling-cells\.csv\)/,
  )
  // A finding that was not measured links no picture; its figure says which cell is missing, its title states its bounds.
  assert.match(plain, /\| \[\[badge:not-measured\]\] \| \*\*F4\*\* [^|]* \| — \| ≥ 1\.7x \| \[section\]\(#nginx-and-haproxy-isolation\)/)
  // The summary says what held, what did not and why the rest is undecided.
  assert.match(
    markdown,
    /Of the \d+ findings with a bound, \*\*\d+ held\*\* \([^)]*\), \*\*\d+ did not\*\* \([^)]*\), and \*\*\d+ could not be decided\*\*: [^.]*single valid repeat/,
  )
})

test('a section whose CSV is absent is left out of the contents and named in the not-run line', async () => {
  const dir = copyFixtureRun(['manifest.json', 'measurements.csv'])
  const { markdown } = await article(dir)
  assert.doesNotMatch(markdown, /^## (TLS handshake cost|WebSocket)$/m)
  assert.match(markdown, /Not in this run, so not below:\* .*TLS handshake cost \(tls series\).*WebSocket \(ws series\)/)
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
    for (const row of readTable<Measurement | Handshake>(fixture, t))
      appendRow(dir, t, { ...row, status: 'invalid', reason: "disturbed: foreign CPU 80% on the proxy's cores" })
  }
  const { markdown, charts } = await article(dir)
  assert.ok(
    charts.every((c) => c.rows.length > 0),
    'every chart has rows',
  )
  assert.ok(!charts.some((c) => c.path === 'charts/pooling.svg' || c.path === 'charts/handshakes.svg'))
  assert.equal(markdown.match(/No chart: no cell has a valid value/g)?.length, 2)
})
