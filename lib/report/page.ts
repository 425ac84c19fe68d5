import { escapeHtml } from '../core/html.ts'
import { isRelativeUrl, renderToc, type TocEntry } from './render.ts'

export interface Breadcrumb {
  /** A relative link (e.g. ../../index.html): the site must work from file:// and any server. */
  href: string
  text: string
}

export interface PageOptions {
  title: string
  /** Trusted HTML: the output of renderMarkdown or of this module's own builders. */
  body: string
  /** When given and non-empty, a contents block is put above the body. */
  toc?: readonly TocEntry[]
  breadcrumbs?: readonly Breadcrumb[]
  /** Shown in the footer as is (e.g. an ISO timestamp); the caller fixes it for golden tests. */
  generated: string
}

/** A relative href, escaped for an attribute; anything with a scheme or a leading slash throws. */
export function relativeHref(href: string): string {
  if (!isRelativeUrl(href))
    throw new Error(`report: link "${href}" is not relative; site links must be relative so the site works from disk and from any server`)
  return escapeHtml(href)
}

/**
 * Content-Security-Policy of every page: no script at all, nothing fetched from
 * another origin; images and styles only from the page itself (file:// included).
 */
export const PAGE_CSP =
  "default-src 'none'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; style-src 'unsafe-inline'; img-src 'self' file: data:"

