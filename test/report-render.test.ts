import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../lib/core/errors.ts'
import { memoryLogger } from '../lib/core/log.ts'
import { barChart, dotChart, inlineSvg, lineChart, renderSpec, type VegaLiteSpec } from '../lib/report/charts.ts'
import { escapeMarkdown, isNumericCell, renderMarkdown, slugify } from '../lib/report/render.ts'
import { htmlPage } from '../lib/report/page.ts'
import { assertNoKeyMaterial, publishRun, writeSiteIndex } from '../lib/report/site.ts'

const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>'] as const
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `pb-report-${name}-`))
// Built at runtime so that no file of the repository holds a key header.
const keyHeader = (kind: string) => ['-----BEGIN', `${kind}PRIVATE KEY-----`].join(' ')

test('heading anchors are slugs, unique in document order, and the same on every render', () => {
  const md = '# Proxy bench\n\n## Results\n\n## Results\n\n### Results!\n\n## Café & TLS 1.3\n\n## Contents\n\n## <b>hi</b>\n\n## ***\n'
  const a = renderMarkdown(md)
  assert.equal(a.html, renderMarkdown(md).html)
  assert.equal(a.title, 'Proxy bench')
  assert.deepEqual(a.toc.map((h) => h.id), ['results', 'results-2', 'results-3', 'cafe-tls-1-3', 'contents-2', 'b-hi-b', 'section'])
  assert.deepEqual(a.toc.map((h) => h.level), [2, 2, 3, 2, 2, 2, 2])
  assert.equal(a.toc[5]!.text, '<b>hi</b>')
  assert.match(a.html, /<h1 id="proxy-bench">Proxy bench<\/h1>/)
  assert.match(a.html, /<h2 id="b-hi-b">&lt;b&gt;hi&lt;\/b&gt;<\/h2>/)
  const ids = [...a.html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1])
  assert.equal(new Set(ids).size, ids.length)
  assert.equal(slugify('  Open model — calibration!  '), 'open-model-calibration')
})

test('[[toc]] becomes a contents block of h2 and nested h3 exactly where it stands', () => {
  const md = '# Title\n\nIntro.\n\n[[toc]]\n\n## One\n\n### One a\n\n#### Deep\n\n## Two <x>\n\n```\n[[toc]]\n```\n'
  const r = renderMarkdown(md)
  assert.equal(r.tocPlaced, true)
  const nav = r.html.indexOf('<nav class="toc"')
  assert.ok(r.html.indexOf('Intro.') < nav && nav < r.html.indexOf('<h2 id="one">'), r.html)
  const block = r.html.slice(nav, r.html.indexOf('</nav>') + 6)
  assert.match(block, /<li><a href="#one">One<\/a>\n<ol>\n<li><a href="#one-a">One a<\/a><\/li>\n<\/ol>\n<\/li>/)
  assert.match(block, /<a href="#two-x">Two &lt;x&gt;<\/a>/)
  assert.ok(!block.includes('deep') && !block.includes('#title'))
  // the marker in a code block stays code; no other marker text is left
  assert.equal(r.html.split('[[toc]]').length, 2)
  assert.match(r.html, /<code>\[\[toc\]\]\n<\/code>/)
  const none = renderMarkdown('# T\n\n## A\n')
  assert.equal(none.tocPlaced, false)
  assert.ok(!none.html.includes('<nav'))
})

