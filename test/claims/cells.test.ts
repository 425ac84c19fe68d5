import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cellStatus, metricValue, statusTie } from '../../lib/claims/cells.ts'
import { evalCheck } from '../fixtures/ledger.ts'
import { handshake as h, measurement as m, two } from '../fixtures/rows.ts'
import { tcpRow } from '../fixtures/tcp-rows.ts'

test('cell status: the most common status of the rows, a tie shown as the worse one and reported as a tie', () => {
  type S = 'valid' | 'invalid' | 'failed'
  const s = (...xs: S[]) => cellStatus(xs.map((status) => ({ status })))
  const tie = (...xs: S[]) => statusTie(xs.map((status) => ({ status })))
  assert.equal(s('valid', 'valid', 'invalid'), 'valid')
  assert.equal(tie('valid', 'valid', 'invalid'), null)
  assert.equal(s('valid', 'invalid'), 'invalid')
  assert.deepEqual(tie('valid', 'invalid'), ['invalid', 'valid'])
  assert.equal(s('invalid', 'failed'), 'failed')
  assert.deepEqual(tie('invalid', 'failed'), ['failed', 'invalid'])
  assert.equal(s('valid', 'failed', 'invalid'), 'failed')
  assert.deepEqual(tie('valid', 'failed', 'invalid'), ['failed', 'invalid', 'valid'])
  assert.equal(s('failed', 'failed', 'valid', 'valid', 'valid'), 'valid')
  assert.equal(tie('failed', 'failed', 'valid', 'valid', 'valid'), null)
  assert.deepEqual(tie('failed', 'failed', 'valid', 'valid', 'invalid'), ['failed', 'valid'])
  assert.equal(tie('valid'), null)
  assert.equal(tie(), null)
})

