import assert from 'node:assert/strict'
import { test } from 'node:test'
import { htmlPage } from '../../lib/report/page.ts'
import { renderMarkdown } from '../../lib/report/render.ts'
import { HOSTILE } from '../fixtures/hostile.ts'

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
  for (const rule of [
    /@page \{ size: A4; margin:/,
    /tr, td, th \{ break-inside: avoid/,
    /thead \{ display: table-header-group; \}/,
    /figure\.chart[^{]*\{ break-inside: avoid/,
    /print-color-adjust: exact/,
    /tbody tr:nth-child\(even\)/,
    /td\.num, th\.num \{ text-align: right/,
  ]) {
    assert.match(page, rule)
  }
  assert.throws(() => htmlPage({ title: 't', body: '', breadcrumbs: [{ href: 'javascript:alert(1)', text: 'x' }], generated: '' }), /not relative/)
  assert.throws(() => htmlPage({ title: 't', body: '', breadcrumbs: [{ href: 'https://example.com/', text: 'x' }], generated: '' }), /not relative/)
  // toc passed to the page when the Markdown has no marker
  const noMarker = renderMarkdown('# T\n\n## A\n\n## B\n')
  assert.match(htmlPage({ title: 'T', body: noMarker.html, toc: noMarker.toc, generated: 'g' }), /<nav class="toc"[\s\S]*href="#b"/)
})
