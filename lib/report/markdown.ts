import Papa from 'papaparse'
import { escapeMarkdown, type Medium, ONLY_MARKERS } from './render.ts'
import { csvText } from '../data/csv.ts'

/**
 * Markdown building blocks for the article. Every string that comes from data goes through
 * `esc` (markdown-it runs with html disabled, so it can never become markup; escaping keeps
 * it from becoming Markdown: a `|` in a version string must not split a table cell).
 */

export const esc = (s: unknown) => escapeMarkdown(String(s ?? ''))

export type Value = string | number | null | undefined

/** Numbers for reading: 3 significant figures, thousands kept whole. */
export function num(x: Value, digits = 3): string {
  if (x === null || x === undefined || x === '') return '—'
  if (typeof x === 'string') return x
  if (!Number.isFinite(x)) return '—'
  const a = Math.abs(x)
  if (a >= 10 ** digits) return Math.round(x).toString()
  if (a === 0) return '0'
  return Number(x.toPrecision(digits)).toString()
}

export const pct = (x: number | null | undefined, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : `${(x * 100).toFixed(digits)}%`)

export interface Column<R> {
  title: string
  value: (row: R) => Value
  /** How the page shows the value (defaults to num / text); the CSV keeps `value`. */
  show?: (row: R) => string
  /** In the CSV only: the page leaves it out (a table must fit an A4 page; the column's content is said elsewhere). */
  csvOnly?: boolean
}

/** A table the article shows and the CSV beside it: the same columns, raw values. */
export interface TableFile {
  path: string
  content: string
}

/** A section left out because its series did not run, with the reason (listed in one line). */
export interface NotRun {
  title: string
  reason: string
}

/** Where the line naming the sections left out goes (filled in by toString). */
const NOT_RUN_SLOT = '\u0000not-run\u0000'

/** Parts with their site-only marks dropped (the contents kept) and their print-only parts dropped whole. */
function withoutOnlyParts(parts: readonly string[]): string[] {
  const out: string[] = []
  let printed = false
  for (const p of parts) {
    if (p === ONLY_MARKERS.print) printed = true
    else if (p === ONLY_MARKERS.end) printed = false
    else if (p !== ONLY_MARKERS.site && !printed) out.push(p)
  }
  return out
}

export class Article {
  private readonly parts: string[] = []
  readonly files: TableFile[] = []
  readonly notRun: NotRun[] = []
  /** The text of every heading, in order (what the article can link to). */
  readonly headings: string[] = []
  /** What the site shows and the PDF leaves out (siteOnly), in order: the PDF lists it (siteOnlyList). */
  readonly siteOnlyNames: string[] = []

  /** `under`: a folder the page's files go in, relative to the page (e.g. "history/" for site/history.html). */
  constructor(private readonly under = '') {}

  /** Another article's parts, files, headings and left-out sections, after this one's. */
  append(other: Article): this {
    this.parts.push(...other.parts)
    this.files.push(...other.files)
    this.notRun.push(...other.notRun)
    this.headings.push(...other.headings)
    this.siteOnlyNames.push(...other.siteOnlyNames)
    return this
  }

  /**
   * What `write` adds is on the site and not in the PDF (hidden in print, page.ts): the parts to
   * look things up in, not to read through (docs/report.md#the-pdf). `what` names them in the
   * PDF's list of them (siteOnlyList) when it wrote anything. Not nested, nor around the appendix marker.
   */
  siteOnly(what: string, write: () => void): this {
    if (this.only('site', write)) this.siteOnlyNames.push(what)
    return this
  }

  /**
   * Another article as one site-only part named `what` (a section to look up, not to read
   * through): the marks inside it go, with its print-only parts, since all of it is the site's.
   */
  appendSiteOnly(what: string, other: Article): this {
    const parts = withoutOnlyParts(other.parts)
    // A section that wrote nothing (not run) leaves no mark and no name in the list.
    if (parts.some((p) => p.trim() !== '')) this.siteOnly(what, () => this.parts.push(...parts))
    this.files.push(...other.files)
    this.notRun.push(...other.notRun)
    this.headings.push(...other.headings)
    return this
  }

  /** What `write` adds is in the PDF and not on the site: the print's short form of a site-only part. */
  printOnly(write: () => void): this {
    this.only('print', write)
    return this
  }