test('a cell value is the median over valid rows (all rows with rows: all); excluded rows are a warning', () => {
  // nginx: 2 valid repeats near 200, 10 invalid near 100; haproxy: 12 repeats near 100, its rounds 1-2 moving as nginx's.
  const rows = [
    m({ proxy: 'nginx', repeat: 1, rps: 198 }),
    m({ proxy: 'nginx', repeat: 2, rps: 202 }),
    ...Array.from({ length: 10 }, (_, i) => m({ proxy: 'nginx', repeat: i + 3, rps: 99 + (i % 3), status: 'invalid' })),
    ...Array.from({ length: 12 }, (_, i) => m({ proxy: 'haproxy', repeat: i + 1, rps: [99, 101, 100][i % 3]! })),
  ]
  const check = { kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { proxy: 'haproxy' }, min: 1.9, max: 2.1 }
  const valid = evalCheck(check, { measurements: rows })
  assert.equal(valid.verdict, 'reproduced')
  assert.match(valid.measured, /^r = 2 \[1\.9\d*, 2\.0\d*\] \(nginx article 200 \/ haproxy article 100 rps\); wanted 1\.9\.\.2\.1$/)
  assert.deepEqual(valid.warnings, ['nginx 1.31.3 article: invalid rows excluded: 10'])
  assert.equal(valid.interval!.method, 'bootstrap', "the valid repeats 1-2 and haproxy's 1-12 are not the same rounds")
  const nginx = valid.evidence.find((e) => e.cell.proxy === 'nginx')!
  assert.deepEqual(nginx, {
    table: 'measurements',
    cell: {
      series: 'same',
      proxy: 'nginx',
      version: '1.31.3',
      variant: 'article',
      key_type: 'ec256',
      model: 'closed',
      connections: 200,
      target_rps: null,
      path: '/',
      body_bytes: null,
      streams: null,
    },
    value: 200,
    n: 2,
    status: 'invalid',
  })
  const all = evalCheck({ ...check, rows: 'all' }, { measurements: rows })
  assert.equal(all.verdict, 'not reproduced')
  // nginx's rows now mix two regimes (200 and 100): an unstable cell, widened by its own spread.
  assert.equal(all.interval!.method, 'paired bootstrap, widened by unstable cell')
  assert.ok(all.interval!.hi < 1.9, `${all.measured}`)
  assert.match(all.measured, /^r = 1 \[[\d.]+, [\d.]+\] \(nginx article 100 /)
})

test('a single repeat shows no noise: its figure is marked, warned about, and never decided', () => {
  const rows = [...two(m, { proxy: 'nginx' }, 'rps', 200), m({ proxy: 'haproxy', rps: 100 })]
  const check = { kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { proxy: 'haproxy' } }
  const far = evalCheck({ ...check, min: 10 }, { measurements: rows })
  assert.equal(far.verdict, 'inconclusive', 'r = 2 is far below 10, but one repeat cannot refute')
  assert.match(far.measured, /^r = 2 \[1 repeat\] \(nginx article 200 \/ haproxy article 100 rps\); wanted >= 10$/)
  assert.deepEqual(far.warnings, ['haproxy 2.8.25 article: 1 repeat'])
  assert.deepEqual(far.interval, { lo: 2, hi: 2, method: 'single repeat' })
  assert.equal(evalCheck({ ...check, min: 1 }, { measurements: rows }).verdict, 'inconclusive')
  // The same cells with a second haproxy repeat decide both ways.
  const more = [...rows, m({ proxy: 'haproxy', repeat: 2, rps: 100 })]
  assert.equal(evalCheck({ ...check, min: 10 }, { measurements: more }).verdict, 'not reproduced')
  assert.equal(evalCheck({ ...check, min: 1 }, { measurements: more }).verdict, 'reproduced')
})

test('the derived metric errors_pct = 100 * errors / (requests + errors)', () => {
  const rows = [
    [670, 330],
    [680, 320],
    [660, 340],
  ].map(([requests, errors], i) => m({ proxy: 'traefik', repeat: i + 1, requests, errors, status: 'invalid' }))
  const r = evalCheck(
    { kind: 'threshold', metric: 'errors_pct', rows: 'all', select: { series: 'same', proxy: 'traefik' }, op: '>=', value: 1 },
    { measurements: rows },
  )
  assert.equal(r.verdict, 'reproduced')
  assert.equal(r.evidence[0]!.value, 33)
  assert.match(r.measured, /traefik article: 33% \[32%, 34%\] errors of requests sent; wanted >= 1/)
})

// ------------------------------------------------------------------ selectors

test('selectors: scalar and list equality; series keeps cells of different series apart, a list of series pools them', () => {
  const rows = [
    ...two(m, { proxy: 'nginx', variant: 'pool-added', series: 'pool-added' }, 'rps', 300),
    ...two(m, { proxy: 'nginx', variant: 'pool-added', series: 'tls-ceiling' }, 'rps', 500),
    ...two(m, { proxy: 'nginx', variant: 'article' }, 'rps', 100),
    ...two(m, { proxy: 'haproxy', variant: 'article' }, 'rps', 300),
    // The versions series repeats the article config on every catalog version, the newest too.
    ...two(m, { proxy: 'nginx', variant: 'article', series: 'versions' }, 'rps', 900),
    ...two(m, { proxy: 'nginx', variant: 'article', series: 'versions', version: '1.22.1' }, 'rps', 700),
  ]
  const ratio = (a: object, b: object) =>
    evalCheck(
      {
        kind: 'ratio',
        metric: 'rps',
        a: { proxy: 'nginx', variant: 'pool-added', ...a },
        b: { proxy: ['nginx', 'haproxy'], variant: 'article', series: 'same', ...b },
        min: 2,
      },
      { measurements: rows },
    )
  const r = ratio({ series: 'pool-added' }, {})
  // a: only the pool-added series' cell (300), not tls-ceiling's; b: same series only, median of nginx 100 and haproxy 300 = 200.
  assert.equal(r.verdict, 'not reproduced')
  assert.match(r.measured, /^r = 1\.5 \[[\d.]+, [\d.]+\] \(nginx pool-added 300 \/ nginx\+haproxy article \(median of 2 cells\) 200 rps\)/)
  assert.deepEqual(
    r.evidence.map((e) => `${e.cell.series} ${e.cell.proxy}`),
    ['pool-added nginx', 'same nginx', 'same haproxy'],
  )
  // The other series alone: tls-ceiling's cell, named in the label as its variant does not tell it.
  const ceiling = ratio({ series: 'tls-ceiling' }, {})
  assert.match(ceiling.measured, /^r = 2\.5 \[[\d.]+, [\d.]+\] \(nginx pool-added tls-ceiling 500 \//)
  assert.equal(ceiling.verdict, 'reproduced')
  // A list of series pools them on purpose (median of 300 and 500).
  assert.match(
    ratio({ series: ['pool-added', 'tls-ceiling'] }, {}).measured,
    /^r = 2 \[[\d.]+, [\d.]+\] \(nginx pool-added pool-added\+tls-ceiling \(median of 2 cells\) 400 \//,
  )
  // versions: "newest" is per series, so b of the versions series is its own newest nginx (900), not same's.
  const versions = ratio({ series: 'pool-added' }, { proxy: 'nginx', series: 'versions' })
  assert.match(versions.measured, /^r = 0\.333 \[[\d.]+, [\d.]+\] \(nginx pool-added 300 \/ nginx article versions 900 rps\)/)
  assert.equal(versions.evidence.length, 2)
})

test('selectors: version comparisons, exact versions (v prefix ignored), "newest" by default, agg min / max / newest', () => {
  const rows = [
    ...two(m, { proxy: 'nginx', version: '1.22.1', variant: 'literal' }, 'rps', 600),
    ...two(m, { proxy: 'nginx', version: '1.27.4', variant: 'literal' }, 'rps', 500),
    ...two(m, { proxy: 'nginx', version: '1.29.7', variant: 'literal' }, 'rps', 200),
    ...two(m, { proxy: 'nginx', version: '1.31.3', variant: 'literal' }, 'rps', 250),
    ...two(m, { proxy: 'nginx', version: '1.22.1', variant: 'upstream-default' }, 'rps', 700),
  ]
  const ratio = (a: object, b: object) =>
    evalCheck(
      {
        kind: 'ratio',
        metric: 'rps',
        select: { series: 'same' },
        a: { proxy: 'nginx', variant: 'literal', ...a },
        b: { proxy: 'nginx', variant: 'literal', ...b },
        min: 0,
      },
      { measurements: rows },
    )
  assert.match(
    ratio({ version: '<1.29.7', agg: 'min' }, { version: '>=1.29.7', agg: 'max' }).measured,
    /^r = 2 \[[\d.]+, [\d.]+\] \(nginx 1\.22\.1\+1\.27\.4 literal \(min of 2 cells\) 500 \/ nginx 1\.29\.7\+1\.31\.3 literal \(max of 2 cells\) 250 rps\)/,
  )
  assert.match(ratio({ version: '<1.29.7', agg: 'max' }, {}).measured, /^r = 2\.4 \[[\d.]+, [\d.]+\] \(.* 600 \/ nginx literal 250 rps\)/, 'left out = newest')
  assert.match(
    ratio({ version: 'v1.27.4' }, { version: 'newest' }).measured,
    /^r = 2 \[[\d.]+, [\d.]+\] \(nginx 1\.27\.4 literal 500 \/ nginx 1\.31\.3 literal 250/,
  )
  assert.match(ratio({ version: '<=1.29.7', agg: 'newest' }, { version: '1.29.7' }).measured, /^r = 1 \[[\d.]+, [\d.]+\] \(/)
  assert.match(
    ratio({ version: '<1.29.7' }, { version: '>1.29.7' }).measured,
    /^r = 2\.2 \[[\d.]+, [\d.]+\] \(nginx 1\.22\.1\+1\.27\.4 literal \(median of 2 cells\) 550 \/ nginx 1\.31\.3 literal 250/,
  )
  // newest is per selector: upstream-default exists only on 1.22.1, which is then its newest.
  const up = evalCheck(
    { kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx', variant: 'upstream-default' }, op: '>=', value: 650 },
    { measurements: rows },
  )
  assert.equal(up.verdict, 'reproduced')
  assert.equal(up.value, 700)
  assert.equal(ratio({ version: '1.25.0' }, {}).verdict, 'not measured')
})

test('selectors: a value may be a map keyed by proxy; a proxy absent from the map does not match', () => {
  const rows = [
    ...two(m, { proxy: 'haproxy', variant: 'server-close' }, 'rps', 100),
    ...two(m, { proxy: 'haproxy', variant: 'article' }, 'rps', 900),
    ...two(m, { proxy: 'nginx', variant: 'upstream-default' }, 'rps', 200),
    ...two(m, { proxy: 'nginx', variant: 'article' }, 'rps', 50),
    ...two(m, { proxy: 'traefik', variant: 'article' }, 'rps', 300),
    ...two(m, { proxy: 'caddy', variant: 'article' }, 'rps', 1000),
  ]
  const r = evalCheck(
    {
      kind: 'rank',
      metric: 'rps',
      by: 'desc',
      select: { series: 'same', variant: { traefik: 'article', nginx: 'upstream-default', haproxy: 'server-close' } },
      positions: { traefik: [1], nginx: [2], haproxy: [-1] },
    },
    { measurements: rows },
  )
  assert.equal(r.verdict, 'reproduced')
  assert.match(
    r.measured,
    /^by rps desc: traefik 300 \[[\d.]+, [\d.]+\] > nginx 200 \[[\d.]+, [\d.]+\] > haproxy 100 \[[\d.]+, [\d.]+\]; wanted traefik 1st, nginx 2nd, haproxy last$/,
  )
  // Per-proxy versions: each proxy's own.
  const v = evalCheck(
    {
      kind: 'threshold',
      metric: 'rps',
      select: { series: 'same', proxy: 'haproxy', variant: 'article', version: { haproxy: '2.8.25', nginx: '9.9.9' } },
      op: '>',
      value: 800,
    },
    { measurements: rows },
  )
  assert.equal(v.verdict, 'reproduced')
  assert.equal(v.value, 900)
})

test('selectors: pick lowest-failing-target and a metric override per side', () => {
  const open = (target: number, status: 'valid' | 'invalid', share: number) =>
    two(m, {
      proxy: 'haproxy',
      series: 'tls-calibration',
      variant: 'pool-added',
      model: 'open',
      connections: 1000,
      target_rps: target,
      status,
      proxy_cpu_share: share,
    })
  const rows = [
    ...open(1000, 'valid', 0.1),
    ...open(2000, 'valid', 0.2),
    ...open(4000, 'invalid', 0.45),
    ...open(8000, 'invalid', 0.9),
    ...two(m, { proxy: 'haproxy', series: 'tls-ceiling', variant: 'pool-added' }, 'rps', 10000),
  ]
  const r = evalCheck(
    {
      kind: 'ratio',
      rows: 'all',
      a: { series: 'tls-ceiling', proxy: 'haproxy', model: 'closed', metric: 'rps' },
      b: { series: 'tls-calibration', proxy: 'haproxy', model: 'open', pick: 'lowest-failing-target', metric: 'target_rps' },
      min: 2,
    },
    { measurements: rows },
  )
  assert.equal(r.verdict, 'reproduced')
  assert.match(
    r.measured,
    // Two rounds whose ratios differ (2.48, 2.52): a Student t of 1 degree of freedom on them (lib/claims/rounds.ts).
    /^r = 2\.5 \[2\.2, 2\.84\] \(haproxy pool-added tls-ceiling 10,000 \/ haproxy pool-added tls-calibration open@4000 4,000 rps\); by round: 2 rounds; wanted >= 2$/,
  )
  const idle = evalCheck(
    {
      kind: 'threshold',
      metric: 'proxy_cpu_share',
      rows: 'all',
      select: { series: 'tls-calibration', proxy: 'haproxy', model: 'open', pick: 'lowest-failing-target' },
      op: '<=',
      value: 0.625,
    },
    { measurements: rows },
  )
  assert.equal(idle.verdict, 'reproduced')
  assert.equal(idle.evidence[0]!.cell.target_rps, 4000)
  // Nothing failed: the lowest failing target was not measured.
  const none = evalCheck(
    {
      kind: 'threshold',
      metric: 'proxy_cpu_share',
      rows: 'all',
      select: { series: 'tls-calibration', proxy: 'haproxy', model: 'open', pick: 'lowest-failing-target' },
      op: '<=',
      value: 1,
    },
    { measurements: rows.filter((x) => x.status === 'valid') },
  )
  assert.equal(none.verdict, 'not measured')
  assert.match(none.measured, /no failing target among the 2 cells/)
})

test('resumed_pct = 100 * resumed / handshakes of a handshakes row; none without handshakes', () => {
  assert.equal(metricValue(h({ handshakes: 1000, resumed: 250 }), 'resumed_pct'), 25)
  assert.equal(metricValue(h({ handshakes: 0, resumed: 0 }), 'resumed_pct'), null)
  // A measurements row has no handshakes: no value, never 0.
  assert.equal(metricValue(m({}), 'resumed_pct'), null)
})

test("selectors over the new cell columns: path and body_bytes (measurements), resumption (handshakes), tcp's series and mode", () => {
  const json = (body_bytes: number, rps: number) => two(m, { series: 'scenarios', variant: 'pool-added', path: '/json', body_bytes }, 'rps', rps)
  const rows = [...two(m, { series: 'scenarios', variant: 'pool-added' }, 'rps', 9000), ...json(1024, 5000), ...json(10240, 2000)]
  const sel = (f: object) =>
    evalCheck({ kind: 'threshold', metric: 'rps', select: { series: 'scenarios', proxy: 'haproxy', ...f }, op: '>', value: 0 }, { measurements: rows }).measured
  assert.match(sel({ path: '/json', body_bytes: 10240 }), /haproxy pool-added scenarios \/json 10240 B: 2,000 \[1,980, 2,020\] rps/)
  assert.match(sel({ path: '/' }), /scenarios: 9,000 \[/)
  const hs = [...two(h, { series: 'resumption', resumption: 'none', resumed: 0 }), ...two(h, { series: 'resumption', resumption: 'tickets', resumed: 990 })]
  const r = evalCheck(
    {
      kind: 'threshold',
      table: 'handshakes',
      metric: 'resumed_pct',
      select: { series: 'resumption', proxy: 'haproxy', resumption: 'tickets' },
      op: '>',
      value: 50,
    },
    { handshakes: hs },
  )
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /haproxy pool-added ec256 tickets: 99% /)
  // resumption none does not resume: the same check on it fails.
  assert.equal(
    evalCheck(
      {
        kind: 'threshold',
        table: 'handshakes',
        metric: 'resumed_pct',
        select: { series: 'resumption', proxy: 'haproxy', resumption: 'none' },
        op: '>',
        value: 50,
      },
      { handshakes: hs },
    ).verdict,
    'not reproduced',
  )
  const tcp = [
    ...two(tcpRow, {}, 'proxy_cpu_us_per_conn', 80),
    ...two(tcpRow, { series: 'l4-stream', mode: 'stream', proxy_cpu_us_per_conn: null, proxy_cpu_us_per_mib: 900 }),
  ]
  const t = evalCheck(
    {
      kind: 'threshold',
      table: 'tcp',
      metric: 'proxy_cpu_us_per_conn',
      select: { series: 'l4-short', proxy: 'haproxy', variant: 'l4-tcp' },
      op: '<',
      value: 100,
    },
    { tcp },
  )
  assert.equal(t.verdict, 'reproduced')
  assert.deepEqual(
    t.evidence.map((e) => [e.table, e.cell.series, e.cell.mode]),
    [['tcp', 'l4-short', 'short']],
  )
  // The stream cell has no per-connection figure: not measured, never a 0.
  assert.equal(
    evalCheck(
      { kind: 'threshold', table: 'tcp', metric: 'proxy_cpu_us_per_conn', select: { series: 'l4-stream', proxy: 'haproxy' }, op: '<', value: 100 },
      { tcp },
    ).verdict,
    'not measured',
  )
})
