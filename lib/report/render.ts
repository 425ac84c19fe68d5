import MarkdownIt, { type StateCore, type StateInline, type Token } from 'markdown-it'
import { userError } from '../core/errors.ts'
import { escapeHtml } from '../core/html.ts'
import { VERDICTS, type BadgeKind } from '../core/verdict.ts'

/** One heading of the table of contents. */
export interface TocEntry {
  level: number
  text: string
  id: string
  /** Under a `[[only:…]]` mark: its contents entry is shown where the heading is (ONLY_MARKERS). */
  only?: Medium
}

export interface RenderedMarkdown {
  /** The article body (no <html>/<head>), ready for htmlPage. */
  html: string
  /** The h2 and h3 headings in document order, as linked by the `[[toc]]` block. */
  toc: TocEntry[]
  /** The text of the first h1, or '' when there is none. */
  title: string
  /** Whether the Markdown had a `[[toc]]` line (so the page need not add another). */
  tocPlaced: boolean
}

interface Env {
  headings: TocEntry[]
  tocPlaced: boolean
}

/** The line that asks for a table of contents. */
export const TOC_MARKER = '[[toc]]'

/**
 * The line after which the details begin: the rest of the article goes into
 * `<section class="appendix">` (a page break before it in print: docs/report.md#answer-first).
 */
export const APPENDIX_MARKER = '[[appendix]]'

/** Where a part of the article is shown: on the site's page, or in its print (the PDF). */
export type Medium = 'site' | 'print'

/**
 * Lines around parts shown in one medium only (`<div class="site-only">`, hidden in print by
 * page.ts): write them through Article.siteOnly / printOnly (markdown.ts), not by hand.
 */
export const ONLY_MARKERS = { site: '[[only:site]]', print: '[[only:print]]', end: '[[/only]]' } as const
const ONLY = /^\[\[only:(site|print)\]\]$/

/** A line `[[class:NAME]]` right before a paragraph or a table gives it the class NAME (the verdict table, the answer). */
const BLOCK_CLASS = /^\[\[class:([a-z][a-z0-9-]{0,31})\]\]$/

/**
 * Verdict badges, `[[badge:KIND]]` or `[[badge:KIND:COUNT]]` in a line of the article. The
 * label comes from the verdict table (lib/core/verdict.ts), never from data: escapeMarkdown escapes `[`, so no string
 * from a CSV can make one.
 */
export const BADGES = Object.fromEntries(Object.values(VERDICTS).map((v) => [v.badge, v.label])) as Record<BadgeKind, string>
export type { BadgeKind }
/** Compact marks of the badges (`[[badge:KIND:COUNT:short]]`: the count and this mark, the words in its title). */
const BADGE_MARKS = Object.fromEntries(Object.values(VERDICTS).map((v) => [v.badge, v.mark])) as Record<BadgeKind, string>
/** A count as a compact badge: `11 ✓` with "11 reproduced" as its title. */
export const shortBadge = (kind: BadgeKind, count: number) => `[[badge:${kind}:${count}:short]]`
/** The Markdown of a badge (optionally with a count before the label). */
export const badge = (kind: BadgeKind, count?: number) => `[[badge:${kind}${count === undefined ? '' : `:${count}`}]]`
const BADGE = /^\[\[badge:([a-z-]+)(?::(\d{1,6})(:short)?)?\]\]/

/** Plain text of an inline token, as a reader sees it (no markup). */
function inlineText(token: Token): string {
  let s = ''
  for (const c of token.children ?? []) {
    if (c.type === 'text' || c.type === 'code_inline') s += c.content
    else if (c.type === 'softbreak' || c.type === 'hardbreak') s += ' '
    else if (c.type === 'image') s += c.content
  }
  return s
}

/**
 * A stable, readable anchor: lower case ASCII letters, digits and dashes ("Open model
 * & calibration" → "open-model-calibration"); "section" when nothing is left.
 */
export function slugify(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '')
  return s || 'section'
}

/** Ids the page template uses itself; a heading never takes them. */
const RESERVED_IDS = ['contents', 'main', 'appendix']

