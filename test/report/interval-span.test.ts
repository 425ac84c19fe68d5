import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { aggregate } from '../../lib/analysis/summary.ts'
import { documentedReuse } from '../../lib/catalog/reuse.ts'
import { evaluateClaims } from '../../lib/claims/evaluate.ts'
import { formatLedger } from '../../lib/claims/format.ts'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { MAX_SPAN } from '../../lib/core/intervals.ts'
import { loadRun } from '../../lib/data/run-data.ts'
import { formatFindings } from '../../lib/findings/format.ts'
import { buildArticle } from '../../lib/report/article.ts'
import { runFindings } from '../../lib/report/build.ts'
import { copyFixtureRun, FIXTURE_RUN } from '../fixtures/run.ts'

/** Every `[lo, hi]` printed in a text (numbers with thousands separators, exponents, units or % after them). */
function printedIntervals(text: string): { text: string; lo: number; hi: number }[] {
  const num = String.raw`-?[\d.,]*\d(?:e[-+]?\d+)?`
  const re = new RegExp(String.raw`\[(${num})[^\],\[\n]*?, (${num})[^\]\n]*\]`, 'g')
  return [...text.matchAll(re)].map((m) => ({ text: m[0], lo: Number(m[1]!.replace(/,/g, '')), hi: Number(m[2]!.replace(/,/g, '')) }))
}

/** What a reader sees of a run: the end summary's findings and ledger, and the article. */
async function printed(dir: string): Promise<{ summary: string; ledger: string; article: string }> {
  const run = loadRun(dir)
  const claims = evaluateClaims(loadLedger(), run)
  const findings = runFindings(run)
  const { markdown } = await buildArticle({ run, aggregates: await aggregate(run), findings, claims, openSeries: [], documentedReuse })
  return { summary: formatFindings(findings), ledger: formatLedger(claims), article: markdown }
}

const tooWide = (text: string) =>
  printedIntervals(text)
    .filter((iv) => iv.lo > 0 && iv.hi / iv.lo > MAX_SPAN)
    .map((iv) => iv.text)

test('the interval scanner reads what the report prints', () => {
  assert.deepEqual(
    printedIntervals('traefik 16.2 [7.57e-7, 2,284,919,196] and 1.39x [1.21, 1.62] µs, 33% [30%, 36%]').map((i) => [i.lo, i.hi]),
    [
      [7.57e-7, 2284919196],
      [1.21, 1.62],
      [30, 36],
    ],
  )
})

test(`no interval printed in the summary, the ledger or the article of the fixture run spans more than ${MAX_SPAN}×`, async () => {
  const p = await printed(FIXTURE_RUN)
  for (const [where, text] of Object.entries(p)) {
    assert.ok(printedIntervals(text).length > 0 || where === 'summary', `${where}: no interval found (the scanner would see none)`)
    assert.deepEqual(tooWide(text), [], where)
  }
})

test('a cell whose two repeats disagree prints "(repeats disagree: a vs b)", widens nothing past 100×, and decides nothing', async () => {
  const dir = copyFixtureRun()
  const csv = join(dir, 'measurements.csv')
  const lines = readFileSync(csv, 'utf8').split('\n')
  const header = lines[0]!.split(',')
  const col = (name: string) => header.indexOf(name)
  // traefik's article cell of the same-configs series: its second repeat 20× its first.
  const i = lines.findIndex((l) => {
    const f = l.split(',')
    return f[col('series')] === 'same' && f[col('proxy')] === 'traefik' && f[col('repeat')] === '2'
  })
  assert.ok(i > 0)
  const f = lines[i]!.split(',')
  const first = lines
    .find((l) => {
      const g = l.split(',')
      return g[col('series')] === 'same' && g[col('proxy')] === 'traefik' && g[col('repeat')] === '1'
    })!
    .split(',')
  f[col('proxy_cpu_us_per_req')] = String(Number(first[col('proxy_cpu_us_per_req')]) * 20)
  lines[i] = f.join(',')
  writeFileSync(csv, lines.join('\n'))
  const p = await printed(dir)
  for (const [where, text] of Object.entries(p)) assert.deepEqual(tooWide(text), [], where)
  const all = Object.values(p).join('\n')
  assert.match(all, /traefik[^\n]*\(repeats disagree: [\d.,]+ vs [\d.,]+\)/)
  // A figure on the disagreeing cell decides nothing: F1 compares traefik with the others.
  const f1 = runFindings(loadRun(dir)).find((x) => x.id === 'F1')!
  assert.equal(f1.verdict, 'inconclusive')
  assert.match(formatFindings([f1]), /traefik[^\n]*\(repeats disagree: /)
  for (const c of evaluateClaims(loadLedger(), loadRun(dir))) if (c.interval?.method === 'repeats disagree') assert.equal(c.verdict, 'inconclusive', c.id)
})
