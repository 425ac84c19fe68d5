import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Browser, Page } from 'puppeteer'
import { memoryLogger } from '../../lib/core/log.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { LATENCY_FORMAT, writeLatencySpectrum } from '../../lib/data/latency.ts'
import type { ClaimResult } from '../../lib/claims/evaluate.ts'
import { buildReport } from '../../lib/report/build.ts'
import { localPage, pdfPageCount, withBrowser } from '../../lib/report/pdf.ts'

const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>'] as const
const fixture = join(repoRoot, 'test/fixtures/run-quick')
/** The fixture run's id: the site publishes it under runs/<id>/. */
const runId = String(JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')).run_id)

/** One closed-model latency spectrum, as wrk's raw output gives it (the fixture keeps no raw/). */
const SPECTRUM = {
  format: LATENCY_FORMAT,
  generator: 'wrk',
  measured_from: 'sent',
  exact: true,
  total_count: 100000,
  max_us: 9000,
  points: [0, 50, 90, 99, 99.9, 100].map((percentile, i) => ({ percentile, value_us: 500 * (i + 1) ** 2, count: percentile * 1000 })),
  hdr: null,
} as const

/**
 * The real report pipeline on the committed fixture run (a real quick run's CSVs), with two
 * rows' version strings replaced by hostile ones and a latency spectrum in raw/ (a section the
 * site has and the PDF leaves out), compared with the published baseline.
 */
async function buildSite(site: string) {
  const dir = mkdtempSync(join(tmpdir(), 'pb-site-run-'))
  for (const f of readdirSync(fixture)) writeFileSync(join(dir, f), readFileSync(join(fixture, f)))
  const csv = join(dir, 'websocket.csv')
  const lines = readFileSync(csv, 'utf8').split('\n')
  lines[1] = lines[1]!.replace(/^([^,]*,[^,]*,[^,]*),[^,]*,/, `$1,"${HOSTILE[0]}",`)
  lines[2] = lines[2]!.replace(/^([^,]*,[^,]*,[^,]*),[^,]*,/, `$1,"${HOSTILE[1].replace(/"/g, '""')}",`)
  writeFileSync(csv, lines.join('\n'))
  writeLatencySpectrum(dir, 'same-haproxy-3.4.7-article-ec256-c200-r1', { ...SPECTRUM, points: [...SPECTRUM.points] })
  const t0 = performance.now()
  const r = await buildReport({ runDir: dir, baseline: '2026-08-23', siteDir: site, pdf: true, log: memoryLogger() })
  return { r, seconds: (performance.now() - t0) / 1000 }
}

/** Opens a page from file:// with JavaScript on (so an injected script would run) and records every problem. */
async function visit(browser: Browser, file: string) {
  const page = await localPage(browser, { javascript: true })
  const problems: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(`console ${m.type()}: ${m.text()}`)
  })
  page.on('pageerror', (e) => problems.push(`page error: ${String(e)}`))
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`))
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`)
    void d.dismiss()
  })
  await page.setViewport({ width: 1100, height: 900 })
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' })
  const facts = await page.evaluate(() => ({
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is checked (hostile strings shown as text, not run); textContent would count script bodies and hidden text
    text: document.body.innerText,
    links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')!),
    images: [...document.querySelectorAll('img')].map((i) => ({ src: i.getAttribute('src')!, ok: i.complete && i.naturalWidth > 0 })),
    ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
    scripts: document.querySelectorAll('script').length,
    injected: document.querySelectorAll('img[src="x"], [onerror]').length,
  }))
  return { page, problems, ...facts }
}

/**
 * Elements wider than the viewport: the page must not scroll sideways, and no element may
 * stick out past its right edge unless a scrolling box (a wide table's wrapper) holds it.
 */
async function overflows(page: Page, width: number): Promise<string[]> {
  await page.setViewport({ width, height: 800 })
  // A string, not a function: tsx would wrap the helper in a __name() call the page does not have.
  return page.evaluate(`(() => {
    const vw = document.documentElement.clientWidth
    const out = []
    if (document.documentElement.scrollWidth > vw + 1) out.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + vw)
    for (const e of document.querySelectorAll('body *')) {
      const r = e.getBoundingClientRect()
      let clipped = false
      for (let p = e.parentElement; p && !clipped; p = p.parentElement) clipped = /(auto|scroll|hidden)/.test(getComputedStyle(p).overflowX)
      if (r.width > 0 && r.right > vw + 1 && !clipped) out.push(e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' ends at ' + Math.round(r.right) + ' > ' + vw)
    }
    return out.slice(0, 5)
  })()`) as Promise<string[]>
}