/** Core rule: every heading gets a unique id; h1-h3 are remembered for the title and TOC. */
function headingIds(state: StateCore): void {
  const env = state.env as Env
  const used = new Set(RESERVED_IDS)
  const tokens = state.tokens
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.type !== 'heading_open') continue
    const text = inlineText(tokens[i + 1]!).trim()
    const base = slugify(text)
    let id = base
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`
    used.add(id)
    t.attrSet('id', id)
    env.headings.push({ level: Number(t.tag.slice(1)), text, id })
  }
}

/** Core rule: a paragraph that is exactly `[[toc]]` becomes a `toc` token. */
function tocMarker(state: StateCore): void {
  const out: Token[] = []
  const tokens = state.tokens
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (markerAt(tokens, i, (x) => x === TOC_MARKER)) {
      const toc = new state.Token('toc', 'nav', 0)
      toc.block = true
      toc.map = t.map
      out.push(toc)
      ;(state.env as Env).tocPlaced = true
      i += 2
    } else out.push(t)
  }
  state.tokens = out
}

/** The paragraph holding exactly `text` at tokens[i], if it is one. */
const markerAt = (tokens: Token[], i: number, test: (text: string) => boolean) => {
  const t = tokens[i]!
  const inline = tokens[i + 1]
  return t.type === 'paragraph_open' && !t.hidden && inline?.type === 'inline' && test(inline.content.trim()) && tokens[i + 2]?.type === 'paragraph_close'
}

/**
 * Core rule: `[[only:site]]` … `[[/only]]` puts its blocks in a `<div class="site-only">`
 * (print-only alike) and marks their headings' contents entries so. Not nested: Article.siteOnly
 * and printOnly each close what they open.
 */
function onlyMarkers(state: StateCore): void {
  const env = state.env as Env
  const out: Token[] = []
  const tokens = state.tokens
  let only: Medium | null = null
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    const opens: Medium | null = only ? null : markerAt(tokens, i, (x) => ONLY.test(x)) ? (ONLY.exec(tokens[i + 1]!.content.trim())![1] as Medium) : null
    if (opens || (only && markerAt(tokens, i, (x) => x === ONLY_MARKERS.end))) {
      out.push(onlyToken(state, opens))
      only = opens
      i += 2
      continue
    }
    if (only && t.type === 'heading_open') {
      const entry = env.headings.find((h) => h.id === t.attrGet('id'))
      if (entry) entry.only = only
    }
    out.push(t)
  }
  if (only) out.push(onlyToken(state, null))
  state.tokens = out
}

/** Core rule: `[[appendix]]` opens a section that runs to the end; `[[class:NAME]]` classes the next paragraph or table. */
function blockMarkers(state: StateCore): void {
  const out: Token[] = []
  const tokens = state.tokens
  let appendix = false
  let blockClass: string | null = null
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (!appendix && markerAt(tokens, i, (x) => x === APPENDIX_MARKER)) {
      const open = new state.Token('appendix_open', 'section', 1)
      open.block = true
      out.push(open)
      appendix = true
      i += 2
      continue
    }
    if (markerAt(tokens, i, (x) => BLOCK_CLASS.test(x))) {
      blockClass = BLOCK_CLASS.exec(tokens[i + 1]!.content.trim())![1]!
      i += 2
      continue
    }
    if ((t.type === 'table_open' || t.type === 'paragraph_open') && blockClass) {
      addClass(t, blockClass)
      blockClass = null
    }
    out.push(t)
  }
  if (appendix) {
    const close = new state.Token('appendix_close', 'section', -1)
    close.block = true
    out.push(close)
  }
  state.tokens = out
}

/** The opening of a one-medium part (`<div class="site-only">`), or its end with `null`. */
function onlyToken(state: StateCore, medium: Medium | null): Token {
  const t = new state.Token(medium ? 'only_open' : 'only_close', 'div', medium ? 1 : -1)
  t.block = true
  t.meta = { medium }
  return t
}

/** Inline rule: a badge (see BADGES). */
function badgeRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x5b /* [ */) return false
  const m = BADGE.exec(state.src.slice(state.pos))
  if (!m || !(m[1]! in BADGES)) return false
  if (!silent) {
    const t = state.push('badge', 'span', 0)
    t.meta = { kind: m[1], count: m[2] === undefined ? null : Number(m[2]), short: !!m[3] }
  }
  state.pos += m[0].length
  return true
}

// one number: 12, 12.5, 1,024, 1 024, 1.2e3 (not a version like 1.31.3)
const NUM = String.raw`\d+(?:[,\u202f' ]\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?`
const UNIT = String.raw`(?:\s*(?:%|×|x|[µu]s|ms|ns|s|k|M|G|rps|req\/s|\/s|B|KiB|MiB|GiB))?`
// an optional sign or approximation, a number with its unit, an optional second
// number (range or ±), an optional parenthesised note and footnote mark
const NUMERIC = new RegExp(String.raw`^[~≈<>≤≥±+\-−]?\s*[$€]?${NUM}${UNIT}(?:\s*(?:±|–|-|\.\.|\/)\s*${NUM}${UNIT})?(?:\s*\([^()]*\))?\s*[*†‡]?$`)

/** Whether a table cell reads as a number ("12.3", "−4 %", "1,024", "~2.1×", "45 µs (±3%)"). */
export const isNumericCell = (text: string): boolean => NUMERIC.test(text.trim())

function addClass(t: Token, cls: string): void {
  const old = t.attrGet('class')
  t.attrSet('class', old ? `${old} ${cls}` : cls)
}

/** An empty cell or one that stands for "no value" ("", "-", "–", "—", "n/a", "~"). */
const isPlaceholder = (text: string) => /^(|[-–—~]|n\/a)$/i.test(text.trim())

/**
 * Core rule: a column whose every filled body cell is a number gets class "num" on
 * all its cells, header included (right-aligned, tabular figures). A mixed column
 * (versions "1.35" among "1.31.3"-like text) stays left-aligned as a whole.
 */
function numericCells(state: StateCore): void {
  const tokens = state.tokens
  let rows: TableCell[][] = []
  let row: TableCell[] = []
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.type === 'table_open') rows = []
    else if (t.type === 'tr_open') row = []
    else if (t.type === 'tr_close') rows.push(row)
    else if (t.type === 'th_open' || t.type === 'td_open') {
      const inline = tokens[i + 1]
      row.push({ open: t, text: inline?.type === 'inline' ? inlineText(inline) : '', head: t.type === 'th_open' })
    } else if (t.type === 'table_close') markNumericColumns(rows)
  }
}

