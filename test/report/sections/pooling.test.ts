import assert from 'node:assert/strict'
import { test } from 'node:test'
import Papa from 'papaparse'
import { aggregate } from '../../../lib/analysis/summary.ts'
import { documentedReuse } from '../../../lib/catalog/reuse.ts'
import { median } from '../../../lib/core/stats.ts'
import { evaluateClaims } from '../../../lib/claims/evaluate.ts'
import { loadLedger } from '../../../lib/claims/ledger.ts'
import { fmt } from '../../../lib/claims/words.ts'
import { loadRun } from '../../../lib/data/run-data.ts'
import { buildArticle } from '../../../lib/report/article.ts'
import { runFindings } from '../../../lib/report/build.ts'
import { FIXTURE_RUN } from '../../fixtures/run.ts'

test('one figure, one value: the pooling table and F1 draw on the pooling series rows, not the versions series re-measurement', async () => {
  const run = loadRun(FIXTURE_RUN)
  const findings = runFindings(run)
  const { markdown, files } = buildArticle({
    run,
    aggregates: await aggregate(run),
    findings,
    claims: evaluateClaims(loadLedger(), run),
    openSeries: [],
    documentedReuse,
  })
  const csv = files.find((f) => f.path === 'data/pooling-series.csv')!
  const table = Papa.parse<Record<string, string>>(String(csv.content), { header: true, skipEmptyLines: true }).data
  const f1 = findings.find((f) => f.id === 'F1')!
  const rowsOf = (series: string, proxy: string, version: string) =>
    run.measurements
      .filter(
        (r) => r.series === series && r.proxy === proxy && r.version === version && r.variant === 'article' && r.model === 'closed' && r.status === 'valid',
      )
      .map((r) => r.proxy_cpu_us_per_req!)
  let differs = 0
  let compared = 0
  for (const row of table) {
    const valid = rowsOf('same', row.proxy!, row.version!)
    // A cell whose every window was disturbed has no median: the table leaves it empty.
    if (valid.length === 0) {
      assert.equal(row['same config µs/req'], '', `${row.proxy}: no valid same-config row, no figure`)
      continue
    }
    compared++
    const same = median(valid)
    assert.ok(
      Math.abs(Number(row['same config µs/req']) / same - 1) < 1e-3,
      `${row.proxy}: the table shows ${row['same config µs/req']}, the same series' median is ${same}`,
    )
    // F1 (its ledger claim's measured text) prints the same median, in the ledger's digits.
    assert.ok(f1.figure.includes(`${row.proxy} ${fmt(same)} (`), `${row.proxy} ${fmt(same)} in F1: ${f1.figure}`)
    const versions = rowsOf('versions', row.proxy!, row.version!)
    if (versions.length && fmt(median(versions)) !== fmt(same)) differs++
  }
  assert.ok(compared >= 2, `${compared} proxies with a valid same-config cell`)
  assert.ok(differs > 0, 'the fixture has cells the versions series measured to another median: the test means something')
  assert.match(markdown, /Drawn from the pooling series' rows \(series `same`, `pool-added`, `pool-removed`/)
})