/** What the print leaves out is on the page: a latency spectrum, findings in full, the ledger's ids and CSV lines; the print's list is not. */
function siteOnlyOnScreen(v: { text: string; images: { src: string }[] }, claims: readonly ClaimResult[]) {
  assert.ok(v.images.some((i) => i.src === 'charts/latency-same.svg') && v.text.includes('Findings in full'), 'site-only parts on the page')
  for (const c of claims) assert.ok(v.text.includes(c.id), `claim id ${c.id} on the page`)
  assert.ok(v.text.includes('(rows: measurements.csv') && !v.text.includes('On the site only'))
}

/** The run page under print media at A4 width (docs/report.md#the-pdf). */
async function siteOnlyInPrint(page: Page, claims: readonly ClaimResult[]) {
  // In print: no spectrum, no CSV line numbers, the claims by article without ids, and the list of what the site holds.
  const printed = await page.evaluate(() => ({
    // biome-ignore lint/performance/useDomNodeTextContent: what prints is what is checked; textContent would count hidden text
    text: document.body.innerText,
    images: [...document.querySelectorAll('img')].filter((i) => i.getClientRects().length > 0).map((i) => i.getAttribute('src')!),
    // biome-ignore lint/performance/useDomNodeTextContent: as printed
    claims: (document.querySelector('table.claims') as HTMLElement | null)?.innerText ?? '',
    shown: ['findings-in-full', 'latency-spectrum', 'every-pooling-cell', 'claims-ledger'].filter(
      (id) => document.getElementById(id)!.getClientRects().length > 0,
    ),
  }))
  assert.ok(printed.images.length >= 3 && !printed.images.some((src) => src.includes('latency')), printed.images.join(' '))
  for (const c of claims) assert.ok(!printed.claims.includes(c.id), `claim id ${c.id} in the printed claims`)
  assert.ok(!printed.text.includes('(rows: measurements.csv'), 'CSV line numbers in print')
  assert.deepEqual(printed.shown, ['claims-ledger'], 'headings in print')
  // The claims this run measured, by article; the ones it could not measure are counted, their list is the site's.
  const measured = claims.filter((c) => c.verdict !== 'not measured' && c.verdict !== 'not runnable here')
  assert.ok(printed.text.includes('On the site only') && measured.every((c) => printed.claims.includes(c.claim)), 'the claims by article and the list in print')
  assert.match(printed.text, new RegExp(`${claims.length - measured.length} of ${claims.length} claims were not measured or cannot run here`))
  // No word of the claims by article breaks across lines (a line may end after a hyphen, slash or plus).
  const broken = await page.evaluate(`(() => {
    const out = []
    const walk = document.createTreeWalker(document.querySelector('table.claims'), NodeFilter.SHOW_TEXT)
    for (let n = walk.nextNode(); n; n = walk.nextNode())
      for (const m of n.data.matchAll(/[^\\s\\-\\/+\\u200b]+/g)) {
        const r = document.createRange()
        r.setStart(n, m.index)
        r.setEnd(n, m.index + m[0].length)
        if (new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1) out.push(m[0])
      }
    return out
  })()`)
  assert.deepEqual(broken, [])
}