/** A table cell as numericCells reads it: its opening token, its text, and whether it is a header. */
type TableCell = { open: Token; text: string; head: boolean }

/** Class "num" on every cell of each column whose filled body cells are all numbers. */
function markNumericColumns(rows: readonly TableCell[][]): void {
  const width = Math.max(0, ...rows.map((r) => r.length))
  for (let c = 0; c < width; c++) {
    const column = rows.map((r) => r[c]).filter((x) => x !== undefined)
    const filled = column.filter((x) => !x.head && !isPlaceholder(x.text))
    if (filled.length > 0 && filled.every((x) => isNumericCell(x.text))) for (const x of column) addClass(x.open, 'num')
  }
}

/** A link target that stays inside the site: no scheme, not absolute, not protocol-relative. */
export function isRelativeUrl(url: string): boolean {
  return url !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(url) && !url.startsWith('/') && !url.startsWith('\\')
}

/**
 * Core rule: images must be files of the site (a chart's SVG next to the page), never
 * fetched from elsewhere; a paragraph holding one image alone becomes a <figure>.
 */
function images(state: StateCore): void {
  const tokens = state.tokens
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.type !== 'inline') continue
    for (const c of t.children ?? []) {
      if (c.type !== 'image') continue
      const src = c.attrGet('src') ?? ''
      if (!isRelativeUrl(src)) {
        throw userError(
          'report Markdown',
          `image "${src.slice(0, 80)}" is not a relative path inside the site`,
          'Write the chart or image into the run folder (writeRunPage files) and link it as e.g. charts/name.svg',
        )
      }
    }
    const kids = (t.children ?? []).filter((c) => !(c.type === 'text' && c.content.trim() === '') && c.type !== 'softbreak')
    const open = tokens[i - 1]
    const close = tokens[i + 1]
    if (kids.length === 1 && kids[0]!.type === 'image' && open?.type === 'paragraph_open' && !open.hidden && close?.type === 'paragraph_close') {
      open.tag = close.tag = 'figure'
      addClass(open, 'chart')
      kids[0]!.meta = { ...(kids[0]!.meta ?? {}), figure: true }
    }
  }
}

