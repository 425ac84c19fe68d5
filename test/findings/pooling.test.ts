import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { formatFindings } from '../../lib/findings/format.ts'
import { findingsFor, type Finding } from '../../lib/findings/index.ts'
import { cpuRepeats, measurement, two } from '../fixtures/rows.ts'

// The pooling series' lines: F1, F2, F4, F7 from their ledger groups (baselines/published/findings.yaml),
// F3's pit, the pool detector and the precision from the rows (lib/findings/pooling.ts).

/** The series the harness writes for each variant of the pooling series. */
const SERIES: Record<string, string> = {
  article: 'same',
  'pool-added': 'pool-added',
  'pool-removed': 'pool-removed',
  'reuse-never': 'haproxy-reuse',
  'server-close': 'haproxy-reuse',
  literal: 'nginx-keepalive',
  'upstream-default': 'nginx-keepalive',
  'upstream-keepalive': 'nginx-keepalive',
}
const ledger = loadLedger()
/** The pooling lines of rows; reuse documents which cells pool (the pool detector's input is the catalog's). */
const poolingFindings = (rs: readonly Measurement[], _reuse?: unknown): Finding[] =>
  findingsFor({ measurements: rs.map((r) => ({ ...r, series: SERIES[r.variant] ?? r.series })), handshakes: [], websocket: [] }, ['pooling'], { ledger })

const row = (proxy: string, variant: string, cpu: number, conns: number, extra: Partial<Measurement> = {}): Measurement[] =>
  two(measurement, { proxy, variant, backend_conns_per_1k_req: conns, ...extra }, 'proxy_cpu_us_per_req', cpu)

const reuse = undefined

const rows = [
  ...row('haproxy', 'article', 20, 0),
  ...row('haproxy', 'pool-added', 19, 0),
  ...row('haproxy', 'pool-removed', 60, 1000),
  ...row('haproxy', 'reuse-never', 21, 0),
  ...row('haproxy', 'server-close', 62, 1000),
  ...row('nginx', 'article', 70, 1000, { version: '1.31.3' }),
  ...row('nginx', 'pool-added', 22, 1, { version: '1.31.3' }),
  ...row('nginx', 'pool-removed', 66, 1000, { version: '1.31.3' }),
  ...row('nginx', 'literal', 70, 1000, { version: '1.31.3' }),
  ...row('nginx', 'upstream-default', 30, 2, { version: '1.31.3' }),
  ...row('nginx', 'literal', 50, 1000, { version: '1.22.1' }),
  ...row('nginx', 'upstream-default', 51, 1000, { version: '1.22.1' }),
]

const find = (f: ReturnType<typeof poolingFindings>, id: string) => f.find((x) => x.id === id)!

test('findings hold on data shaped like the seed, each figure with its interval', () => {
  const f = poolingFindings(rows, reuse)
  const by = Object.fromEntries(f.map((x) => [x.id, x]))
  assert.equal(by.F1!.verdict, 'held')
  // Both cells move together round by round, so the paired bootstrap alone is a point; two
  // repeats each, so the run's pooled noise (±1% per window here) widens it.
  assert.equal(by.F1!.figure, 'haproxy 20 (0 conns/1k req) < nginx 70 (1,000 conns/1k req) µs/req; nginx/haproxy: r = 3.5 [3.39, 3.6]; wanted >= 1')
  // Only haproxy and nginx are measured: "for every proxy" is not held on two of five.
  assert.equal(by.F2!.verdict, 'inconclusive')
  assert.match(by.F2!.figure, /haproxy: r = 3\.16 \[3\.07, 3\.26\] .*nginx: r = 3 \[2\.91, 3\.09\] .*nginx-article-as-pool-removed: r = 1\.06 \[1\.03, 1\.09\]/)
  assert.deepEqual(
    by.F2!.intervals!.map((i) => i.label),
    ['haproxy (pool-removed-costs-each-proxy)', 'nginx (pool-removed-costs-each-proxy)', 'nginx-article-as-pool-removed'],
  )
  assert.equal(by.F3!.verdict, 'info')
  assert.equal(by.F4!.verdict, 'held')
  assert.equal(by.F7!.verdict, 'held')
  // The newest nginx on the side of the change (>= 1.29.7); 1.22.1's cells are not the claim's.
  assert.match(by.F7!.figure, /^r = 0\.429 \[0\.416, 0\.441\] \(nginx 1\.31\.3 upstream-default 30 \/ nginx 1\.31\.3 literal 70 µs\/req\)/)
  assert.equal(by.pool!.verdict, 'held')
  assert.equal(by.cv!.verdict, 'held')
  assert.match(by.cv!.title, /precision: worst CI half-width/)
  assert.match(by.cv!.figure, /^±1\.0% half-width, worst: .* µs\/req, n=2, 50% coverage\)$/)
})

