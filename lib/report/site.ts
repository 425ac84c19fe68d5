import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { userError } from '../core/errors.ts'
import { writeOutputFolder, writeOutputs } from '../core/atomic.ts'
import { escapeHtml } from '../core/html.ts'
import type { Logger } from '../core/log.ts'
import { displayPath } from '../core/paths.ts'
import { renderMarkdown } from './render.ts'
import { htmlPage, relativeHref, type Breadcrumb } from './page.ts'

/** A file written next to a run's page: exactly one of content or source. */
export interface SiteFile {
  /** Relative to the run's folder, e.g. data/measurements.csv or charts/pooling.svg. */
  path: string
  content?: string | Buffer
  /** A file to copy (e.g. results/<id>/measurements.csv). */
  source?: string
}

export interface RunPage {
  runId: string
  markdown: string
  files: SiteFile[]
  /** Footer stamp; default now (ISO). Fix it for byte-identical output. */
  generated?: string
  /** Page <title> when the Markdown has no h1; default the run id. */
  title?: string
  /** 'runs' (default) or 'baselines': the folder under site/ the page goes to. */
  section?: 'runs' | 'baselines'
}

export interface WrittenRunPage {
  /** Absolute path of the run's folder. */
  dir: string
  /** Absolute path of its index.html. */
  page: string
  /** Relative href from site/index.html, e.g. runs/<id>/index.html. */
  href: string
  title: string
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/

/** Run ids become folder names and URLs: letters, digits, '.', '_' and '-' only. */
export function assertRunId(runId: string): void {
  if (typeof runId !== 'string' || !RUN_ID.test(runId) || runId.includes('..')) {
    throw userError(
      'run id',
      `${JSON.stringify(String(runId).slice(0, 80))} is not a safe name`,
      'Use letters, digits, ".", "_" and "-" (starting with a letter or digit, at most 128 characters)',
    )
  }
}

function assertFilePath(runId: string, path: string): void {
  const parts = typeof path === 'string' ? path.split('/') : []
  if (parts.length === 0 || parts.length > 8 || !parts.every((p) => SEGMENT.test(p) && p !== '..' && !p.startsWith('.tmp-')) || path === 'index.html') {
    throw userError(
      `publish ${runId}`,
      `file path ${JSON.stringify(String(path).slice(0, 120))} is not a safe relative path`,
      'Use relative paths of letters, digits, ".", "_" and "-" separated by "/" (not index.html, no "..")',
    )
  }
}

// Names and content that only a private key has. The header is matched in parts so
// that this file itself never contains one.
const KEY_NAME = /(\.key|[-_.]key\.pem|^key\.pem|^privkey.*\.pem|\.p12|\.pfx)$/i
const KEY_HEADER = new RegExp(['-----BEGIN', '[A-Z0-9 ]*', 'PRIVATE KEY', '-----'].join(''))
const KEY_MARK = Buffer.from('PRIVATE KEY-----')

function containsKey(file: string): boolean {
  // streamed in blocks with an overlap, so a large CSV is not read into memory at once
  const fd = openSync(file, 'r')
  try {
    const block = Buffer.alloc(1 << 20)
    const overlap = 128
    let carry = Buffer.alloc(0)
    let pos = 0
    for (;;) {
      const n = readSync(fd, block, 0, block.length, pos)
      if (n <= 0) return false
      pos += n
      const chunk = Buffer.concat([carry, block.subarray(0, n)])
      if (chunk.includes(KEY_MARK) && KEY_HEADER.test(chunk.toString('latin1'))) return true
      carry = chunk.subarray(Math.max(0, chunk.length - overlap))
    }
  } finally {
    closeSync(fd)
  }
}

/**
 * Throws a UserError if any file under dir is named like a key (*.key, *-key.pem, …)
 * or holds a PEM private key ("-----BEGIN … PRIVATE KEY-----", any variant).
 * Symbolic links are refused too: a published site holds plain files only.
 * `shownAs` names the folder in the message (e.g. the final path of a temp folder).
 */
export function assertNoKeyMaterial(dir: string, shownAs?: string): void {
  const show = (file: string) => (shownAs !== undefined ? join(shownAs, relative(dir, file)) : displayPath(file))
  const fix = 'Keys never go into the published site; leave that file out of what is published'
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const file = join(d, name)
      const st = lstatSync(file)
      if (st.isSymbolicLink()) throw userError(show(file), 'is a symbolic link', 'Publish plain files only (copy the target instead)')
      if (st.isDirectory()) walk(file)
      else if (KEY_NAME.test(name)) throw userError(show(file), 'is named like a private key', fix)
      else if (st.isFile() && containsKey(file)) throw userError(show(file), 'contains a PEM private key', fix)
    }
  }
  walk(dir)
}