/** The contents block: h2 entries with their h3 entries nested below. */
export function renderToc(toc: readonly TocEntry[]): string {
  if (toc.length === 0) return ''
  let html = '<nav class="toc" id="contents" aria-label="Contents">\n<p class="toc-title">Contents</p>\n<ol>\n'
  let inSub = false
  let openItem = false
  for (const e of toc) {
    const link = `<a href="#${escapeHtml(e.id)}">${escapeHtml(e.text)}</a>`
    const li = e.only ? `<li class="${e.only}-only">` : '<li>'
    if (e.level >= 3 && openItem) {
      if (!inSub) html += '\n<ol>\n'
      inSub = true
      html += `${li}${link}</li>\n`
      continue
    }
    if (inSub) html += '</ol>\n'
    inSub = false
    if (openItem) html += '</li>\n'
    html += `${li}${link}`
    openItem = true
  }
  if (inSub) html += '</ol>\n'
  if (openItem) html += '</li>\n'
  return html + '</ol>\n</nav>\n'
}

function createMd(): MarkdownIt {
  // html: false — every string that came from data stays text, whatever it contains.
  const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false })
  md.core.ruler.push('proxybench_heading_ids', headingIds)
  md.core.ruler.push('proxybench_toc', tocMarker)
  // Before the appendix's: a part shown in one medium closes inside the appendix section.
  md.core.ruler.push('proxybench_only_markers', onlyMarkers)
  md.core.ruler.push('proxybench_block_markers', blockMarkers)
  md.inline.ruler.before('link', 'proxybench_badge', badgeRule)
  md.core.ruler.push('proxybench_numeric_cells', numericCells)
  md.core.ruler.push('proxybench_images', images)

  md.renderer.rules.toc = (_tokens, _idx, _opts, env: Env) => renderToc(env.headings.filter((h) => h.level === 2 || h.level === 3))
  md.renderer.rules.table_open = (tokens, idx) => {
    const cls = tokens[idx]!.attrGet('class')
    return `<div class="table-wrap">\n<table${cls ? ` class="${escapeHtml(cls)}"` : ''}>\n`
  }
  md.renderer.rules.appendix_open = () => '<section class="appendix" id="appendix">\n'
  md.renderer.rules.appendix_close = () => '</section>\n'
  md.renderer.rules.only_open = (tokens, idx) => `<div class="${(tokens[idx]!.meta as { medium: Medium }).medium}-only">\n`
  md.renderer.rules.only_close = () => '</div>\n'
  md.renderer.rules.badge = (tokens, idx) => {
    const { kind, count, short } = tokens[idx]!.meta as { kind: BadgeKind; count: number | null; short: boolean }
    if (short) return `<span class="badge badge-${kind}" title="${count} ${escapeHtml(BADGES[kind])}">${count} ${BADGE_MARKS[kind]}</span>`
    return `<span class="badge badge-${kind}">${count === null ? '' : `${count} `}${escapeHtml(BADGES[kind])}</span>`
  }
  md.renderer.rules.table_close = () => '</table>\n</div>\n'
  const image = md.renderer.rules.image!
  md.renderer.rules.image = (tokens, idx, opts, env, self) => {
    const t = tokens[idx]!
    const title = t.attrGet('title')
    const img = image(tokens, idx, opts, env, self)
    return t.meta?.figure && title ? `${img}<figcaption>${escapeHtml(title)}</figcaption>` : img
  }
  return md
}

let instance: MarkdownIt | undefined

/**
 * Markdown → HTML body with heading ids, a contents block where the Markdown has a
 * `[[toc]]` line, scrollable table wrappers, numeric cells marked, images as figures.
 * Raw HTML in the Markdown is never passed through: it renders as text.
 */
export function renderMarkdown(md: string): RenderedMarkdown {
  instance ??= createMd()
  const env: Env = { headings: [], tocPlaced: false }
  const html = instance.render(md, env)
  const h1 = env.headings.find((h) => h.level === 1)
  return { html, toc: env.headings.filter((h) => h.level === 2 || h.level === 3), title: h1?.text ?? '', tocPlaced: env.tocPlaced }
}

/**
 * Makes a string from data safe to interpolate into Markdown: every ASCII punctuation
 * character is backslash-escaped (so `|` cannot split a table cell, `*` cannot
 * emphasise, `![x](…)` cannot become an image) and line breaks become spaces.
 */
export function escapeMarkdown(text: string): string {
  return String(text)
    .replace(/\r\n?|\n/g, ' ')
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g, (c) => `\\${c}`)
}