test('a finding that does not hold says so with its figure; invalid rows are ignored', () => {
  const bad = rows.map((r) => (r.proxy === 'haproxy' && r.variant === 'server-close' ? { ...r, proxy_cpu_us_per_req: 25 } : r))
  bad.push(measurement({ variant: 'reuse-never', repeat: 3, proxy_cpu_us_per_req: 500, status: 'invalid', reason: 'errors 5% >= 1%' }))
  const f4 = find(poolingFindings(bad, reuse), 'F4')
  // server-close at 25 in both rounds, article at 19.8 and 20.2: the two rounds' ratios differ, a t of 1 df on them.
  assert.equal(f4.verdict, 'not held')
  assert.match(
    f4.figure,
    /reuse-never-cpu-as-article: r = 1\.05 \[1\.02, 1\.08\] .*; haproxy-server-close-cpu-above-article: r = 1\.25 \[1\.1, 1\.42\] .*; by round: 2 rounds; /,
  )
})

test('nothing measured: every finding says not measured, none claims to hold', () => {
  const f = poolingFindings([], reuse)
  assert.ok(
    f.every((x) => x.verdict === 'not measured'),
    JSON.stringify(f),
  )
  // Not measured has one mark, the claims ledger's (lib/core/verdict.ts).
  assert.match(formatFindings(f), /· F1 same configs/)
})

test('the pool detector finding names cells that contradict the documentation', () => {
  const wrong = rows.map((r) => (r.variant === 'upstream-default' && r.version === '1.31.3' ? { ...r, backend_conns_per_1k_req: 480 } : r))
  const pool = find(poolingFindings(wrong, reuse), 'pool')
  assert.equal(pool.verdict, 'not held')
  assert.equal(pool.figure, 'nginx 1.31.3 upstream-default: 480 [480, 480]')
  // Repeats on both sides of the bound: not decided either way.
  const split = rows.map((r) => (r.variant === 'upstream-default' && r.version === '1.31.3' ? { ...r, backend_conns_per_1k_req: r.repeat === 1 ? 2 : 480 } : r))
  assert.equal(find(poolingFindings(split, reuse), 'pool').verdict, 'inconclusive')
})

const FIVE = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
// Five interleaved rounds per cell; the pool-added cells are flat, so the spread of each ratio is pool-removed's.
const f2 = (removed: number[], others = [60, 62, 58, 61, 59]) =>
  find(
    poolingFindings(
      [
        ...FIVE.flatMap((proxy) => cpuRepeats({ proxy, variant: 'pool-added' }, [20, 20, 20, 20, 20])),
        ...cpuRepeats({ variant: 'pool-removed' }, removed),
        ...FIVE.filter((p) => p !== 'haproxy').flatMap((proxy) => cpuRepeats({ proxy, variant: 'pool-removed' }, others)),
        ...cpuRepeats({ proxy: 'nginx', variant: 'article' }, others),
      ],
      reuse,
    ),
    'F2',
  )

test('F2 three ways: held above 1.7, not held below, inconclusive when the interval straddles 1.7', () => {
  const held = f2([60, 62, 58, 61, 59])
  assert.equal(held.verdict, 'held', held.figure)
  const notHeld = f2([25, 26, 24, 25, 27])
  assert.equal(notHeld.verdict, 'not held', notHeld.figure)
  const straddles = f2([28, 40, 30, 38, 34])
  assert.equal(straddles.verdict, 'inconclusive', straddles.figure)
  const iv = straddles.intervals!.find((x) => x.label.startsWith('haproxy'))!.interval
  assert.ok(iv.lo < 1.7 && iv.hi > 1.7, straddles.figure)
  assert.match(straddles.figure, /^pool-removed-costs-each-proxy: caddy 3 \[[\d.]+, [\d.]+\], .*haproxy 1\.7 \[[\d.]+, [\d.]+\], /)
})

