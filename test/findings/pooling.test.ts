import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Measurement } from '../../lib/data/schema.ts'
import { formatFindings } from '../../lib/findings/format.ts'
import { poolingFindings } from '../../lib/findings/pooling.ts'
import { cpuRepeats, measurement, two } from '../fixtures/rows.ts'

const row = (proxy: string, variant: string, cpu: number, conns: number, extra: Partial<Measurement> = {}): Measurement[] =>
  two(measurement, { proxy, variant, backend_conns_per_1k_req: conns, ...extra }, 'proxy_cpu_us_per_req', cpu)

const reuse = (proxy: string, variant: string, version: string) =>
  proxy === 'nginx'
    ? ['pool-added', 'upstream-keepalive'].includes(variant) || (variant === 'upstream-default' && version === '1.31.3')
    : !['pool-removed', 'server-close'].includes(variant)

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
  assert.equal(by.F1!.figure, 'haproxy 20.0 (0 conns/1k) < nginx 70.0 (1000 conns/1k) µs/req; less pooled / more pooled: nginx/haproxy 3.50 [3.39, 3.60]')
  assert.equal(by.F2!.verdict, 'held')
  assert.match(by.F2!.figure, /haproxy 3\.16x \[3\.07, 3\.26\], nginx 3\.00x \[2\.91, 3\.09\]; nginx article\/pool-removed 1\.06 \[1\.03, 1\.09\]/)
  assert.deepEqual(
    by.F2!.intervals!.map((i) => i.label),
    ['haproxy pool-removed/pool-added', 'nginx pool-removed/pool-added', 'nginx article/pool-removed'],
  )
  assert.equal(by.F3!.verdict, 'info')
  assert.equal(by.F4!.verdict, 'held')
  assert.equal(by.F7!.verdict, 'held')
  assert.match(by.F7!.figure, /1\.22\.1: upstream-default\/literal 1\.02 \[0\.99, 1\.05\], 1\.31\.3: upstream-default\/literal 0\.43 \[0\.42, 0\.44\]/)
  assert.equal(by.pool!.verdict, 'held')
  assert.equal(by.cv!.verdict, 'held')
  assert.match(by.cv!.title, /precision: worst CI half-width/)
  assert.match(by.cv!.figure, /±1\.0%: .* µs\/req \(n=2, 50% coverage\)$/)
})

test('a finding that does not hold says so with its figure; invalid rows are ignored', () => {
  const bad = rows.map((r) => (r.proxy === 'haproxy' && r.variant === 'server-close' ? { ...r, proxy_cpu_us_per_req: 25 } : r))
  bad.push(measurement({ variant: 'reuse-never', repeat: 3, proxy_cpu_us_per_req: 500, status: 'invalid', reason: 'errors 5% >= 1%' }))
  const f4 = find(poolingFindings(bad, reuse), 'F4')
  assert.equal(f4.verdict, 'not held')
  assert.equal(f4.figure, 'reuse-never/article 1.05 [1.02, 1.08], server-close/article 1.25 [1.21, 1.29]')
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

// Five interleaved rounds per cell; the pool-added cell is flat, so the spread of the ratio is pool-removed's.
const f2 = (removed: number[]) =>
  find(
    poolingFindings(
      [
        ...cpuRepeats({ variant: 'pool-added', series: 'pool-added' }, [20, 20, 20, 20, 20]),
        ...cpuRepeats({ variant: 'pool-removed', series: 'pool-removed' }, removed),
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
  const iv = straddles.intervals![0]!.interval
  assert.ok(iv.lo < 1.7 && iv.hi > 1.7, straddles.figure)
  assert.match(straddles.figure, /^haproxy 1\.70x \[[\d.]+, [\d.]+\]$/)
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
  assert.equal(single.figure, 'haproxy 3.00x [1 repeat]')
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
  assert.match(contradiction.figure, /haproxy pools more but costs more than nginx/)
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
  assert.match(cv.figure, /^worst caddy 2\.11\.7 article ±[\d.]+%: 105\.0 \[90\.0, 120\.0\] µs\/req \(n=5, 94% coverage\)$/)
  assert.equal(find(poolingFindings(cpuRepeats({ variant: 'article' }, [40]), reuse), 'cv').verdict, 'not measured')
})
