import { baselineSection } from '../../lib/report/sections/baseline.ts'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { Article } from '../../lib/report/markdown.ts'
import { badge, shortBadge, escapeMarkdown, isNumericCell, renderMarkdown, slugify } from '../../lib/report/render.ts'
import { HOSTILE } from '../fixtures/hostile.ts'

test('heading anchors are slugs, unique in document order, and the same on every render', () => {
  const md = '# Proxy bench\n\n## Results\n\n## Results\n\n### Results!\n\n## Café & TLS 1.3\n\n## Contents\n\n## <b>hi</b>\n\n## ***\n'
  const a = renderMarkdown(md)
  assert.equal(a.html, renderMarkdown(md).html)
  assert.equal(a.title, 'Proxy bench')
  assert.deepEqual(
    a.toc.map((h) => h.id),
    ['results', 'results-2', 'results-3', 'cafe-tls-1-3', 'contents-2', 'b-hi-b', 'section'],
  )
  assert.deepEqual(
    a.toc.map((h) => h.level),
    [2, 2, 3, 2, 2, 2, 2],
  )
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
  assert.throws(
    () => renderMarkdown('![x](https://example.com/a.png)'),
    (e) => e instanceof UserError && /not a relative path/.test(e.message),
  )
  assert.throws(() => renderMarkdown('![x](/etc/a.svg)'), UserError)
  // a chart alone in its paragraph is a figure with its caption
  assert.match(
    renderMarkdown('![CPU](charts/cpu.svg "Figure 1")').html,
    /<figure class="chart"><img src="charts\/cpu.svg" alt="CPU" title="Figure 1"><figcaption>Figure 1<\/figcaption><\/figure>/,
  )
})

test('escapeMarkdown keeps any data string literal, even inside a table cell', () => {
  const odd = ['a|b', '*x*', '![i](https://e/x.png)', '[l](javascript:1)', '1. not a list', '&lt;', 'line\nbreak', ...HOSTILE]
  const md = `| v |\n|---|\n${odd.map((s) => `| ${escapeMarkdown(s)} |`).join('\n')}\n`
  const { html } = renderMarkdown(md)
  const cells = [...html.matchAll(/<td>(.*?)<\/td>/g)].map((m) =>
    m[1]!
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&'),
  )
  assert.deepEqual(
    cells,
    odd.map((s) => s.replace('\n', ' ')),
  )
})

test('numeric columns are right-aligned as a whole; versions and mixed columns are not', () => {
  const md =
    '| proxy | version | µs/req | conns/1k |\n|---|---|---|---|\n| a | 1.31.3 | 30.5 | 0 |\n| b | 2.6.12 | ~84.6 | 1,002 |\n| c | 1.35 | 90 ± 2 | n/a |\n'
  const { html } = renderMarkdown(md)
  assert.match(html, /<th class="num">µs\/req<\/th>/)
  assert.match(html, /<th class="num">conns\/1k<\/th>/)
  assert.match(html, /<th>version<\/th>/)
  assert.match(html, /<td>1.35<\/td>/)
  assert.match(html, /<td class="num">n\/a<\/td>/)
  for (const s of ['12', '-4 %', '1,024', '~2.1×', '45 µs (±3%)', '100–200 ms']) assert.ok(isNumericCell(s), s)
  for (const s of ['1.31.3', 'v1.2', 'nginx', '']) assert.ok(!isNumericCell(s), s)
})