  private inOnly = false
  /** Whether `write` wrote anything (nothing: no marks either). */
  private only(medium: Medium, write: () => void): boolean {
    // The marks do not nest (render.ts): the first end would close both.
    if (this.inOnly) throw new Error('report: a site-only or print-only part cannot hold another')
    this.inOnly = true
    this.parts.push(ONLY_MARKERS[medium], '')
    const from = this.parts.length
    try {
      write()
    } finally {
      this.inOnly = false
    }
    if (this.parts.length === from) {
      this.parts.splice(from - 2)
      return false
    }
    this.parts.push(ONLY_MARKERS.end, '')
    return true
  }

  /** In the PDF only: what it leaves out and `page` (the run's page on the site) holds, as each siteOnly named it. */
  siteOnlyList(page: string): this {
    if (this.siteOnlyNames.length === 0) return this
    return this.printOnly(() =>
      this.heading(3, 'On the site only')
        .para(`This print leaves out what is there to look up rather than to read through; ${page} holds it, each table with its CSV:`)
        .bullets([...new Set(this.siteOnlyNames)]),
    )
  }

  /** Leaves a section out (no heading, so not in the contents): the not-run line names it. */
  skip(title: string, reason: string): this {
    this.notRun.push({ title, reason })
    return this
  }

  /** The place of the one line that lists the sections left out (nothing when none was). */
  notRunLine(): this {
    this.parts.push(NOT_RUN_SLOT, '')
    return this
  }

  /** A CSV file with the given columns (a chart's data, say), linked by the caller. */
  csv(path: string, rows: readonly Record<string, Value | boolean>[]): this {
    this.files.push({ path, content: csvText([...new Set(rows.flatMap((r) => Object.keys(r)))], rows) })
    return this
  }

  line(...text: string[]): this {
    this.parts.push(text.join(''))
    return this
  }

  para(text: string): this {
    this.parts.push(text, '')
    return this
  }

  heading(level: 1 | 2 | 3, text: string): this {
    this.headings.push(text)
    this.parts.push(`${'#'.repeat(level)} ${text}`, '')
    return this
  }

  bullets(items: readonly string[]): this {
    this.parts.push(...items.map((i) => `- ${i}`), '')
    return this
  }

  /**
   * A table with a link to its CSV (`data/<name>.csv`) below it, or none with `linkedAbove`
   * (the caller links it in the paragraph right above); an empty table says so. A `view` shows
   * fewer columns of the rows another table of that name writes: it links that CSV and writes none.
   */
  table<R>(
    name: string,
    columns: readonly Column<R>[],
    rows: readonly R[],
    empty = 'No rows in this run.',
    o: { linkedAbove?: boolean; view?: boolean } = {},
  ): this {
    if (rows.length === 0) return this.para(`*${empty}*`)
    const cell = (c: Column<R>, r: R) => (c.show ? c.show(r) : esc(num(c.value(r))))
    const shown = columns.filter((c) => !c.csvOnly)
    this.parts.push(
      `| ${shown.map((c) => esc(c.title)).join(' | ')} |`,
      `|${shown.map(() => '---').join('|')}|`,
      ...rows.map((r) => `| ${shown.map((c) => cell(c, r)).join(' | ')} |`),
      '',
      ...(o.linkedAbove ? [] : [`[${name}.csv](${this.under}data/${name}.csv)`, '']),
    )
    if (o.view) return this
    const data = rows.map((r) => columns.map((c) => c.value(r) ?? ''))
    this.files.push({ path: `${this.under}data/${name}.csv`, content: Papa.unparse({ fields: columns.map((c) => c.title), data }, { newline: '\n' }) + '\n' })
    return this
  }

  /** A chart as a figure; the title becomes its caption. */
  image(path: string, title: string): this {
    return this.para(`![${esc(title)}](${path} "${title.replace(/["\\]/g, '')}")`)
  }

  toString(): string {
    const skipped = this.notRun.length ? `*Not in this run, so not below:* ${this.notRun.map((n) => `${n.title} (${n.reason})`).join('; ')}.` : ''
    return (
      this.parts
        .map((p) => (p === NOT_RUN_SLOT ? skipped : p))
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trimEnd() + '\n'
    )
  }
}