/** The first screen at 1280x800 says what the run found in words and figures: the abstract and each proxy's cost. */
async function firstScreen(page: Page, r: { claims: readonly ClaimResult[]; findings: readonly unknown[] }) {
  await page.setViewport({ width: 1280, height: 800 })
  const first = await page.evaluate(() => ({
    abstract: document.querySelector('p.abstract')?.getBoundingClientRect().bottom ?? Infinity,
    words: document.querySelector('p.abstract')?.textContent ?? '',
    costs: document.querySelector('table.costs')?.getBoundingClientRect().bottom ?? Infinity,
    badges: document.querySelectorAll('table.verdicts .badge').length,
    history: [...document.querySelectorAll('a')].some((a) => a.getAttribute('href') === '../../history.html'),
  }))
  console.log(`run page at 1280x800: abstract ends at ${first.abstract} px, the cost table at ${first.costs} px`)
  assert.ok(first.abstract < first.costs && first.costs <= 800 && first.badges >= r.findings.length && first.history, JSON.stringify(first))
  assert.match(first.words, /µs of CPU per request/)
  assert.match(first.words, new RegExp(`Of ${r.claims.length} published claims, ${r.claims.filter((c) => c.verdict === 'reproduced').length} reproduced`))
}

/** The history names every source and never draws raw µs of different runs on one axis. */
async function historyChecks(v: { page: Page; text: string }, runId: string) {
  assert.ok(v.text.includes('transcribed') && v.text.includes(runId) && v.text.includes('2026-11-30-quick-2core'), 'history: every source')
  // Raw µs of different runs are never drawn on one axis: a chart is of counts, or there is none and the page says so.
  const titles = await v.page.evaluate(() => [...document.querySelectorAll('figure.chart img')].map((i) => i.getAttribute('alt') ?? ''))
  assert.ok(
    titles.every((t) => /system calls per request/.test(t)),
    titles.join('; '),
  )
  if (titles.length === 0) assert.match(v.text, /raw µs of different runs are not drawn on one axis/)
}