test('badges: a fixed word per kind, never from data; an escaped or unknown marker stays text', () => {
  const { html } = renderMarkdown(
    `a ${badge('held')} b ${badge('not-held', 3)} c ${shortBadge('reproduced', 11)} d [[badge:nonsense]] e ${escapeMarkdown('[[badge:held]]')}\n`,
  )
  assert.match(html, /<span class="badge badge-held">held<\/span>/)
  assert.match(html, /<span class="badge badge-not-held">3 not held<\/span>/)
  assert.match(html, /<span class="badge badge-reproduced" title="11 reproduced">11 ✓<\/span>/)
  assert.equal(html.match(/class="badge/g)?.length, 3)
  assert.ok(html.includes('[[badge:nonsense]]') && html.includes('e [[badge:held]]'))
})

test('[[appendix]] puts the rest in a section of its own; [[class:x]] classes the next paragraph or table', () => {
  const { html } = renderMarkdown(
    '# T\n\n[[class:answer]]\n\nfound it\n\n[[class:verdicts]]\n\n| a |\n|---|\n| 1 |\n\nafter\n\n[[appendix]]\n\n## Details\n\nmore\n',
  )
  assert.match(html, /<p class="answer">found it<\/p>/)
  assert.match(html, /<table class="verdicts">/)
  assert.match(html, /<p>after<\/p>\n<section class="appendix" id="appendix">\n<h2 id="details">Details<\/h2>\n<p>more<\/p>\n<\/section>\n$/)
  assert.ok(!html.includes('[[class') && !html.includes('[[appendix'))
  // A heading called Appendix does not take the section's id.
  assert.match(renderMarkdown('## Appendix\n\n[[appendix]]\n').html, /<h2 id="appendix-2">/)
})

test('site only: a part the print hides, named in the list the print has instead; contents entries marked alike', () => {
  const a = new Article()
  a.heading(2, 'Series').para('prose')
  a.siteOnly('Every cell', () => a.heading(3, 'Every cell').table('cells', [{ title: 'cell', value: (r: string) => r }], ['x']))
  a.siteOnly('Nothing', () => undefined)
  a.printOnly(() => a.para('in short'))
  a.para('[[toc]]').siteOnlyList('the site')
  const md = a.toString()
  const { html } = renderMarkdown(md)
  assert.match(
    html,
    /<div class="site-only">\n<h3 id="every-cell">Every cell<\/h3>\n<div class="table-wrap">[\s\S]*?cells\.csv<\/a><\/p>\n<\/div>\n<div class="print-only">\n<p>in short<\/p>\n<\/div>/,
  )
  // The list names what was written (a part that wrote nothing leaves no mark and no line), in print only.
  assert.deepEqual(a.siteOnlyNames, ['Every cell'])
  assert.match(
    html,
    /<div class="print-only">\n<h3 id="on-the-site-only">On the site only<\/h3>\n<p>[^<]*the site[^<]*<\/p>\n<ul>\n<li>Every cell<\/li>\n<\/ul>\n<\/div>\n$/,
  )
  assert.match(html, /<li class="site-only"><a href="#every-cell">Every cell<\/a><\/li>/)
  assert.match(html, /<li class="print-only"><a href="#on-the-site-only">/)
  assert.ok(a.files.some((f) => f.path === 'data/cells.csv') && !html.includes('[[only') && !html.includes('[[/only'))
  assert.throws(() => a.siteOnly('outer', () => a.printOnly(() => a.para('inner'))), /cannot hold another/)
  // Data cannot open one: its brackets are escaped.
  assert.ok(!renderMarkdown(`${escapeMarkdown('[[only:site]]')}\n\nx\n`).html.includes('<div'))
})

test('a whole section appended site-only: one part on the site, its own marks and print-only parts gone, its files and headings kept', () => {
  const section = new Article()
  section.heading(2, 'L4').para('prose')
  section.siteOnly('Every row', () => section.table('l4', [{ title: 'cell', value: (r: string) => r }], ['x']))
  section.printOnly(() => section.para('in short'))
  // A section left out (here the baseline's, without one) adds only its line to the not-run list.
  const notRun = new Article()
  baselineSection(notRun, undefined)
  const a = new Article().appendSiteOnly('L4 (TCP) proxying', section).appendSiteOnly('Not run', notRun)
  const { html } = renderMarkdown(a.toString())
  assert.match(html, /^<div class="site-only">\n<h2 id="l4">L4<\/h2>\n<p>prose<\/p>\n<div class="table-wrap">[\s\S]*l4\.csv<\/a><\/p>\n<\/div>\n$/)
  assert.ok(!html.includes('in short') && html.split('site-only').length === 2, html)
  assert.deepEqual(a.siteOnlyNames, ['L4 (TCP) proxying'])
  assert.deepEqual(a.headings, ['L4'])
  assert.deepEqual(
    a.files.map((f) => f.path),
    ['data/l4.csv'],
  )
  assert.deepEqual(a.notRun, [{ title: 'Comparison with the baseline', reason: 'no `--baseline <id>` given' }])
})