/** Inline stylesheet: article typography, tables, charts, and print (A4) rules. */
export const PAGE_CSS = `
:root {
  color-scheme: light;
  --fg: #1f2328; --muted: #59636e; --rule: #d1d9e0; --zebra: #f6f8fa; --head: #eef1f4;
  --link: #0b57d0; --code: #f3f4f6; --note: #fff8e1;
}
* { box-sizing: border-box; }
html { font-size: 17px; -webkit-text-size-adjust: 100%; }
body {
  margin: 0; color: var(--fg); background: #fff;
  font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
  line-height: 1.6;
}
.wrap { max-width: 52rem; margin: 0 auto; padding: 1.25rem 1.25rem 3rem; }
nav.breadcrumbs { font-size: .85rem; color: var(--muted); margin-bottom: .5rem; }
nav.breadcrumbs a { color: var(--muted); }
nav.breadcrumbs .sep { margin: 0 .4em; }
h1, h2, h3, h4 { line-height: 1.25; margin: 2rem 0 .75rem; font-weight: 650; }
h1 { font-size: 1.6rem; margin-top: .25rem; margin-bottom: .5rem; }
h2 { font-size: 1.45rem; padding-bottom: .25rem; border-bottom: 1px solid var(--rule); }
h3 { font-size: 1.15rem; }
h4 { font-size: 1rem; }
p, ul, ol, blockquote, pre, figure, .table-wrap { margin: 0 0 1rem; }
a { color: var(--link); text-underline-offset: 2px; }
a:hover { text-decoration-thickness: 2px; }
blockquote { margin-left: 0; padding: .5rem 1rem; border-left: 4px solid var(--rule); color: var(--muted); background: var(--zebra); }
code, pre, kbd { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace; font-size: .88em; }
code { background: var(--code); padding: .1em .3em; border-radius: 3px; }
pre { background: var(--code); padding: .75rem 1rem; overflow-x: auto; border-radius: 4px; line-height: 1.45; }
pre code { background: none; padding: 0; }
hr { border: 0; border-top: 1px solid var(--rule); margin: 2rem 0; }
img { max-width: 100%; height: auto; }
figure.chart { margin: 1.25rem 0 1.5rem; text-align: center; }
figure.chart img, figure.chart svg { display: block; margin: 0 auto; max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: var(--muted); margin-top: .4rem; }
nav.toc { background: var(--zebra); border: 1px solid var(--rule); border-radius: 4px; padding: .75rem 1.25rem; margin: 1rem 0 2rem; font-size: .92rem; }
nav.toc .toc-title { font-weight: 650; margin: 0 0 .25rem; }
nav.toc ol { margin: 0; padding-left: 1.25rem; }
nav.toc ol ol { list-style: lower-alpha; }
.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: .85rem; line-height: 1.4; margin: 0; min-width: 50%; }
th, td { padding: .35rem .6rem; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; }
thead th { background: var(--head); border-bottom: 2px solid var(--rule); font-weight: 650; }
tbody tr:nth-child(even) { background: var(--zebra); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
/* break-word, not anywhere: names break only when a word cannot fit, so columns keep their words */
td { overflow-wrap: break-word; }
ul.entries { list-style: none; padding: 0; }
ul.entries li { padding: .6rem 0; border-bottom: 1px solid var(--rule); }
ul.entries .subtitle, ul.entries .date { color: var(--muted); font-size: .88rem; }
ul.entries .date { font-variant-numeric: tabular-nums; margin-left: .5rem; }
/* verdict badges (render.ts BADGES): colour and words, so print in grey still reads */
.badge { display: inline-block; padding: 0 .45em; border-radius: .7em; font-size: .78em; font-weight: 650; line-height: 1.55; white-space: nowrap; border: 1px solid transparent; }
.badge-held, .badge-reproduced { background: #dafbe1; color: #116329; border-color: #8fd6a0; }
.badge-not-held, .badge-not-reproduced { background: #ffebe9; color: #a40e26; border-color: #f5a3a9; }
.badge-inconclusive { background: #fff4d6; color: #7d4e00; border-color: #e8c36a; }
.badge-not-measured, .badge-not-runnable { background: #eef1f4; color: #4b535d; border-color: #c8d1da; }
.badge-info { background: #ddf4ff; color: #0a4d8c; border-color: #9ccdf0; }
/* the verdict table: one line per row on a wide screen, so the answer fits the first screen */
table.verdicts { font-size: .72rem; line-height: 1.2; width: 100%; }
table.verdicts th, table.verdicts td { padding: .06rem .35rem; }
table.verdicts .badge { line-height: 1.35; }
p.runline { font-size: .85rem; color: var(--muted); margin-bottom: .5rem; }
p.answer { font-size: .9rem; line-height: 1.45; margin-bottom: .6rem; }
/* the abstract and the cost of each proxy: what a reader takes from the first screen */
p.abstract { font-size: 1.02rem; line-height: 1.5; margin-bottom: .6rem; }
table.costs { font-size: .85rem; line-height: 1.25; }
table.costs th, table.costs td { padding: .1rem .45rem; }
table.verdicts td:first-child { white-space: nowrap; }
table.verdicts td:first-child .badge + .badge { margin-left: .15em; }
.table-wrap:has(table.verdicts) + h2 { margin-top: 1.25rem; }
/* a wide screen gets a wider column: the answer and the charts need the room more than the prose loses */
@media (min-width: 1200px) { .wrap { max-width: 72rem; } }
@media (min-width: 760px) {
  table.verdicts { table-layout: fixed; }
  table.verdicts th:nth-child(1) { width: 17%; }
  table.verdicts th:nth-child(2) { width: 33%; }
  table.verdicts th:nth-child(3) { width: 28%; }
  table.verdicts th:nth-child(4) { width: 8%; }
  table.verdicts th:nth-child(5) { width: 14%; }
  table.verdicts td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
}

section.appendix { margin-top: 3rem; border-top: 3px double var(--rule); }
/* one medium only (markdown.ts Article.siteOnly, printOnly): the PDF lists what it leaves to the site */
@media not print { .print-only { display: none; } }
footer.generated { margin-top: 3rem; padding-top: .75rem; border-top: 1px solid var(--rule); font-size: .8rem; color: var(--muted); }
@page { size: A4; margin: 16mm 15mm 18mm; }
@media print {
  html { font-size: 10.5pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .wrap { max-width: none; padding: 0; }
  nav.breadcrumbs { display: none; }
  a { color: inherit; text-decoration: none; }
  h1, h2, h3, h4 { break-after: avoid; page-break-after: avoid; }
  h2 { margin-top: 1.5rem; }
  p, li { orphans: 3; widows: 3; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; }
  /* On paper a table cannot scroll: a long claim id or expression may break anywhere rather than widen it past the page. */
  td { overflow-wrap: anywhere; }
  .table-wrap { overflow: visible; }
  table { font-size: 7.5pt; width: 100%; }
  th, td { padding: .2rem .25rem; }
  thead { display: table-header-group; }
  tr, td, th { break-inside: avoid; page-break-inside: avoid; }
  figure.chart, figure.chart img, figure.chart svg, svg, img { break-inside: avoid; page-break-inside: avoid; }
  footer.generated { margin-top: 1.5rem; }
  section.appendix { break-before: page; page-break-before: always; border-top: 0; margin-top: 0; }
  table.verdicts { font-size: 7.5pt; table-layout: auto; }
  table.verdicts td { white-space: normal; overflow: visible; }
  .site-only { display: none; }
  /* the claims by article (sections/claims.ts): the claim's words get the room, and words break only when one alone is wider than its column */
  table.claims { table-layout: fixed; }
  table.claims td { overflow-wrap: break-word; }
  table.claims th:nth-child(1) { width: 6%; }
  table.claims th:nth-child(2) { width: 38%; }
  table.claims th:nth-child(3) { width: 16%; }
  table.claims th:nth-child(4) { width: 27%; }
  table.claims th:nth-child(5) { width: 13%; }
}
`

function breadcrumbsHtml(items: readonly Breadcrumb[]): string {
  if (items.length === 0) return ''
  const links = items.map((b) => `<a href="${relativeHref(b.href)}">${escapeHtml(b.text)}</a>`)
  return `<nav class="breadcrumbs" aria-label="Breadcrumbs">${links.join('<span class="sep" aria-hidden="true">›</span>')}</nav>\n`
}

/**
 * A complete, self-contained HTML document: inline CSS, no script, no external URL
 * (no fonts, no CDN), a CSP that forbids both. Title and breadcrumbs are escaped; the
 * body is trusted HTML (renderMarkdown's output, which escapes everything from data).
 */
export function htmlPage(opts: PageOptions): string {
  const toc = opts.toc && opts.toc.length > 0 ? renderToc(opts.toc) : ''
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="proxybench">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(opts.title)}</title>
<link rel="icon" href="data:,">
<style>${PAGE_CSS}</style>
</head>
<body>
<div class="wrap">
${breadcrumbsHtml(opts.breadcrumbs ?? [])}<main id="main">
${toc}${opts.body}</main>
<footer class="generated">Generated by proxybench · ${escapeHtml(opts.generated)}</footer>
</div>
</body>
</html>
`
}