/** A relative href must name an existing file (its #fragment an existing id of that page). */
function checkLinks(file: string, hrefs: string[], ids: string[]) {
  for (const href of hrefs) {
    assert.ok(!/^[a-z][a-z0-9+.-]*:|^\//i.test(href), `${file}: link ${href} is not relative`)
    const [path, frag] = href.split('#') as [string, string | undefined]
    if (path === '') {
      assert.ok(ids.includes(frag!), `${file}: #${frag} has no target`)
      continue
    }
    const target = resolve(dirname(file), decodeURIComponent(path))
    assert.ok(existsSync(target) && statSync(target).isFile(), `${file}: ${href} → ${target} is not a file`)
  }
}

test('the published site works from file:// in headless Chromium, and prints to a multi-page PDF', async () => {
  const site = join(mkdtempSync(join(tmpdir(), 'pb-site-')), 'site')
  const shots = mkdtempSync(join(tmpdir(), 'pb-site-shots-'))
  const { r, seconds } = await buildSite(site)
  const bytes = readFileSync(r.pdf!)
  assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-')
  const pages = pdfPageCount(bytes)
  assert.ok(pages > 1, `${pages} page(s)`)
  // The answer and the pictures before the appendix's page break: a quick run's main part fits 12 pages.
  assert.equal(r.pdfPages!.pages, pages)
  assert.ok(r.pdfPages!.main >= 2 && r.pdfPages!.main <= 12 && r.pdfPages!.main < pages, JSON.stringify(r.pdfPages))
  // The print leaves to the site what is there to look up (docs/report.md#the-pdf): 58 pages with it, 21 without.
  assert.ok(pages <= 22, `${pages} pages: more than the 22 of the answer, the pictures, the details in brief and the measured claims by article`)
  // Charts are vector in the PDF: no raster image at all.
  assert.equal((bytes.toString('latin1').match(/\/Subtype\s*\/Image/g) ?? []).length, 0)
  assert.deepEqual(readFileSync(join(site, 'report.pdf')), bytes, 'site/report.pdf is the latest report')
  console.log(`report (aggregate, claims, site, ${pages}-page PDF) in ${seconds.toFixed(2)} s: ${JSON.stringify(r.timings)}`)
  await withBrowser(async (browser) => {
    const baseline = join(site, 'baselines', '2026-08-23', 'index.html')
    const history = join(site, 'history.html')
    for (const file of [join(site, 'index.html'), r.page, baseline, history]) {
      const v = await visit(browser, file)
      assert.deepEqual(v.problems, [], file)
      assert.equal(v.scripts, 0, `${file}: script elements`)
      assert.equal(v.injected, 0, `${file}: injected elements`)
      checkLinks(file, [...v.links, ...v.images.map((i) => i.src)], v.ids)
      for (const img of v.images) assert.ok(img.ok, `${file}: image ${img.src} did not render`)
      const name = file === r.page ? 'run' : file === baseline ? 'baseline' : file === history ? 'history' : 'index'
      const shot = join(shots, `${name}.png`)
      await v.page.screenshot({ path: shot, fullPage: true })
      assert.ok(statSync(shot).size > 10_000)
      // Every chart has its CSV in the line right below it.
      const csvless = await v.page.evaluate(() =>
        [...document.querySelectorAll('figure.chart')]
          .filter((f) => !f.nextElementSibling?.querySelector('a[href$=".csv"]'))
          .map((f) => f.querySelector('img')?.getAttribute('src')),
      )
      assert.deepEqual(csvless, [], `${file}: charts without their CSV`)
      for (const width of [1280, 390]) {
        assert.deepEqual(await overflows(v.page, width), [], `${file} at ${width} px`)
        await v.page.screenshot({ path: join(shots, `${name}-${width}.png`) })
      }
      await v.page.setViewport({ width: 1100, height: 900 })
      if (file === r.page) {
        for (const h of HOSTILE) assert.ok(v.text.includes(h), `${file}: ${h} shown as text`)
        assert.ok(v.images.length >= 3, `${v.images.length} charts`)
        assert.ok(v.links.includes('data/measurements.csv') && v.links.includes('data/claims.csv') && v.links.includes('../../index.html'))
        siteOnlyOnScreen(v, r.claims)
        // numeric columns right-aligned, table rows zebra-striped
        const style = await v.page.evaluate(() => {
          const num = document.querySelector('td.num')!
          const rows = document.querySelectorAll('tbody tr')
          return { align: getComputedStyle(num).textAlign, odd: getComputedStyle(rows[0]!).backgroundColor, even: getComputedStyle(rows[1]!).backgroundColor }
        })
        assert.equal(style.align, 'right')
        assert.notEqual(style.odd, style.even)
        await firstScreen(v.page, r)
      } else if (file === history) {
        await historyChecks(v, runId)
      } else if (file !== baseline) {
        assert.ok(
          v.links.includes(`runs/${runId}/index.html`) &&
            v.links.includes('report.pdf') &&
            v.links.includes('baselines/2026-08-23/index.html') &&
            v.links.includes('history.html'),
        )
        // Every baseline is listed, with a page or without one; runs with their verdict counts.
        assert.ok(v.text.includes('baseline 2026-11-30-quick-2core') && /findings: \d+ \w/.test(v.text), v.text)
      }
      await v.page.close()
    }
    // Printed at A4 width no table is wider than the page (it would be cut in the PDF).
    const page = await localPage(browser)
    await page.setViewport({ width: 680, height: 1000 })
    await page.emulateMediaType('print')
    await page.goto(pathToFileURL(r.page).href, { waitUntil: 'load' })
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('table')]
        .filter((t) => t.scrollWidth > 681)
        .map((t) => `${t.querySelector('th')?.textContent} … ${t.querySelectorAll('th')[4]?.textContent}: ${t.scrollWidth}px`),
    )
    assert.deepEqual(wide, [])
    await siteOnlyInPrint(page, r.claims)
    await page.close()
    console.log(`screenshots in ${shots}`)
  })
})

test('a page cannot reach the network: the CSP and the request filter stop a remote load', async () => {
  // a hand-written page that tries; the report pages themselves never do (see above)
  const dir = mkdtempSync(join(tmpdir(), 'pb-site-net-'))
  const { htmlPage } = await import('../../lib/report/page.ts')
  const { writeFileAtomic } = await import('../../lib/core/atomic.ts')
  const file = join(dir, 'p.html')
  writeFileAtomic(file, htmlPage({ title: 't', body: '<img src="http://127.0.0.1:9/x.png" alt="x">', generated: 'g' }))
  await withBrowser(async (browser) => {
    const v = await visit(browser, file)
    assert.equal(v.images[0]!.ok, false)
    assert.ok(
      v.problems.some((p) => /Content Security Policy|request failed/.test(p)),
      v.problems.join('\n'),
    )
    await v.page.close()
  })
  assert.ok(fileURLToPath(pathToFileURL(file)) === file)
})