test('F2: one proxy decided wrong is not held even when another straddles; single repeats decide nothing', () => {
  const mixed = poolingFindings(
    [
      ...cpuRepeats({ variant: 'pool-added' }, [20, 20, 20, 20, 20]),
      ...cpuRepeats({ variant: 'pool-removed' }, [28, 40, 30, 38, 34]),
      ...cpuRepeats({ proxy: 'caddy', variant: 'pool-added' }, [20, 20, 20, 20, 20]),
      ...cpuRepeats({ proxy: 'caddy', variant: 'pool-removed' }, [25, 26, 24, 25, 27]),
    ],
    reuse,
  )
  assert.equal(find(mixed, 'F2').verdict, 'not held')
  const single = find(poolingFindings([...cpuRepeats({ variant: 'pool-added' }, [20]), ...cpuRepeats({ variant: 'pool-removed' }, [60])], reuse), 'F2')
  assert.equal(single.verdict, 'inconclusive')
  assert.match(single.figure, /^pool-removed-costs-each-proxy: not measured: caddy: no cell .*; haproxy: r = 3 \[1 repeat\] /)
  // Four proxies not measured: "for every proxy" rests on one, never held.
  assert.equal(f2([60, 62, 58, 61, 59]).verdict, 'held')
  const one = poolingFindings([
    ...cpuRepeats({ variant: 'pool-added' }, [20, 20, 20, 20, 20]),
    ...cpuRepeats({ variant: 'pool-removed' }, [60, 62, 58, 61, 59]),
  ])
  assert.equal(find(one, 'F2').verdict, 'inconclusive')
})

const f7 = (upstream: number[]) =>
  find(
    poolingFindings(
      [
        ...cpuRepeats({ proxy: 'nginx', variant: 'literal', series: 'nginx-keepalive' }, [70, 70, 70, 70, 70]),
        ...cpuRepeats({ proxy: 'nginx', variant: 'upstream-default', series: 'nginx-keepalive' }, upstream),
      ],
      reuse,
    ),
    'F7',
  )

test('F7 three ways: held at or below 0.6x literal, not held above, inconclusive when straddling', () => {
  assert.equal(f7([30, 31, 29, 30, 32]).verdict, 'held')
  assert.equal(f7([60, 62, 58, 61, 59]).verdict, 'not held')
  const straddles = f7([36, 48, 38, 46, 42])
  assert.equal(straddles.verdict, 'inconclusive', straddles.figure)
  assert.equal(f7([30]).verdict, 'inconclusive', 'a single repeat is never decided')
})

test('F1: a pair contradicts only when decided; an undecided pair leaves the ranking inconclusive', () => {
  const same = (nginx: number[]) =>
    find(
      poolingFindings(
        [
          ...cpuRepeats({ variant: 'article', backend_conns_per_1k_req: 0 }, [40, 40, 40, 40, 40]),
          ...cpuRepeats({ proxy: 'nginx', variant: 'article', backend_conns_per_1k_req: 1000 }, nginx),
        ],
        reuse,
      ),
      'F1',
    )
  assert.equal(same([70, 72, 68, 71, 69]).verdict, 'held')
  const contradiction = same([30, 31, 29, 30, 32])
  assert.equal(contradiction.verdict, 'not held')
  assert.match(contradiction.figure, /nginx\/haproxy: r = 0\.75 \[[\d.]+, [\d.]+\]; wanted >= 1/)
  assert.equal(same([30, 50, 34, 46, 40]).verdict, 'inconclusive')
})

test('only closed-model rows count: open-model rows of the same series and cell are left out', () => {
  const open = rows.filter((r) => r.variant === 'pool-removed').map((r) => ({ ...r, model: 'open' as const, target_rps: 1000, proxy_cpu_us_per_req: 5 }))
  const f = find(poolingFindings([...rows, ...open], reuse), 'F2')
  assert.equal(f.figure, find(poolingFindings(rows, reuse), 'F2').figure)
  assert.equal(find(poolingFindings(open, reuse), 'F2').verdict, 'not measured')
})

test('precision: a cell whose median interval is wider than ±3% is not held, never inconclusive', () => {
  const noisy = [...rows, ...cpuRepeats({ proxy: 'caddy', variant: 'article' }, [100, 120, 90, 110, 105])]
  const cv = find(poolingFindings(noisy, reuse), 'cv')
  assert.equal(cv.verdict, 'not held')
  assert.match(cv.figure, /^±[\d.]+% half-width, worst: caddy 2\.11\.7 article \(105\.0 \[90\.0, 120\.0\] µs\/req, n=5, 94% coverage\)$/)
  assert.equal(find(poolingFindings(cpuRepeats({ variant: 'article' }, [40]), reuse), 'cv').verdict, 'not measured')
})
