import assert from 'node:assert/strict'
import { test } from 'node:test'
import { renderSpec, type VegaLiteSpec } from '../../lib/report/chart-render.ts'
import { barChart, changeChart, labelledLineChart, lineChart } from '../../lib/report/charts.ts'
import { HOSTILE } from '../fixtures/hostile.ts'

const BARS = [
  { category: 'haproxy', group: 'pool-added', value: 30.1, lo: 28, hi: 33 },
  { category: 'haproxy', group: 'pool-removed', value: 98.2, lo: 95, hi: 101 },
  { category: 'nginx', group: 'pool-added', value: 34.7, lo: 33, hi: 36 },
  { category: 'nginx', group: 'pool-removed', value: 99.8, lo: 97, hi: 102 },
]

test('charts: same rows give the same SVG bytes, also when renders overlap', async () => {
  const a = await barChart(BARS, { title: 'CPU', valueTitle: 'µs per request' })
  const [b, , c] = await Promise.all([
    barChart(BARS, { title: 'CPU', valueTitle: 'µs per request' }),
    lineChart([
      { x: 1, y: 2, series: 's' },
      { x: 2, y: 3, series: 's' },
    ]),
    barChart(BARS, { title: 'CPU', valueTitle: 'µs per request' }),
  ])
  assert.equal(a, b)
  assert.equal(a, c)
  assert.match(a, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]* width="640"/)
  assert.ok(a.includes('font-family="DejaVu Sans, sans-serif"'))
  assert.ok(!/href=|url\(http/.test(a))
  assert.equal(await barChart(BARS, { horizontal: true }), await barChart(BARS, { horizontal: true }))
})

test('charts: temporal axes read the same in every time zone', async () => {
  const rows = ['2026-01-01', '2026-01-03T12:00', '2026-01-05T00:00:00Z'].map((x, i) => ({ x, y: i, series: 's', label: x }))
  const old = process.env.TZ
  try {
    process.env.TZ = 'UTC'
    const utc = await labelledLineChart(rows, { xType: 'temporal' })
    process.env.TZ = 'Pacific/Kiritimati'
    const plus14 = await labelledLineChart(rows, { xType: 'temporal' })
    process.env.TZ = 'America/Los_Angeles'
    assert.equal(await labelledLineChart(rows, { xType: 'temporal' }), utc)
    assert.equal(plus14, utc)
  } finally {
    if (old === undefined) delete process.env.TZ
    else process.env.TZ = old
  }
})

