import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ChartRequest } from '../../../lib/report/chart-requests.ts'
import { Article } from '../../../lib/report/markdown.ts'
import { h3Section } from '../../../lib/report/sections/h3.ts'
import type { ArticleInput } from '../../../lib/report/sections/input.ts'
import { handshake, measurement } from '../../fixtures/rows.ts'

const caddy = { proxy: 'caddy', version: '2.11.7', variant: 'h3' }
const two = <T>(make: (f: { repeat: number }) => T) => [1, 2].map((repeat) => make({ repeat }))

function render(measurements: ReturnType<typeof measurement>[], handshakes: ReturnType<typeof handshake>[], manifest: object = {}) {
  const a = new Article()
  const charts: ChartRequest[] = h3Section(a, { run: { measurements, handshakes, websocket: [], tcp: [], manifest } } as unknown as ArticleInput)
  return { a, md: a.toString(), charts }
}

test('h3 section: the cost table with datagrams per request, the handshake table QUIC beside TCP+TLS, a chart each', () => {
  const { a, md, charts } = render(
    [
      ...two(({ repeat }) => measurement({ ...caddy, series: 'h3', streams: 1, repeat, proxy_cpu_us_per_req: 90 + repeat, udp_datagrams_per_req: 3.2 })),
      ...two(({ repeat }) => measurement({ ...caddy, series: 'h3-h1', repeat, proxy_cpu_us_per_req: 40 + repeat })),
    ],
    [
      ...two(({ repeat }) =>
        handshake({ ...caddy, series: 'h3-handshake', resumption: 'none', repeat, proxy_cpu_us_per_handshake: 800 + repeat, udp_datagrams_per_req: 10 }),
      ),
      ...two(({ repeat }) => handshake({ ...caddy, series: 'h3-handshake-tcp', resumption: 'none', repeat, proxy_cpu_us_per_handshake: 400 + repeat })),
      handshake({
        ...caddy,
        series: 'h3-handshake',
        resumption: '0rtt',
        proxy_cpu_us_per_handshake: 300,
        status: 'invalid',
        reason: '0-RTT offered on <9> resumed connections, the proxy accepted it on none',
      }),
    ],
  )
  assert.match(md, /## HTTP\/3/)
  assert.match(md, /\| UDP datagrams\\\/req \|/)
  assert.match(md, /### HTTP\/3 handshakes/)
  assert.match(md, /\| caddy \| 2\\\.11\\\.7 \| ec256 \| QUIC \| 801\\\.5 \\\[801\\\.0\\, 802\\\.0\\\] \| 2\\\.00 /)
  assert.match(md, /\| caddy \| 2\\\.11\\\.7 \| ec256 \| TCP\\\+TLS \| 401\\\.5 /)
  assert.ok(md.includes('the proxy accepted it on none') && !md.includes('<9>'), "an invalid row's reason is shown, escaped")
  assert.match(md, /own measurement/)
  assert.deepEqual(
    charts.map((c) => c.path),
    ['charts/h3-costs.svg', 'charts/h3-handshakes.svg'],
  )
  const groups = (c: ChartRequest) => c.rows.map((r) => `${(r as { category: string }).category} ${(r as { group?: string }).group}`)
  assert.deepEqual(groups(charts[0]!), ['caddy 2.11.7 h3', 'caddy 2.11.7 HTTP/1.1'])
  assert.deepEqual(groups(charts[1]!), ['caddy ec256 QUIC', 'caddy ec256 TCP+TLS'])
  assert.deepEqual(
    a.files.map((f) => f.path),
    ['data/h3-costs.csv', 'data/charts/h3-costs.csv', 'data/h3-handshakes.csv', 'data/charts/h3-handshakes.csv'],
  )
})

test('h3 section: the open-model table, h3 beside HTTP/1.1 at one rate', () => {
  const open = { ...caddy, model: 'open' as const, target_rps: 2100 }
  const { md, a } = render(
    [
      ...two(({ repeat }) => measurement({ ...open, series: 'h3-open', repeat, proxy_cpu_us_per_req: 300 + repeat })),
      ...two(({ repeat }) => measurement({ ...open, series: 'h3-open-h1', repeat, proxy_cpu_us_per_req: 100 + repeat })),
    ],
    [],
  )
  assert.match(md, /### HTTP\/3 in the open model/)
  assert.match(md, /\| caddy \| 2\\\.11\\\.7 \| 2100 \| 301\\\.5 /)
  assert.ok(a.files.some((f) => f.path === 'data/h3-open.csv'))
})

test('h3 section: handshake rows alone still make the section; no h3 rows at all leave it out', () => {
  const alone = render(
    [],
    two(({ repeat }) => handshake({ ...caddy, series: 'h3-handshake-tcp', resumption: 'none', repeat })),
  )
  assert.match(alone.md, /### HTTP\/3 handshakes/)
  const none = render([measurement({ series: 'h2', variant: 'h2', streams: 1 })], [handshake()])
  assert.doesNotMatch(none.md, /HTTP\/3/)
})

test('h3 section: on one machine QUIC goes over loopback UDP, across --hosts between the hosts', () => {
  const rows = two(({ repeat }) => measurement({ ...caddy, series: 'h3', streams: 1, repeat }))
  assert.match(render(rows, []).md, /on the same port over loopback UDP;/)
  const across = render(rows, [], { hosts: { source: '--hosts', roles: [], hosts: [], network: null } }).md
  assert.match(across, /on the same port over UDP between the hosts \(the generator's to the proxy's\);/)
  assert.doesNotMatch(across, /loopback/)
})
