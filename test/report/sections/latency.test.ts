import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LATENCY_FORMAT, type LatencySpectrum, type LatencySpectrumEntry } from '../../../lib/data/latency.ts'
import { parseRawName } from '../../../lib/data/raw-files.ts'
import { renderChart } from '../../../lib/report/chart-requests.ts'
import { Article } from '../../../lib/report/markdown.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { chooseSpectra, latencySection, rowStatus, valueAtPercentile } from '../../../lib/report/sections/latency.ts'

/** A spectrum whose p99 is `p99Us`, in HdrHistogram's rows up to 100%. */
function spectrum(p99Us: number, from: LatencySpectrum['measured_from'] = 'sent'): LatencySpectrum {
  const levels = [0, 50, 90, 99, 99.9, 99.99, 99.999, 100]
  const points = levels.map((p, i) => ({ percentile: p, value_us: p < 99 ? 100 + i * 10 : p === 99 ? p99Us : p99Us * (i - 2), count: Math.round(p * 1000) }))
  return {
    format: LATENCY_FORMAT,
    generator: from === 'sent' ? 'wrk' : 'loadgen open',
    measured_from: from,
    exact: true,
    total_count: 100000,
    max_us: points.at(-1)!.value_us,
    points,
    hdr: null,
  }
}

const entry = (file: string, s: LatencySpectrum): LatencySpectrumEntry => ({ cell: parseRawName(file)!, spectrum: s })

const ENTRIES = [
  entry('pooling-haproxy-2.6.12-article-ec256-c200-r1.latency.json', spectrum(900)),
  entry('pooling-haproxy-2.6.12-article-ec256-c200-r2.latency.json', spectrum(3000)),
  entry('pooling-haproxy-2.6.12-article-ec256-c200-r3.latency.json', spectrum(1500)),
  entry('pooling-haproxy-2.6.12-pool-added-ec256-c200-r1.latency.json', spectrum(700)),
  entry('pooling-open-haproxy-2.6.12-article-ec256-c200-900rps-r1.latency.json', spectrum(4000, 'scheduled')),
  entry('pooling-nginx-1.22.1-article-ec256-c200-r1.latency.json', spectrum(800)),
  entry('direct-direct-x-direct-ec256-c200-r1.latency.json', spectrum(100)),
  entry('direct-direct-x-direct-ec256-c200-r2.latency.json', spectrum(100)),
  entry('direct-direct-x-direct-ec256-c200-r3.latency.json', spectrum(100)),
  entry('direct-direct-x-direct-ec256-c200-r4.latency.json', spectrum(100)),
]

test('one proxy (the most spectra, never the direct floor); per cell the repeat with the median p99', () => {
  const chosen = chooseSpectra(ENTRIES)!
  assert.equal(chosen.proxy, 'haproxy')
  assert.deepEqual(
    chosen.shown.map((s) => [s.series, s.label, s.entry.cell.repeat, s.repeats]),
    [
      ['pooling', 'article ec256 c200', 3, 3],
      ['pooling', 'pool-added ec256 c200', 1, 1],
      ['pooling-open', 'article ec256 900 rps', 1, 1],
    ],
  )
  assert.equal(chooseSpectra(ENTRIES.filter((e) => e.cell.proxy === 'direct')), null)
})

const row = (series: string, variant: string, repeat: number, status: string, reason = '', model = 'closed', target_rps: number | null = null) => ({
  series,
  proxy: 'haproxy',
  version: '2.6.12',
  variant,
  key_type: 'ec256',
  connections: 200,
  repeat,
  model,
  target_rps,
  status,
  reason,
})
const TABLES = {
  measurements: [
    row('pooling', 'article', 1, 'valid'),
    row('pooling', 'article', 2, 'invalid', 'disturbed: foreign CPU 40%'),
    row('pooling', 'article', 3, 'valid'),
    row('pooling-open', 'article', 1, 'invalid', 'dropped 12% >= 1%', 'open', 900),
  ],
} as unknown as Parameters<typeof rowStatus>[0]

test('the median p99 among valid repeats; a cell without a valid one shows its status', () => {
  const chosen = chooseSpectra(ENTRIES, (e) => rowStatus(TABLES, e))!
  assert.deepEqual(
    chosen.shown.map((s) => [s.label, s.entry.cell.repeat, s.status]),
    [
      ['article ec256 c200', 1, 'valid'],
      ['pool-added ec256 c200', 1, null],
      ['article ec256 900 rps', 1, 'invalid: dropped 12% >= 1%'],
    ],
  )
  // Open rows match by their rate, closed rows by their model.
  assert.equal(rowStatus(TABLES, entry('pooling-open-haproxy-2.6.12-article-ec256-c200-700rps-r1.latency.json', spectrum(1))), undefined)
})

