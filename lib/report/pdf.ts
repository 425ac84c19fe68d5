import { accessSync, constants, statSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer'
import { writeOutputs } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import { escapeHtml } from '../core/html.ts'

/** The flags the design's machine notes verified for Debian's Chromium (root, no GPU). */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
] as const

/** `PUPPETEER_EXECUTABLE_PATH` or Debian's /usr/bin/chromium; missing is a one-line UserError. */
export function chromiumPath(): string {
  const env = process.env.PUPPETEER_EXECUTABLE_PATH
  const path = env && env.trim() !== '' ? env : '/usr/bin/chromium'
  try {
    accessSync(path, constants.X_OK)
    if (!statSync(path).isFile()) throw new Error('not a file')
  } catch {
    throw userError(
      env ? `PUPPETEER_EXECUTABLE_PATH=${path}` : path,
      'Chromium is not installed or not executable',
      'Install the Debian package chromium (apt-get install -y chromium) or set PUPPETEER_EXECUTABLE_PATH to a Chrome/Chromium binary',
    )
  }
  return path
}

/** Launches the system Chromium headless with the project's flags (no download, no network services). */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath()
  try {
    return await puppeteer.launch({ executablePath, headless: true, pipe: true, args: [...CHROMIUM_FLAGS], timeout: 30_000 })
  } catch (e) {
    const first = String((e as Error).message ?? e).split('\n')[0]
    throw userError(
      executablePath,
      `Chromium did not start (${first})`,
      'Check that the Debian package chromium is complete (apt-get install -y --reinstall chromium)',
    )
  }
}

/** Runs fn with one headless Chromium, closed afterwards whatever happens; reuse it for every page and PDF of a build. */
export async function withBrowser<T>(fn: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await launchBrowser()
  try {
    return await fn(browser)
  } finally {
    await browser.close().catch(() => undefined)
  }
}

/**
 * A page that loads nothing but local files: any request that is not file:, data: or
 * about: is aborted. JavaScript is off unless asked for (report pages have none).
 */
export async function localPage(browser: Browser, opts: { javascript?: boolean } = {}): Promise<Page> {
  const page = await browser.newPage()
  await page.setJavaScriptEnabled(opts.javascript ?? false)
  await page.setRequestInterception(true)
  page.on('request', (req) => {
    if (req.isInterceptResolutionHandled()) return
    const url = req.url()
    if (/^(file|data|about):/i.test(url)) void req.continue()
    else void req.abort('blockedbyclient')
  })
  return page
}

export interface PdfOptions {
  /** The browser to print with (see withBrowser). */
  browser: Browser
  /** Text before the page numbers in the footer, e.g. the run id (escaped). */
  footerText?: string
}

export interface PdfResult {
  /** Pages of the PDF. */
  pages: number
  /** Pages before the appendix (the answer and the pictures); equal to pages when the page has no appendix. */
  mainPages: number
}

/** Page objects of a PDF as Chromium writes it (one `/Type /Page` each; `/Pages` is the tree). */
export const pdfPageCount = (pdf: Uint8Array): number =>
  (
    Buffer.from(pdf)
      .toString('latin1')
      .match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []
  ).length

/** Hides the details (render.ts APPENDIX_MARKER) so a second print counts the main part's pages. */
const MAIN_ONLY_CSS = 'section.appendix { display: none !important; }'

/** Margins matching the page CSS (@page in page.ts), so screen print and PDF agree. */
export const PDF_MARGIN = { top: '16mm', right: '15mm', bottom: '18mm', left: '15mm' }

function footerTemplate(text?: string): string {
  const lead = text ? `${escapeHtml(text)} · ` : ''
  return `<div style="width:100%;font-family:'DejaVu Sans',sans-serif;font-size:8px;color:#59636e;text-align:center;padding:0 15mm;">${lead}page <span class="pageNumber"></span> of <span class="totalPages"></span></div>`
}

/**
 * Prints an HTML file (opened from file://, all subresources local) to an A4 PDF with
 * backgrounds and a "page N of M" footer; written to a temp file and renamed.
 */
export async function renderPdf(htmlFile: string, pdfFile: string, opts: PdfOptions): Promise<PdfResult> {
  const src = resolve(htmlFile)
  try {
    statSync(src)
  } catch {
    throw userError(htmlFile, 'no such page to print', 'Publish the site first')
  }
  let whole: Uint8Array
  let mainPages: number
  const page = await localPage(opts.browser)
  try {
    const timeout = 60_000
    page.setDefaultTimeout(timeout)
    await page.goto(pathToFileURL(src).href, { waitUntil: 'load', timeout })
    const print = () =>
      page.pdf({
        format: 'A4',
        printBackground: true,
        displayHeaderFooter: true,
        headerTemplate: '<span></span>',
        footerTemplate: footerTemplate(opts.footerText),
        margin: PDF_MARGIN,
        timeout,
      })
    whole = await print()
    // The details start on a page of their own: the main part is what prints without them.
    if (await page.$('section.appendix')) {
      await page.addStyleTag({ content: MAIN_ONLY_CSS })
      mainPages = pdfPageCount(await print())
    } else mainPages = pdfPageCount(whole)
  } finally {
    await page.close().catch(() => undefined)
  }
  const out = resolve(pdfFile)
  writeOutputs(dirname(out), [{ path: basename(out), render: () => Buffer.from(whole) }])
  return { pages: pdfPageCount(whole), mainPages }
}