test('raw HTML in Markdown and in table cells renders as text; bad links and remote images do not pass', () => {
  const md = `# T\n\n${HOSTILE[0]}\n\n| proxy | version |\n|---|---|\n| nginx | ${HOSTILE[0]} |\n| envoy | ${HOSTILE[1]} |\n\n[click](javascript:alert(1)) <a href="x">a</a>\n`
  const { html } = renderMarkdown(md)
  assert.ok(!/<script/i.test(html), html)
  assert.ok(!/<img/i.test(html), html)
  assert.ok(!/<a href="x"/.test(html))
  assert.ok(!/href="javascript/i.test(html))
  assert.match(html, /<td>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/td>/)
  assert.match(html, /<td>&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;<\/td>/)
  assert.match(html, /<div class="table-wrap">\n<table>/)
  assert.throws(() => renderMarkdown('![x](https://example.com/a.png)'), (e) => e instanceof UserError && /not a relative path/.test(e.message))
  assert.throws(() => renderMarkdown('![x](/etc/a.svg)'), UserError)
  // a chart alone in its paragraph is a figure with its caption
  assert.match(renderMarkdown('![CPU](charts/cpu.svg "Figure 1")').html, /<figure class="chart"><img src="charts\/cpu.svg" alt="CPU" title="Figure 1"><figcaption>Figure 1<\/figcaption><\/figure>/)
})

test('escapeMarkdown keeps any data string literal, even inside a table cell', () => {
  const odd = ['a|b', '*x*', '![i](https://e/x.png)', '[l](javascript:1)', '1. not a list', '&lt;', 'line\nbreak', ...HOSTILE]
  const md = `| v |\n|---|\n${odd.map((s) => `| ${escapeMarkdown(s)} |`).join('\n')}\n`
  const { html } = renderMarkdown(md)
  const cells = [...html.matchAll(/<td>(.*?)<\/td>/g)].map((m) => m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&'))
  assert.deepEqual(cells, odd.map((s) => s.replace('\n', ' ')))
})

test('numeric columns are right-aligned as a whole; versions and mixed columns are not', () => {
  const md = '| proxy | version | µs/req | conns/1k |\n|---|---|---|---|\n| a | 1.31.3 | 30.5 | 0 |\n| b | 2.6.12 | ~84.6 | 1,002 |\n| c | 1.35 | 90 ± 2 | n/a |\n'
  const { html } = renderMarkdown(md)
  assert.match(html, /<th class="num">µs\/req<\/th>/)
  assert.match(html, /<th class="num">conns\/1k<\/th>/)
  assert.match(html, /<th>version<\/th>/)
  assert.match(html, /<td>1.35<\/td>/)
  assert.match(html, /<td class="num">n\/a<\/td>/)
  for (const s of ['12', '-4 %', '1,024', '~2.1×', '45 µs (±3%)', '100–200 ms']) assert.ok(isNumericCell(s), s)
  for (const s of ['1.31.3', 'v1.2', 'nginx', '']) assert.ok(!isNumericCell(s), s)
})

test('a page is one self-contained document: no script, no URL, escaped title and breadcrumbs, print rules', () => {
  const r = renderMarkdown(`# Run\n\n[[toc]]\n\n## A\n\n| x |\n|---|\n| ${HOSTILE[1]} |\n\n![c](charts/c.svg)\n\n[csv](data/m.csv)\n`)
  const page = htmlPage({ title: HOSTILE[0], body: r.html, breadcrumbs: [{ href: '../../index.html', text: HOSTILE[1] }], generated: '2026-11-30T00:00:00Z' })
  assert.ok(page.startsWith('<!DOCTYPE html>'))
  assert.ok(!/https?:\/\//i.test(page), 'no http(s) URL')
  assert.ok(!/<script/i.test(page), 'no script')
  assert.ok(!/@import|url\(|<link rel="stylesheet"/i.test(page), 'no external stylesheet or font')
  assert.match(page, /<title>&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/title>/)
  assert.match(page, /<a href="..\/..\/index.html">&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;<\/a>/)
  assert.match(page, /Content-Security-Policy" content="default-src 'none'; script-src 'none'/)
  for (const rule of [/@page \{ size: A4; margin:/, /tr, td, th \{ break-inside: avoid/, /thead \{ display: table-header-group; \}/, /figure\.chart[^{]*\{ break-inside: avoid/, /print-color-adjust: exact/, /tbody tr:nth-child\(even\)/, /td\.num, th\.num \{ text-align: right/]) {
    assert.match(page, rule)
  }
  assert.throws(() => htmlPage({ title: 't', body: '', breadcrumbs: [{ href: 'javascript:alert(1)', text: 'x' }], generated: '' }), /not relative/)
  assert.throws(() => htmlPage({ title: 't', body: '', breadcrumbs: [{ href: 'https://example.com/', text: 'x' }], generated: '' }), /not relative/)
  // toc passed to the page when the Markdown has no marker
  const noMarker = renderMarkdown('# T\n\n## A\n\n## B\n')
  assert.match(htmlPage({ title: 'T', body: noMarker.html, toc: noMarker.toc, generated: 'g' }), /<nav class="toc"[^]*href="#b"/)
})

const BARS = [
  { category: 'haproxy', group: 'pool-added', value: 30.1, lo: 28, hi: 33 },
  { category: 'haproxy', group: 'pool-removed', value: 98.2, lo: 95, hi: 101 },
  { category: 'nginx', group: 'pool-added', value: 34.7, lo: 33, hi: 36 },
  { category: 'nginx', group: 'pool-removed', value: 99.8, lo: 97, hi: 102 },
]

test('charts: same rows give the same SVG bytes, also when renders overlap', async () => {
  const a = await barChart(BARS, { title: 'CPU', valueTitle: 'µs per request' })
  const [b, , c] = await Promise.all([barChart(BARS, { title: 'CPU', valueTitle: 'µs per request' }), lineChart([{ x: 1, y: 2, series: 's' }, { x: 2, y: 3, series: 's' }]), barChart(BARS, { title: 'CPU', valueTitle: 'µs per request' })])
  assert.equal(a, b)
  assert.equal(a, c)
  assert.match(a, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]* width="640"/)
  assert.ok(a.includes('font-family="DejaVu Sans, sans-serif"'))
  assert.ok(!/href=|url\(http/.test(a))
  // inline form for a page: no namespace URL left
  assert.ok(!/https?:\/\//.test(inlineSvg(a)) && inlineSvg(a).startsWith('<svg '))
  assert.equal(await barChart(BARS, { horizontal: true }), await barChart(BARS, { horizontal: true }))
  assert.equal(await dotChart(BARS), await dotChart(BARS))
})

test('charts: temporal axes read the same in every time zone', async () => {
  const rows = ['2026-01-01', '2026-01-03T12:00', '2026-01-05T00:00:00Z'].map((x, i) => ({ x, y: i }))
  const old = process.env.TZ
  try {
    process.env.TZ = 'UTC'
    const utc = await lineChart(rows, { xType: 'temporal' })
    process.env.TZ = 'Pacific/Kiritimati'
    const plus14 = await lineChart(rows, { xType: 'temporal' })
    process.env.TZ = 'America/Los_Angeles'
    assert.equal(await lineChart(rows, { xType: 'temporal' }), utc)
    assert.equal(plus14, utc)
  } finally {
    if (old === undefined) delete process.env.TZ
    else process.env.TZ = old
  }
})

test('charts: hostile labels from data come out escaped, and data is never fetched', async () => {
  const rows = [{ category: HOSTILE[0], value: 3, group: HOSTILE[1] }, { category: HOSTILE[1], value: 5, group: HOSTILE[0], lo: 4, hi: 6 }]
  for (const svg of [await barChart(rows, { title: HOSTILE[0], valueTitle: HOSTILE[1] }), await dotChart(rows), await lineChart([{ x: 1, y: 1, series: HOSTILE[0] }, { x: 2, y: 2, series: HOSTILE[1] }], { title: HOSTILE[1] })]) {
    // every tag is a plain SVG drawing element and no attribute is an event handler
    const tags = [...svg.matchAll(/<([a-zA-Z][\w:-]*)([^>]*)>/g)]
    assert.deepEqual([...new Set(tags.map((t) => t[1]))].filter((n) => !['svg', 'g', 'path', 'rect', 'line', 'text', 'defs', 'clipPath', 'circle', 'title'].includes(n!)), [])
    for (const t of tags) assert.match(t[2]!, /^(\s[\w:-]+="[^"]*")*\/?$/, 'attributes are all name="value"')
    assert.deepEqual(tags.flatMap((t) => [...t[2]!.matchAll(/\s([\w:-]+)="[^"]*"/g)].map((a) => a[1]!)).filter((a) => /^on|href/i.test(a)), [])
    assert.ok(svg.includes('&lt;script&gt;'))
    assert.ok(svg.includes('&lt;img src=x onerror=alert(1)&gt;'))
  }
  const remote = { data: { url: 'https://example.com/data.json' }, mark: 'bar', encoding: { x: { field: 'a', type: 'nominal' } } } as VegaLiteSpec
  await assert.rejects(renderSpec(remote), /url|disabled/)
  const local = { data: { url: '/etc/passwd', format: { type: 'csv' } }, mark: 'bar', encoding: { x: { field: 'a', type: 'nominal' } } } as VegaLiteSpec
  await assert.rejects(renderSpec(local), /url|disabled/)
  await assert.rejects(barChart([]), /at least one row/)
})

test('assertNoKeyMaterial finds a PEM private key by content and key files by name', () => {
  const dir = tmp('keys')
  mkdirSync(join(dir, 'data', 'raw'), { recursive: true })
  writeFileSync(join(dir, 'data', 'measurements.csv'), 'a,b\n1,2\n')
  writeFileSync(join(dir, 'ca.crt.txt'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')
  assertNoKeyMaterial(dir)
  // large files are read in 1 MiB blocks: one header straddles a block boundary
  for (const [kind, pad] of [['', 10], ['RSA ', 1_048_566], ['EC ', 2_000_000], ['ENCRYPTED ', 5], ['OPENSSH ', 1_048_576 - 30]] as const) {
    const file = join(dir, 'data', 'raw', 'notes.log')
    writeFileSync(file, `x`.repeat(pad) + `\n${keyHeader(kind)}\nMHcCAQEE\n`)
    assert.throws(() => assertNoKeyMaterial(dir), (e) => e instanceof UserError && e.message.includes('notes.log: contains a PEM private key'), kind)
  }
  writeFileSync(join(dir, 'data', 'raw', 'notes.log'), 'clean\n')
  for (const name of ['leaf.key', 'ec256-key.pem']) {
    const d = tmp('keyname')
    writeFileSync(join(d, name), 'harmless')
    assert.throws(() => assertNoKeyMaterial(d), (e) => e instanceof UserError && e.message.includes(`${name}: is named like a private key`))
  }
})

function runFiles(dir: string) {
  return readdirSync(dir, { recursive: true }).map(String).sort()
}

test('publishRun swaps the whole run folder in; a failure leaves the old page and no temp files', () => {
  const site = tmp('site')
  const log = memoryLogger()
  const csv = join(tmp('src'), 'measurements.csv')
  writeFileSync(csv, 'proxy,us\nnginx,30\n')
  const first = publishRun(site, { runId: 'r-1', markdown: '# First\n\nv1 [data](data/measurements.csv)', files: [{ path: 'data/measurements.csv', source: csv }, { path: 'charts/a.svg', content: '<svg/>' }], generated: 'g1' }, log)
  assert.equal(first.href, 'runs/r-1/index.html')
  assert.equal(first.title, 'First')
  const page1 = readFileSync(first.page, 'utf8')
  assert.match(page1, /v1/)
  assert.match(page1, /<a href="..\/..\/index.html">proxybench<\/a>/)
  assert.deepEqual(runFiles(first.dir), ['charts', 'charts/a.svg', 'data', 'data/measurements.csv', 'index.html'])
  const clean = () => assert.deepEqual(readdirSync(join(site, 'runs')), ['r-1'])

  // a missing source: error naming it, old page untouched
  assert.throws(
    () => publishRun(site, { runId: 'r-1', markdown: '# Second\n\nv2', files: [{ path: 'data/measurements.csv', source: join(site, 'nope.csv') }], generated: 'g2' }, log),
    (e) => e instanceof UserError && /nope\.csv is missing/.test(e.message),
  )
  assert.equal(readFileSync(first.page, 'utf8'), page1)
  clean()
  // key material in a published file: refused before the swap
  assert.throws(() => publishRun(site, { runId: 'r-1', markdown: '# S', files: [{ path: 'raw/x.txt', content: keyHeader('') }] }, log), (e) => e instanceof UserError && e.message.includes('runs/r-1/raw/x.txt: contains a PEM private key'))
  assert.equal(readFileSync(first.page, 'utf8'), page1)
  clean()
  // a remote image in the Markdown: refused, old page kept
  assert.throws(() => publishRun(site, { runId: 'r-1', markdown: '![x](http://e/x.png)', files: [] }, log), UserError)
  assert.equal(readFileSync(first.page, 'utf8'), page1)

  // success replaces the folder as a whole: files of the old run are gone
  const second = publishRun(site, { runId: 'r-1', markdown: '# Second\n\nv2', files: [{ path: 'data/handshakes.csv', content: Buffer.from('a\n1\n') }], generated: 'g2' }, log)
  assert.match(readFileSync(second.page, 'utf8'), /v2/)
  assert.deepEqual(runFiles(second.dir), ['data', 'data/handshakes.csv', 'index.html'])
  clean()
  assert.ok(log.lines.some((l) => /published .*runs\/r-1\/index.html \(1 file\)/.test(l)))

  // an interrupted swap (old folder set aside, new one never moved in) is repaired
  renameSync(second.dir, join(site, 'runs', '.old-r-1.123-abcd1234'))
  mkdirSync(join(site, 'runs', '.tmp-r-1.123-abcd1234'))
  publishRun(site, { runId: 'r', markdown: '# Other', files: [] }, log) // "r" is not "r-1"
  assert.deepEqual(readdirSync(join(site, 'runs')).sort(), ['.old-r-1.123-abcd1234', '.tmp-r-1.123-abcd1234', 'r'])
  publishRun(site, { runId: 'r-1', markdown: '# Third', files: [] }, log)
  assert.deepEqual(readdirSync(join(site, 'runs')).sort(), ['r', 'r-1'])
  assert.match(readFileSync(join(site, 'runs', 'r-1', 'index.html'), 'utf8'), /Third/)
})

test('the interrupted page comes back before the new one is built', () => {
  const site = tmp('recover')
  const log = memoryLogger()
  const r = publishRun(site, { runId: 'r.1', markdown: '# Kept', files: [] }, log)
  renameSync(r.dir, join(site, 'runs', '.old-r.1.99-0123abcd'))
  // a failing publish still puts the old page back first
  assert.throws(() => publishRun(site, { runId: 'r.1', markdown: '# New', files: [{ path: 'a.csv', source: join(site, 'missing') }] }, log), UserError)
  assert.match(readFileSync(r.page, 'utf8'), /Kept/)
  assert.deepEqual(readdirSync(join(site, 'runs')), ['r.1'])
})

test('a missing Chromium is one line naming the Debian package', async () => {
  const { chromiumPath } = await import('../lib/report/pdf.ts')
  const old = process.env.PUPPETEER_EXECUTABLE_PATH
  try {
    process.env.PUPPETEER_EXECUTABLE_PATH = '/nonexistent/chromium'
    assert.throws(() => chromiumPath(), (e) => e instanceof UserError && !e.message.includes('\n') && /^PUPPETEER_EXECUTABLE_PATH=\/nonexistent\/chromium: .*apt-get install -y chromium/.test(e.message))
  } finally {
    if (old === undefined) delete process.env.PUPPETEER_EXECUTABLE_PATH
    else process.env.PUPPETEER_EXECUTABLE_PATH = old
  }
})

test('run ids and file paths are checked before anything is written', () => {
  const site = tmp('ids')
  const log = memoryLogger()
  for (const id of ['', '../x', 'a/b', '.hidden', 'a b', 'x'.repeat(200), 'r..1', 'é']) {
    assert.throws(() => publishRun(site, { runId: id, markdown: '# x', files: [] }, log), (e) => e instanceof UserError && e.message.startsWith('run id:'), id)
  }
  for (const path of ['../x.csv', '/etc/passwd', 'a//b', 'index.html', 'data/.tmp-x', 'a\\b', '']) {
    assert.throws(() => publishRun(site, { runId: 'ok', markdown: '# x', files: [{ path, content: 'x' }] }, log), UserError, path)
  }
  assert.throws(() => publishRun(site, { runId: 'ok', markdown: '# x', files: [{ path: 'a.csv' }] }, log), /exactly one of content or source/)
  assert.ok(!existsSync(join(site, 'runs', 'ok')))
})

test('the site index lists runs then baselines with relative, escaped links', () => {
  const site = tmp('index')
  const file = writeSiteIndex(site, [
    { href: 'baselines/published-2026-08-23/index.html', title: 'Published 2026-08-23', kind: 'baseline' },
    { href: 'runs/r-1/index.html', title: HOSTILE[0], subtitle: HOSTILE[1], date: '2026-11-30', kind: 'run' },
  ], memoryLogger(), { links: [{ href: 'report.pdf', text: 'Report (PDF)' }], generated: 'g' })
  const html = readFileSync(file, 'utf8')
  assert.ok(html.indexOf('runs/r-1/index.html') < html.indexOf('baselines/published-2026-08-23/index.html'))
  assert.ok(!/<script|<img|https?:\/\//i.test(html))
  assert.match(html, /<a href="report.pdf">Report \(PDF\)<\/a>/)
  assert.throws(() => writeSiteIndex(site, [{ href: 'https://example.com', title: 'x', kind: 'run' }], memoryLogger()), UserError)
  assert.throws(() => writeSiteIndex(site, [{ href: '/runs/x/index.html', title: 'x', kind: 'run' }], memoryLogger()), UserError)
})