test('values are read off the cumulative rows', () => {
  const s = spectrum(1500)
  assert.equal(valueAtPercentile(s, 99), 1.5)
  assert.equal(valueAtPercentile(s, 99.95), 1.5 * 3)
  assert.equal(valueAtPercentile({ ...s, points: [] }, 50), null)
})

const input = (latency?: LatencySpectrumEntry[]) => ({ latency }) as unknown as ArticleInput

test('a chart per series and a table; without spectra a note, no chart', async () => {
  const a = new Article()
  const charts = latencySection(a, input(ENTRIES))
  assert.deepEqual(
    charts.map((c) => c.path),
    ['charts/latency-pooling.svg', 'charts/latency-pooling-open.svg'],
  )
  const md = a.toString()
  assert.match(md, /scheduled send time/)
  const csv = a.files.find((f) => f.path === 'data/latency-spectrum.csv')!.content
  assert.match(csv, /^pooling-open,article ec256 900 rps,1 of 1,loadgen open,scheduled send,100000,0\.11,4,8,12,20,$/m)
  // The chart: percentile labels up to 99.999% on a log axis, self-contained SVG.
  const svg = await renderChart(charts[0]!)
  for (const label of ['50%', '99%', '99.9%', '99.99%', '99.999%']) assert.ok(svg.includes(`>${label}</text>`), label)
  assert.ok(svg.includes('article ec256 c200'))

  for (const none of [undefined, []]) {
    const b = new Article()
    assert.deepEqual(latencySection(b, input(none)), [])
    assert.doesNotMatch(b.toString(), /## Latency/)
    assert.deepEqual(
      b.notRun.map((n) => n.title),
      ['Latency spectrum'],
    )
  }
})

// h2 cells of three stream counts, resumption offers and /json sizes are cells of their own (issue 29 item 7).
test('cells that differ only in streams, resumption offer or body size are separate lines, each with its own row', () => {
  const hs = (p99: number) => ({ ...spectrum(p99, 'scheduled'), generator: 'loadgen handshake' as const })
  const entries = [
    entry('h2-haproxy-2.6.12-h2-ec256-c200-m1-r1.latency.json', spectrum(500)),
    entry('h2-haproxy-2.6.12-h2-ec256-c200-m10-r1.latency.json', spectrum(900)),
    entry('h2-haproxy-2.6.12-h2-ec256-c200-m100-r1.latency.json', spectrum(1900)),
    entry('resumption-haproxy-2.6.12-pool-added-ec256-c4-resume-none-r1.latency.json', hs(700)),
    entry('resumption-haproxy-2.6.12-pool-added-ec256-c4-resume-tickets-r1.latency.json', hs(300)),
    entry('scenarios-haproxy-2.6.12-pool-added-ec256-c200-r1.latency.json', spectrum(400)),
    entry('scenarios-haproxy-2.6.12-pool-added-ec256-c200-json10240-r1.latency.json', spectrum(800)),
  ]
  const m = (streams: number | null, status: string) => ({ ...row('h2', 'h2', 1, status), streams, body_bytes: null })
  const h = (resumption: string, status: string) => ({ ...row('resumption', 'pool-added', 1, status), connections: 4, resumption })
  const tables = {
    measurements: [
      m(1, 'valid'),
      m(10, 'invalid'),
      m(100, 'failed'),
      { ...row('scenarios', 'pool-added', 1, 'valid'), body_bytes: null },
      { ...row('scenarios', 'pool-added', 1, 'invalid'), body_bytes: 10240 },
    ],
    handshakes: [h('none', 'valid'), h('tickets', 'invalid')],
  } as unknown as Parameters<typeof rowStatus>[0]
  const chosen = chooseSpectra(entries, (e) => rowStatus(tables, e))!
  assert.deepEqual(
    chosen.shown.map((s) => [s.series, s.label, s.status?.split(':')[0]]),
    [
      ['h2', 'h2 ec256 c200 m1', 'valid'],
      ['h2', 'h2 ec256 c200 m10', 'invalid'],
      ['h2', 'h2 ec256 c200 m100', 'failed'],
      ['resumption', 'pool-added ec256 c4 resume none', 'valid'],
      ['resumption', 'pool-added ec256 c4 resume tickets', 'invalid'],
      ['scenarios', 'pool-added ec256 c200', 'valid'],
      ['scenarios', 'pool-added ec256 c200 /json 10240 B', 'invalid'],
    ],
  )
})
