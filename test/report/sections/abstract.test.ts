import assert from 'node:assert/strict'
import { test } from 'node:test'
import Papa from 'papaparse'
import { aggregate } from '../../../lib/analysis/summary.ts'
import { documentedReuse } from '../../../lib/catalog/reuse.ts'
import { evaluateClaims } from '../../../lib/claims/evaluate.ts'
import { loadLedger } from '../../../lib/claims/ledger.ts'
import { loadRun } from '../../../lib/data/run-data.ts'
import { buildArticle } from '../../../lib/report/article.ts'
import { runFindings } from '../../../lib/report/build.ts'
import { Article } from '../../../lib/report/markdown.ts'
import { abstractSentences, claimsByArticle } from '../../../lib/report/sections/abstract.ts'
import { claimResult } from '../../fixtures/ledger.ts'
import { FIXTURE_RUN } from '../../fixtures/run.ts'

const csvOf = (files: { path: string; content: unknown }[], path: string) =>
  Papa.parse<Record<string, string>>(String(files.find((f) => f.path === path)!.content), { header: true, skipEmptyLines: true }).data

test('the abstract of the fixture run: a title that answers, costs in words, and one number per cell in the answer table and the pooling table', async () => {
  const run = loadRun(FIXTURE_RUN)
  const claims = evaluateClaims(loadLedger(), run)
  const { markdown, files } = buildArticle({ run, aggregates: await aggregate(run), findings: runFindings(run), claims, openSeries: [], documentedReuse })
  const answer = csvOf(files, 'data/answer.csv')
  const pooling = csvOf(files, 'data/pooling-series.csv')
  const measured = answer.filter((r) => r['as configured µs/req [50%]'] !== '—')
  assert.ok(measured.length >= 2, 'the fixture has at least two proxies measured as configured')
  // The title names the cheapest and the dearest as the table ranks them.
  const first = measured[0]!.proxy!.split(' ')[0]!
  const last = measured.at(-1)!.proxy!.split(' ')[0]!
  assert.match(markdown.split('\n')[0]!, new RegExp(`^# ${first} costs least\\\\, ${last} most\\\\: `))
  // One cell, one number: the answer table's median is the pooling table's, for every proxy.
  for (const row of answer) {
    const [proxy, version] = row.proxy!.split(' ')
    const same = pooling.find((p) => p.proxy === proxy && p.version === version)!
    const median = row['as configured µs/req [50%]']!.split(' ')[0]!
    assert.equal(
      median === '—' ? '' : Number(median),
      same['same config µs/req'] === '' ? '' : Number(Number(same['same config µs/req']).toPrecision(3)),
      `${proxy} as configured`,
    )
  }
  const [costs, tally, , precision] = abstractSentences({ aggregates: await aggregate(run), claims })
  assert.match(
    costs!,
    /^As configured, the \d proxies with a figure \(of 5\) cost [\d.]+–[\d.]+ µs of CPU per request, \w+ least and \w+ most; with a backend pool added/,
  )
  assert.match(tally!, new RegExp(`^Of ${claims.length} published claims, ${claims.filter((c) => c.verdict === 'reproduced').length} reproduced here`))
  assert.match(precision!, /^Each figure is the median of 2 repeats; its interval covers 50% \(95% needs 6 repeats\)/)
  // The abstract comes before the verdict codes.
  assert.ok(markdown.indexOf('[[class:abstract]]') < markdown.indexOf('[[class:verdicts]]'))
})

test('a claim that did not reproduce: the primary article first, one of a single figure before one of several', () => {
  const claims = [
    claimResult('other-one', 'not reproduced', {
      source: '004_x.txt',
      claim: 'Four said',
      value: 2,
      interval: { lo: 1.9, hi: 2.1, method: 'order statistics' },
    }),
    claimResult('primary-many', 'not reproduced', { source: '000_x.txt', claim: 'Many checks', measured: 'a: 1; b: 2' }),
    claimResult('primary-one', 'not reproduced', { source: '000_x.txt', claim: 'One pit', value: 1.9, measured: 'spread 1.9 [1.7, 2.1]; wanted ≤ 0.2' }),
  ]
  const s = abstractSentences({ aggregates: { cells: { measurements: [] } } as never, claims })
  assert.deepEqual(s, [
    'Of 3 published claims, 0 reproduced here and 3 did not.',
    'Not reproduced, from article 000: "One pit"; here spread 1\\.9 \\[1\\.7\\, 2\\.1\\].',
  ])
})

test('claims by article: each decided claim by its words with its mark, reproduced first; the rest counted', () => {
  const a = new Article()
  claimsByArticle(a, [
    claimResult('x', 'not reproduced', { source: '000_a.txt', claim: 'Not this' }),
    claimResult('y', 'reproduced', { source: '000_a.txt', claim: 'This' }),
    claimResult('z', 'inconclusive', { source: '000_a.txt', claim: 'Maybe' }),
    claimResult('w', 'not measured', { source: '003_b.txt', claim: 'Unknown' }),
  ])
  assert.equal(
    a.toString().trim(),
    [
      '**article 000**: 3 claims, 1 reproduced, 1 not, 1 undecided or not measured ([ledger](#claims-ledger)).',
      '',
      '- ✓ reproduced: This',
      '- ✗ not reproduced: Not this',
      '',
      '**article 003**: 1 claims, 0 reproduced, 0 not, 1 undecided or not measured ([ledger](#claims-ledger)).',
    ].join('\n'),
  )
})
