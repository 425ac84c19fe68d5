import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Browser, Page } from 'puppeteer'
import { memoryLogger } from '../../lib/core/log.ts'
import { repoRoot } from '../../lib/core/paths.ts'
import { buildReport } from '../../lib/report/build.ts'
import { localPage, pdfPageCount, withBrowser } from '../../lib/report/pdf.ts'

const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>'] as const
const fixture = join(repoRoot, 'test/fixtures/run-quick')
/** The fixture run's id: the site publishes it under runs/<id>/. */
const runId = String(JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')).run_id)

/**
 * The real report pipeline on the committed fixture run (a real quick run's CSVs), with two
 * rows' version strings replaced by hostile ones, compared with the published baseline.
 */
async function buildSite(site: string) {
  const dir = mkdtempSync(join(tmpdir(), 'pb-site-run-'))
  for (const f of readdirSync(fixture)) writeFileSync(join(dir, f), readFileSync(join(fixture, f)))
  const csv = join(dir, 'websocket.csv')
  const lines = readFileSync(csv, 'utf8').split('\n')
  lines[1] = lines[1]!.replace(/^([^,]*,[^,]*,[^,]*),[^,]*,/, `$1,"${HOSTILE[0]}",`)
  lines[2] = lines[2]!.replace(/^([^,]*,[^,]*,[^,]*),[^,]*,/, `$1,"${HOSTILE[1].replace(/"/g, '""')}",`)
  writeFileSync(csv, lines.join('\n'))
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
        // numeric columns right-aligned, table rows zebra-striped
        const style = await v.page.evaluate(() => {
          const num = document.querySelector('td.num')!
          const rows = document.querySelectorAll('tbody tr')
          return { align: getComputedStyle(num).textAlign, odd: getComputedStyle(rows[0]!).backgroundColor, even: getComputedStyle(rows[1]!).backgroundColor }
        })
        assert.equal(style.align, 'right')
        assert.notEqual(style.odd, style.even)
        // The first screen at 1280x800 holds the summary and the whole verdict table; the first chart starts on it.
        await v.page.setViewport({ width: 1280, height: 800 })
        const first = await v.page.evaluate(() => ({
          summary: document.querySelector('p.answer')?.getBoundingClientRect().bottom ?? Infinity,
          table: document.querySelector('table.verdicts')?.getBoundingClientRect().bottom ?? Infinity,
          badges: document.querySelectorAll('table.verdicts .badge').length,
          chart: document.querySelector('figure.chart')?.getBoundingClientRect().top ?? Infinity,
          history: [...document.querySelectorAll('a')].some((a) => a.getAttribute('href') === '../../history.html'),
        }))
        console.log(`run page at 1280x800: summary ends at ${first.summary} px, verdict table at ${first.table} px, first chart starts at ${first.chart} px`)
        assert.ok(
          first.summary < first.table && first.table <= 800 && first.chart <= 800 && first.badges >= r.findings.length && first.history,
          JSON.stringify(first),
        )
      } else if (file === history) {
        assert.ok(
          v.images.length >= 3 && v.text.includes('transcribed') && v.text.includes(runId) && v.text.includes('2026-11-30-quick-2core'),
          `${file}: every source`,
        )
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