/**
 * Leftovers of an interrupted publish of this run: a `.old-` folder is the previous
 * page, put back when the page itself is missing; `.tmp-` folders are dropped.
 */
function recover(parent: string, name: string, target: string): void {
  if (!existsSync(parent)) return
  for (const entry of readdirSync(parent).sort()) {
    // .tmp-<id>.<pid>-<hex> / .old-<id>.<pid>-<hex>: the id is compared whole ("r" is not "r.1")
    const m = /^\.(tmp|old)-(.+)\.\d+-[0-9a-f]{8}$/.exec(entry)
    if (!m || m[2] !== name) continue
    const p = join(parent, entry)
    if (m[1] === 'old' && !existsSync(target)) renameSync(p, target)
    else rmSync(p, { recursive: true, force: true })
  }
}

/**
 * Renders a run's Markdown to `site/<section>/<runId>/index.html` and writes its files
 * (CSVs, chart SVGs) beside it. Everything is built in a temp folder next to the
 * target, checked for key material, then swapped in by rename: on any error the old
 * page stays as it was and nothing half-written is left.
 */
export function writeRunPage(siteDir: string, run: RunPage, log: Logger): WrittenRunPage {
  assertRunId(run.runId)
  const section = run.section ?? 'runs'
  if (section !== 'runs' && section !== 'baselines')
    throw userError(`publish ${run.runId}`, `unknown section ${JSON.stringify(section)}`, 'Use "runs" or "baselines"')
  const seen = new Set<string>()
  for (const f of run.files) {
    assertFilePath(run.runId, f.path)
    if (seen.has(f.path)) throw userError(`publish ${run.runId}`, `file ${f.path} is given twice`, 'Give each published file once')
    seen.add(f.path)
    if ((f.content === undefined) === (f.source === undefined))
      throw userError(
        `publish ${run.runId}: ${f.path}`,
        'needs exactly one of content or source',
        'Pass the text/bytes as content, or a file to copy as source',
      )
  }
  const parent = join(siteDir, section)
  const target = join(parent, run.runId)
  mkdirSync(parent, { recursive: true })
  recover(parent, run.runId, target)

  const rendered = renderMarkdown(run.markdown)
  const title = rendered.title || run.title || run.runId
  const breadcrumbs: Breadcrumb[] = [{ href: '../../index.html', text: 'proxybench' }]
  const html = htmlPage({
    title,
    body: rendered.html,
    toc: rendered.tocPlaced ? undefined : rendered.toc,
    breadcrumbs,
    generated: run.generated ?? new Date().toISOString(),
  })

  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`
  const tmp = join(parent, `.tmp-${run.runId}.${suffix}`)
  const old = join(parent, `.old-${run.runId}.${suffix}`)
  const copied = (f: SiteFile) => () => {
    const src = f.source!
    if (!existsSync(src) || !statSync(src).isFile())
      throw userError(
        `publish ${run.runId}: ${f.path}`,
        `source ${displayPath(src)} is missing or not a file`,
        'Run the step that writes it first, or leave it out of the published files',
      )
    return readFileSync(src)
  }
  const outputs = [
    ...run.files.map((f) => ({ path: f.path, render: f.content !== undefined ? () => f.content! : copied(f) })),
    { path: 'index.html', render: () => html },
  ]
  writeOutputFolder(target, outputs, { tmp, old, check: (dir) => assertNoKeyMaterial(dir, displayPath(target)) })
  const href = `${section}/${run.runId}/index.html`
  log.info(`wrote ${displayPath(join(target, 'index.html'))} (${run.files.length} file${run.files.length === 1 ? '' : 's'})`)
  return { dir: target, page: join(target, 'index.html'), href, title }
}

export interface SiteEntry {
  /** Relative to site/, e.g. runs/<id>/index.html; absent: listed without a page (a baseline no run was compared with yet). */
  href?: string
  title: string
  subtitle?: string
  date?: string
  kind: 'run' | 'baseline'
}

export interface SiteIndexOptions {
  /** One paragraph of plain text under the title. */
  intro?: string
  /** Extra relative links at the top, e.g. {href: 'report.pdf', text: 'Report (PDF)'}. */
  links?: Breadcrumb[]
  generated?: string
}

function entriesHtml(entries: readonly SiteEntry[], empty: string): string {
  if (entries.length === 0) return `<p class="empty">${escapeHtml(empty)}</p>\n`
  const items = entries.map((e) => {
    const date = e.date ? ` <span class="date">${escapeHtml(e.date)}</span>` : ''
    const sub = e.subtitle ? `<br><span class="subtitle">${escapeHtml(e.subtitle)}</span>` : ''
    const name = e.href ? `<a href="${relativeHref(e.href)}">${escapeHtml(e.title)}</a>` : `<span class="title">${escapeHtml(e.title)}</span>`
    return `<li>${name}${date}${sub}</li>`
  })
  return `<ul class="entries">\n${items.join('\n')}\n</ul>\n`
}

/** Writes `site/index.html` (atomically): the runs, then the baselines, in the order given. */
export function writeSiteIndex(siteDir: string, entries: readonly SiteEntry[], log: Logger, opts: SiteIndexOptions = {}): string {
  for (const e of entries) {
    if (e.kind !== 'run' && e.kind !== 'baseline')
      throw userError('site index', `entry ${JSON.stringify(e.title)} has kind ${JSON.stringify(e.kind)}`, 'Use "run" or "baseline"')
    try {
      if (e.href !== undefined) relativeHref(e.href)
    } catch {
      throw userError(
        'site index',
        `entry ${JSON.stringify(e.title)} links to ${JSON.stringify(e.href)}, not a relative path`,
        'Link site pages relatively, e.g. runs/<id>/index.html',
      )
    }
  }
  const title = 'proxybench results'
  const links = (opts.links ?? []).map((l) => `<a href="${relativeHref(l.href)}">${escapeHtml(l.text)}</a>`)
  const body = [
    `<h1 id="top">${escapeHtml(title)}</h1>\n`,
    opts.intro ? `<p>${escapeHtml(opts.intro)}</p>\n` : '',
    links.length ? `<p class="links">${links.join(' · ')}</p>\n` : '',
    '<h2 id="runs">Runs</h2>\n',
    entriesHtml(
      entries.filter((e) => e.kind === 'run'),
      'No runs published yet.',
    ),
    '<h2 id="baselines">Baselines</h2>\n',
    entriesHtml(
      entries.filter((e) => e.kind === 'baseline'),
      'No baselines.',
    ),
  ].join('')
  const file = join(siteDir, 'index.html')
  writeOutputs(siteDir, [{ path: 'index.html', render: () => htmlPage({ title, body, generated: opts.generated ?? new Date().toISOString() }) }])
  log.info(`wrote ${displayPath(file)} (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'})`)
  return file
}