test('charts: hostile labels from data come out escaped, and data is never fetched', async () => {
  const rows = [
    { category: HOSTILE[0], value: 3, group: HOSTILE[1] },
    { category: HOSTILE[1], value: 5, group: HOSTILE[0], lo: 4, hi: 6 },
  ]
  for (const svg of [
    await barChart(rows, { title: HOSTILE[0], valueTitle: HOSTILE[1] }),
    await changeChart(rows),
    await lineChart(
      [
        { x: 1, y: 1, series: HOSTILE[0] },
        { x: 2, y: 2, series: HOSTILE[1] },
      ],
      { title: HOSTILE[1] },
    ),
  ]) {
    // every tag is a plain SVG drawing element and no attribute is an event handler
    const tags = [...svg.matchAll(/<([a-zA-Z][\w:-]*)([^>]*)>/g)]
    assert.deepEqual(
      [...new Set(tags.map((t) => t[1]))].filter((n) => !['svg', 'g', 'path', 'rect', 'line', 'text', 'defs', 'clipPath', 'circle', 'title'].includes(n!)),
      [],
    )
    for (const t of tags) assert.match(t[2]!, /^(\s[\w:-]+="[^"]*")*\/?$/, 'attributes are all name="value"')
    assert.deepEqual(
      tags.flatMap((t) => [...t[2]!.matchAll(/\s([\w:-]+)="[^"]*"/g)].map((a) => a[1]!)).filter((a) => /^on|href/i.test(a)),
      [],
    )
    assert.ok(svg.includes('&lt;script&gt;'))
    assert.ok(svg.includes('&lt;img src=x onerror=alert(1)&gt;'))
  }
  const remote = { data: { url: 'https://example.com/data.json' }, mark: 'bar', encoding: { x: { field: 'a', type: 'nominal' } } } as VegaLiteSpec
  await assert.rejects(renderSpec(remote), /url|disabled/)
  const local = { data: { url: '/etc/passwd', format: { type: 'csv' } }, mark: 'bar', encoding: { x: { field: 'a', type: 'nominal' } } } as VegaLiteSpec
  await assert.rejects(renderSpec(local), /url|disabled/)
  await assert.rejects(barChart([]), /at least one row/)
})

test('labelled lines: a label per point, intervals as rules, transcribed points hollow; same rows, same bytes', async () => {
  const rows = [
    { x: '2026-08-23T00:00:00', y: 355, series: 'caddy', label: '2.9.1', hollow: true },
    { x: '2026-11-30T18:00:00', y: 338, lo: 332, hi: 344, series: 'caddy', label: '2.11.7' },
    { x: '2026-12-01T09:00:00', y: 300, lo: 290, hi: 310, series: 'nginx', label: '1.31.3' },
  ]
  const svg = await labelledLineChart(rows, { xType: 'temporal', yTitle: 'µs', title: 'over time' })
  for (const label of ['2.9.1', '2.11.7', '1.31.3']) assert.ok(svg.includes(`>${label}</text>`), label)
  // The transcribed point: a diamond drawn by its stroke alone; the legend names each line.
  assert.match(svg, /aria-label="x: Aug 23, 2026; [^"]*: 355; series: caddy"[^>]*fill="white" stroke="#[0-9A-Fa-f]{6}"/, 'the transcribed point is hollow')
  assert.ok(svg.includes('>caddy</text>') && svg.includes('>nginx</text>'), 'a legend')
  assert.equal(svg, await labelledLineChart(rows, { xType: 'temporal', yTitle: 'µs', title: 'over time' }))
})

test('labelled lines in panels: a panel per series, its x axis its own labels in the order of x', async () => {
  const rows = [
    { x: 2, y: 12, series: 'nginx', label: '1.31.3' },
    { x: 1, y: 10, series: 'nginx', label: '1.22.1' },
    { x: 1, y: 20, series: 'haproxy', label: '2.6.12', lo: 19, hi: 21 },
    { x: 2, y: 21, series: 'haproxy', label: '3.4.7' },
  ]
  const svg = await labelledLineChart(rows, { panels: true, yTitle: 'µs' })
  const labels = [...svg.matchAll(/>([0-9.]+)<\/text>/g)].map((m) => m[1]).filter((t) => t.split('.').length === 3)
  // Each version once, on its own panel's axis, oldest first; no label of another panel beside it.
  assert.deepEqual(labels, ['1.22.1', '1.31.3', '2.6.12', '3.4.7'])
  assert.ok(svg.includes('>nginx</text>') && svg.includes('>haproxy</text>'), 'a header per panel')
})

test('change dot plot: the noise band is drawn only where the comparison gives it', async () => {
  const rows = [
    { category: 'nginx pool-added', value: 12, lo: 4, hi: 20, noise: 6, group: 'changed' },
    { category: 'haproxy pool-added', value: -2, lo: -9, hi: 5, noise: 6, group: 'within noise' },
  ]
  const band = (svg: string) => (svg.match(/fill="#cfd8e3"/g) ?? []).length
  const withNoise = await changeChart(rows, { valueTitle: 'change %' })
  assert.equal(band(withNoise), 2)
  assert.ok(withNoise.includes('>within noise</text>') && withNoise.includes('>change %</text>'))
  assert.equal(band(await changeChart(rows.map(({ noise: _, lo: __, hi: ___, ...r }) => r))), 0)
})

test('bars with a side panel: both axes titled, the same categories', async () => {
  const svg = await barChart(BARS, {
    horizontal: true,
    valueTitle: 'µs / request',
    side: { rows: BARS.map((b) => ({ category: b.category, group: b.group, value: b.group === 'pool-added' ? 0 : 1000 })), valueTitle: 'conns / 1k' },
  })
  assert.ok(svg.includes('>µs / request</text>') && svg.includes('>conns / 1k</text>'))
  assert.equal(svg.match(/>haproxy<\/text>/g)?.length, 1, 'the side panel shares the category axis')
})
