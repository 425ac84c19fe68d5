import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { test } from 'node:test'
import { evaluateClaims } from '../../lib/claims/evaluate.ts'
import { formatLedger } from '../../lib/claims/format.ts'
import { loadLedger, PUBLISHED_DIR, type Claim, type SelectorSpec } from '../../lib/claims/ledger.ts'
import type { RunTables } from '../../lib/data/run-data.ts'
import { KEY_SOURCES } from '../../lib/data/default-keys.ts'
import type { Handshake, Measurement, WebSocketRow } from '../../lib/data/schema.ts'
import { evalCheck } from '../fixtures/ledger.ts'
import { handshake as h, measurement as m, two, websocketRow as w } from '../fixtures/rows.ts'
import { FIXTURE_RUN, fixtureTables } from '../fixtures/run.ts'
import { tcpRow } from '../fixtures/tcp-rows.ts'

// ------------------------------------------------------------------ selectors

test('selectors: a constant side from published figures; keys of select apply to a and b but not to a constant', () => {
  const rows = two(m, { proxy: 'haproxy' }, 'proxy_cpu_us_per_req', 18)
  const r = evalCheck(
    {
      kind: 'ratio',
      metric: 'proxy_cpu_us_per_req',
      select: { model: 'closed' },
      a: { value: 's000-ten * s000-six * 3' },
      b: { series: 'same', proxy: 'haproxy' },
      approx: 's000-ten',
      tolerance: 0.25,
    },
    { measurements: rows },
  )
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /^r = 10 \[9\.9, 10\.1\] \(published 180 \/ haproxy article 18 µs\/req\); wanted 7\.5\.\.12\.5 \(≈ 10 ±25%\)$/)
})

test('selectors: a list of selectors is the union of their cells', () => {
  const rows = [
    ...two(m, { proxy: 'haproxy', variant: 'pool-removed' }, 'proxy_cpu_us_per_req', 110),
    ...two(m, { proxy: 'envoy', variant: 'pool-removed' }, 'proxy_cpu_us_per_req', 120),
    ...two(m, { proxy: 'nginx', variant: 'article' }, 'proxy_cpu_us_per_req', 130),
    ...two(m, { proxy: 'nginx', variant: 'pool-removed' }, 'proxy_cpu_us_per_req', 500),
  ]
  const r = evalCheck(
    {
      kind: 'spread',
      metric: 'proxy_cpu_us_per_req',
      select: [
        { series: 'same', variant: 'pool-removed', proxy: ['haproxy', 'envoy'] },
        { series: 'same', variant: 'article', proxy: 'nginx' },
      ],
      max: 0.3,
    },
    { measurements: rows },
  )
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /^s = 0\.182 \[[\d.,]+, [\d.,]+\] \(haproxy 110, envoy 120, nginx 130 µs\/req\); wanted <= 0\.3$/)
})

test('for_each: the check runs per item (select < item < a/b) and holds only if every item holds', () => {
  const rows = ['rsa2048', 'rsa4096'].flatMap((kt) => [
    ...two(h, { proxy: 'traefik', key_type: kt }, 'proxy_cpu_us_per_handshake', kt === 'rsa2048' ? 2000 : 8000),
    ...two(h, { proxy: 'nginx', key_type: kt }, 'proxy_cpu_us_per_handshake', kt === 'rsa2048' ? 1000 : 2000),
  ])
  const check = {
    kind: 'ratio',
    table: 'handshakes',
    metric: 'proxy_cpu_us_per_handshake',
    select: { series: 'tls-handshake' },
    a: { proxy: 'traefik' },
    b: { proxy: 'nginx' },
    for_each: [{ key_type: 'rsa2048' }, { key_type: 'rsa4096' }],
    approx: 2,
    tolerance: 0.25,
  }
  const r = evalCheck(check, { handshakes: rows })
  assert.equal(r.verdict, 'not reproduced')
  assert.match(
    r.measured,
    /^rsa2048: r = 2 \[[\d.,]+, [\d.,]+\] \(traefik pool-added rsa2048 2,000 \/ nginx pool-added rsa2048 1,000 µs\/handshake\).*; rsa4096: r = 4 \[[\d.,]+, [\d.,]+\] /,
  )
  // The side wins over the item: a pinned to rsa2048 in both items.
  const pinned = evalCheck({ ...check, a: { proxy: 'traefik', key_type: 'rsa2048' }, b: { proxy: 'nginx', key_type: 'rsa2048' } }, { handshakes: rows })
  assert.equal(pinned.verdict, 'reproduced')
  // An item overrides select.
  const sel = evalCheck(
    {
      kind: 'threshold',
      table: 'handshakes',
      metric: 'proxy_cpu_us_per_handshake',
      select: { proxy: 'nginx', key_type: 'rsa4096' },
      for_each: [{ series: 'tls-handshake', key_type: 'rsa2048' }],
      op: '<=',
      value: 1100,
    },
    { handshakes: rows },
  )
  assert.equal(sel.verdict, 'reproduced')
})

// ------------------------------------------------------------------ check kinds

test('ratio: min / max bounds and approx ± tolerance', () => {
  const rows = [
    ...two(m, { proxy: 'nginx', series: 'pool-added', variant: 'pool-added' }, 'rps', 600),
    ...two(m, { proxy: 'nginx', variant: 'article' }, 'rps', 100),
  ]
  const sides = { a: { series: 'pool-added', proxy: 'nginx', variant: 'pool-added' }, b: { series: 'same', proxy: 'nginx', variant: 'article' } }
  const ratio = (x: object) => evalCheck({ kind: 'ratio', metric: 'rps', ...sides, ...x }, { measurements: rows }).verdict
  assert.equal(ratio({ approx: 's000-six', tolerance: 0.25 }), 'reproduced')
  assert.equal(ratio({ approx: 's000-ten', tolerance: 0.25 }), 'not reproduced')
  assert.equal(ratio({ approx: 4.9, tolerance: 0.25 }), 'reproduced')
  assert.equal(ratio({ min: 6 }), 'reproduced')
  assert.equal(ratio({ min: 6.01 }), 'not reproduced')
  assert.equal(ratio({ max: 6 }), 'reproduced')
  assert.equal(ratio({ min: 2, max: 5 }), 'not reproduced')
  assert.equal(ratio({ min: '2 * 3', max: 's000-ten' }), 'reproduced')
  const full = evalCheck({ kind: 'ratio', metric: 'rps', ...sides, approx: 's000-six', tolerance: 0.25 }, { measurements: rows })
  assert.equal(full.value, 6)
  assert.equal(full.reference, 6)
  assert.equal(full.expect, 'rule')
  assert.equal(evalCheck({ kind: 'ratio', metric: 'rps', ...sides, min: 2 }, { measurements: rows }).reference, null)
})

test('equal: |a / b - 1| <= tolerance', () => {
  const rows = [...two(m, { proxy: 'haproxy', variant: 'reuse-never' }, 'rps', 233), ...two(m, { proxy: 'haproxy', variant: 'article' }, 'rps', 223)]
  const eq = (tolerance: number | string) =>
    evalCheck(
      { kind: 'equal', metric: 'rps', select: { series: 'same' }, a: { variant: 'reuse-never' }, b: { variant: 'article' }, tolerance },
      { measurements: rows },
    )
  assert.equal(eq('s000-five-pct / 100').verdict, 'reproduced')
  assert.match(eq(0.05).measured, /^a\/b = 1\.04 \[1\.04, 1\.04\] \(haproxy reuse-never 233 \/ haproxy article 223 rps\); wanted 0\.95\.\.1\.05 \(±5%\)$/)
  assert.equal(eq(0.04).verdict, 'not reproduced')
})

test('spread: one value per proxy, max / min - 1 <= max; fewer than 2 cells is not measured', () => {
  const rows = [...two(w, { proxy: 'haproxy' }, 'proxy_cpu_us_per_msg', 30), ...two(w, { proxy: 'envoy' }, 'proxy_cpu_us_per_msg', 36)]
  const spread = (max: number | string, proxy: string[] = ['haproxy', 'envoy'], data = rows) =>
    evalCheck(
      { kind: 'spread', table: 'websocket', metric: 'proxy_cpu_us_per_msg', select: { series: 'ws-echo', mode: 'echo', variant: 'ws', proxy }, max },
      { websocket: data },
    )
  assert.equal(spread('s000-five-pct * 3 / 100').verdict, 'not reproduced')
  assert.equal(spread(0.2).verdict, 'reproduced')
  assert.match(spread(0.2).measured, /^s = 0\.2 \[0\.2, 0\.2\] \(haproxy 30, envoy 36 µs\/msg\); wanted <= 0\.2$/)
  assert.equal(spread(0.2, ['haproxy']).verdict, 'not measured')
  assert.equal(spread(0.2, ['haproxy', 'envoy', 'caddy']).verdict, 'not measured')
})

test('rank: positions (1-based, negative from the end) and same_order_as', () => {
  const rows = [
    ...two(m, { proxy: 'haproxy' }, 'rps', 500),
    ...two(m, { proxy: 'traefik' }, 'rps', 400),
    ...two(m, { proxy: 'envoy' }, 'rps', 300),
    ...two(m, { proxy: 'caddy' }, 'rps', 200),
    ...two(m, { proxy: 'nginx' }, 'rps', 100),
  ]
  const five = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
  const rank = (positions: object, data = rows) =>
    evalCheck({ kind: 'rank', metric: 'rps', by: 'desc', select: { series: 'same', variant: 'article', proxy: five }, positions }, { measurements: data })
  assert.equal(rank({ haproxy: [1], traefik: [2, 3], nginx: [-1] }).verdict, 'reproduced')
  const bad = rank({ haproxy: [1], traefik: [3], nginx: [-2] })
  assert.equal(bad.verdict, 'not reproduced')
  assert.match(bad.measured, /traefik is 2nd, wanted 3rd; nginx is 5th \(last\), wanted 4th/)
  assert.equal(
    rank(
      { haproxy: [1] },
      rows.filter((r) => r.proxy !== 'caddy'),
    ).verdict,
    'not measured',
    'a missing proxy changes every place',
  )

  const hs = [
    ...two(h, { proxy: 'haproxy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 4000),
    ...two(h, { proxy: 'traefik', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 6000),
    ...two(h, { proxy: 'envoy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 5000),
    ...two(h, { proxy: 'caddy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 7000),
    ...two(h, { proxy: 'nginx', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 8000),
    ...two(h, { proxy: 'nginx', key_type: 'ec256' }, 'proxy_cpu_us_per_handshake', 1),
  ]
  const order = (data: Handshake[]) =>
    evalCheck(
      {
        kind: 'rank',
        metric: 'rps',
        by: 'desc',
        select: { series: 'same', variant: 'article', proxy: five },
        same_order_as: { table: 'handshakes', metric: 'proxy_cpu_us_per_handshake', select: { series: 'tls-handshake', key_type: 'rsa4096' }, by: 'asc' },
      },
      { measurements: rows, handshakes: data },
    )
  const same = order(hs)
  assert.equal(same.verdict, 'not reproduced')
  assert.match(
    same.measured,
    /by rps desc: haproxy 500 \[[\d.,]+, [\d.,]+\] > traefik 400 \[[\d.,]+, [\d.,]+\] > envoy 300 \[[\d.,]+, [\d.,]+\] > caddy 200 \[[\d.,]+, [\d.,]+\] > nginx 100 \[[\d.,]+, [\d.,]+\]; by proxy_cpu_us_per_handshake asc: haproxy 4,000 \[[\d.,]+, [\d.,]+\] < envoy 5,000 \[[\d.,]+, [\d.,]+\] < traefik 6,000 /,
  )
  const swapped = hs.map((r) =>
    r.proxy === 'envoy'
      ? { ...r, proxy_cpu_us_per_handshake: r.proxy_cpu_us_per_handshake! + 1500 }
      : r.proxy === 'traefik'
        ? { ...r, proxy_cpu_us_per_handshake: r.proxy_cpu_us_per_handshake! - 1000 }
        : r,
  )
  assert.equal(order(swapped).verdict, 'reproduced')
  assert.equal(order(hs.filter((r) => r.proxy !== 'caddy')).verdict, 'not measured')
})

test('threshold: v <op> value for each operator', () => {
  const rows = two(m, { proxy: 'traefik' }, 'errors', 0)
  const t = (op: string, value: number) =>
    evalCheck({ kind: 'threshold', metric: 'errors', rows: 'all', select: { series: 'same', proxy: 'traefik' }, op, value }, { measurements: rows }).verdict
  assert.equal(t('==', 0), 'reproduced')
  assert.equal(t('<', 1), 'reproduced')
  assert.equal(t('<=', 0), 'reproduced')
  assert.equal(t('>', 0), 'not reproduced')
  assert.equal(t('>=', 1), 'not reproduced')
})

test('status: every matched cell has an allowed status; a refuting cell wins over a missing one', () => {
  const rows = [
    ...two(m, { proxy: 'traefik', model: 'open', key_type: 'rsa4096', target_rps: 900, status: 'invalid' }),
    m({ proxy: 'traefik', model: 'open', key_type: 'ec256', target_rps: 900, repeat: 1 }),
    m({ proxy: 'traefik', model: 'open', key_type: 'ec256', target_rps: 900, repeat: 2, status: 'invalid' }),
    m({ proxy: 'traefik', model: 'open', key_type: 'ec256', target_rps: 900, repeat: 3 }),
  ]
  const check = (cells: object[]) => evalCheck({ kind: 'status', rows: 'all', select: { series: 'same' }, cells }, { measurements: rows })
  const r = check([
    { select: { proxy: 'traefik', model: 'open', key_type: 'rsa4096' }, status: ['invalid', 'failed'] },
    { select: { proxy: 'traefik', model: 'open', key_type: 'ec256' }, status: ['valid'] },
  ])
  assert.equal(r.verdict, 'reproduced')
  assert.match(
    r.measured,
    /traefik 3\.7\.15 article rsa4096 open@900: invalid; wanted invalid or failed; traefik 3\.7\.15 article open@900: valid \(2 valid, 1 invalid\); wanted valid/,
  )
  assert.equal(r.evidence.length, 2)
  assert.equal(r.evidence[0]!.status, 'invalid')
  assert.equal(check([{ select: { proxy: 'traefik', model: 'open', key_type: 'ec256' }, status: ['invalid'] }]).verdict, 'not reproduced')
  const missing = check([{ select: { proxy: ['traefik', 'caddy'], model: 'open', key_type: 'rsa4096' }, status: ['invalid', 'failed'] }])
  assert.equal(missing.verdict, 'not measured')
  assert.match(missing.measured, /no cell \{series: same, proxy: caddy, model: open, key_type: rsa4096\}/)
  const refuted = check([{ select: { proxy: ['traefik', 'caddy'], model: 'open', key_type: 'ec256' }, status: ['invalid', 'failed'] }])
  assert.equal(refuted.verdict, 'not reproduced')
})

test('status with reason: every row of the cell must give a matching reason; another cause is not measured, a wrong status still refutes', () => {
  const refused = { status: 'failed' as const, reason: 'upgrade failed: HTTP 400 × 200', conns_established: 0, messages: 0 }
  const noStart = { status: 'failed' as const, reason: 'did not start: nginx: [emerg] unknown directive', conns_established: 0, messages: 0 }
  const nginx = (...rows: Partial<WebSocketRow>[]) => rows.map((f, i) => w({ proxy: 'nginx', variant: 'article', repeat: i + 1, ...f }))
  const check = (rows: WebSocketRow[], reason: string | null = '^upgrade failed') =>
    evalCheck(
      {
        kind: 'status',
        table: 'websocket',
        rows: 'all',
        cells: [{ select: { series: 'ws-echo', proxy: 'nginx', variant: 'article', mode: 'echo' }, status: ['failed', 'invalid'], ...(reason && { reason }) }],
      },
      { websocket: rows },
    )
  const ok = check(nginx(refused, refused))
  assert.equal(ok.verdict, 'reproduced')
  assert.equal(
    ok.measured,
    'nginx 1.31.3 article echo: failed ("upgrade failed: HTTP 400 × 200"); wanted failed or invalid with every reason matching /^upgrade failed/',
  )
  // The proxy did not start: failed, but it never saw an upgrade request. Without reason this passed.
  assert.equal(check(nginx(noStart, noStart), null).verdict, 'reproduced')
  const other = check(nginx(noStart, noStart))
  assert.equal(other.verdict, 'not measured')
  assert.equal(
    other.measured,
    'not measured: nginx 1.31.3 article echo: 2 of 2 rows give a reason not matching /^upgrade failed/ ("did not start: nginx: [emerg] unknown directive")',
  )
  assert.equal(other.evidence.length, 1, 'the cell is still shown as evidence')
  // Every row counts: one repeat that did not start is enough to doubt the cell.
  const mixed = check(nginx(refused, noStart, refused))
  assert.equal(mixed.verdict, 'not measured')
  assert.match(mixed.measured, /1 of 3 rows give a reason not matching .*\("upgrade failed: HTTP 400 × 200", "did not start: /)
  // A status the claim rules out refutes it whatever the reasons say.
  const passed = check(nginx({}, {}))
  assert.equal(passed.verdict, 'not reproduced')
  assert.match(passed.measured, /^nginx 1\.31\.3 article echo: valid \(no reason\); wanted failed or invalid with every reason matching/)
  // A JavaScript regular expression, unanchored unless it says so.
  assert.equal(check(nginx(refused, refused), 'HTTP 4\\d\\d').verdict, 'reproduced')
  assert.equal(check(nginx(refused, refused), '^HTTP').verdict, 'not measured')
})

test('count: |v - value| <= tolerance; value conns_target compares each cell with its own target', () => {
  const rows = [
    ...two(w, { proxy: 'envoy', series: 'ws-hold', variant: 'ws', mode: 'hold', conns_target: 5000, conns_established: 1024 }),
    ...two(w, { proxy: 'envoy', series: 'ws-hold', variant: 'ws-raised', mode: 'hold', conns_target: 5000, conns_established: 5000 }),
  ]
  const count = (variant: string, value: number | string, tolerance?: number) =>
    evalCheck(
      {
        kind: 'count',
        table: 'websocket',
        metric: 'conns_established',
        rows: 'all',
        select: { series: 'ws-hold', proxy: 'envoy', variant, mode: 'hold' },
        value,
        ...(tolerance !== undefined && { tolerance }),
      },
      { websocket: rows },
    )
  assert.equal(count('ws', 1024).verdict, 'reproduced')
  assert.match(count('ws', 1024).measured, /^envoy ws hold: 1,024 \[1,024, 1,024\] conns \(target 5000\); wanted 1,024 ±0$/)
  assert.equal(count('ws', 1000).verdict, 'not reproduced')
  assert.equal(count('ws', 1000, 30).verdict, 'reproduced')
  assert.equal(count('ws-raised', 'conns_target').verdict, 'reproduced')
  assert.equal(count('ws', 'conns_target').verdict, 'not reproduced')
})

test('the missing-cell rule: an absent cell, or one without a valid row, is not measured, never not reproduced', () => {
  const rows = [
    ...two(m, { proxy: 'nginx', series: 'pool-added', variant: 'pool-added' }, 'rps', 600),
    ...two(m, { proxy: 'nginx', variant: 'article', status: 'invalid' }, 'rps', 100),
  ]
  const ratio = {
    kind: 'ratio',
    metric: 'rps',
    a: { series: 'pool-added', proxy: 'nginx', variant: 'pool-added' },
    b: { series: 'same', proxy: 'nginx', variant: 'article' },
    approx: 's000-ten',
    tolerance: 0.1,
  }
  const absent = evalCheck(ratio, { measurements: rows.filter((r) => r.variant !== 'article') })
  assert.equal(absent.verdict, 'not measured')
  assert.equal(absent.measured, 'not measured: no cell {series: same, proxy: nginx, variant: article}')
  const invalid = evalCheck(ratio, { measurements: rows })
  assert.equal(invalid.verdict, 'not measured')
  assert.match(invalid.measured, /nginx 1\.31\.3 article has no valid rows \(2 invalid\)/)
  // With rows: all the same rows are evidence, and the check can fail.
  assert.equal(evalCheck({ ...ratio, rows: 'all' }, { measurements: rows }).verdict, 'not reproduced')
  // for_each: one item refuted and one missing is not reproduced; one held and one missing is not measured.
  const each = (a: number) =>
    evalCheck(
      {
        kind: 'threshold',
        metric: 'rps',
        select: { series: 'same', variant: 'article' },
        for_each: [{ proxy: 'haproxy' }, { proxy: 'caddy' }],
        op: '>',
        value: 10,
      },
      { measurements: two(m, { proxy: 'haproxy' }, 'rps', a) },
    )
  assert.equal(each(5).verdict, 'not reproduced')
  assert.equal(each(50).verdict, 'not measured')
  assert.match(each(50).measured, /^haproxy: haproxy article: 50 \[49\.5, 50\.5\] rps; wanted > 10; not measured: caddy: no cell/)
})

// ------------------------------------------------------------------ three-way verdicts on intervals

/** Repeats 1..n of one cell, one value of `metric` each. */
const reps = <T extends { repeat: number }>(make: (f: Partial<T>) => T, f: Partial<T>, metric: keyof T, values: number[]): T[] =>
  values.map((v, i) => make({ ...f, repeat: i + 1, [metric]: v } as Partial<T>))

test('ratio with an interval: reproduced / not reproduced only when the whole interval is inside / outside the band', () => {
  const article = reps(m, { proxy: 'nginx' }, 'rps', [100, 101, 99, 100.5, 99.5])
  const pooled = (values: number[]) => [...reps(m, { proxy: 'nginx', series: 'pool-added', variant: 'pool-added' }, 'rps', values), ...article]
  const tight = pooled([590, 610, 600, 605, 595])
  const noisy = pooled([400, 800, 600, 500, 700])
  const ratio = (data: Measurement[], x: object) =>
    evalCheck(
      {
        kind: 'ratio',
        metric: 'rps',
        a: { series: 'pool-added', proxy: 'nginx', variant: 'pool-added' },
        b: { series: 'same', proxy: 'nginx', variant: 'article' },
        ...x,
      },
      { measurements: data },
    )
  const r = ratio(tight, { approx: 6, tolerance: 0.25 })
  assert.equal(r.verdict, 'reproduced')
  // The five rounds' own ratios (a t of 4 df) reach a little beyond the bootstrap's 6.06.
  assert.match(r.measured, /^r = 6 \[5\.9, 6\.08\] \(nginx pool-added 600 \/ nginx article 100 rps\); by round: 5 rounds; wanted 4\.5\.\.7\.5 \(≈ 6 ±25%\)$/)
  assert.equal(r.value, 6)
  assert.equal(r.interval!.method, 'paired bootstrap')
  assert.ok(r.interval!.lo < 6 && r.interval!.hi > 6)
  assert.equal(ratio(tight, { approx: 10, tolerance: 0.25 }).verdict, 'not reproduced')
  // The point meets min: 6, the interval does not all.
  assert.equal(ratio(tight, { min: 6 }).verdict, 'inconclusive')
  // The same point with noisy repeats straddles the band; a wider band holds it.
  const wide = ratio(noisy, { approx: 6, tolerance: 0.25 })
  assert.equal(wide.verdict, 'inconclusive')
  // Its repeats spread far beyond the article cell's: unstable, widened by its own spread (t, 4 df).
  assert.match(wide.measured, /^r = 6 \[4, 9\.03\] /)
  assert.equal(wide.interval!.method, 'paired bootstrap, widened by unstable cell')
  assert.equal(ratio(noisy, { approx: 6, tolerance: 0.6 }).verdict, 'reproduced')
})

test('equal with an interval', () => {
  const rows = [
    ...reps(m, { proxy: 'haproxy', variant: 'reuse-never' }, 'rps', [233, 236, 230, 234, 232]),
    ...reps(m, { proxy: 'haproxy' }, 'rps', [223, 225, 221, 224, 222]),
  ]
  const eq = (tolerance: number) =>
    evalCheck(
      { kind: 'equal', metric: 'rps', select: { series: 'same' }, a: { variant: 'reuse-never' }, b: { variant: 'article' }, tolerance },
      { measurements: rows },
    )
  assert.equal(eq(0.1).verdict, 'reproduced')
  assert.match(eq(0.1).measured, /^a\/b = 1\.04 \[1\.04, 1\.05\] \(haproxy reuse-never 233 \/ haproxy article 223 rps\); wanted 0\.9\.\.1\.1 \(±10%\)$/)
  assert.equal(eq(0.01).verdict, 'not reproduced')
  // 1 + 0.045 falls inside the interval [1.041, 1.049].
  assert.equal(eq(0.045).verdict, 'inconclusive')
  assert.equal(eq(0.04).verdict, 'not reproduced')
})

test("threshold with an interval, strict and non-strict ops at the interval's ends", () => {
  // Five repeats: the order-statistics interval of the median is [min, max] = [40, 60].
  const rows = reps(m, { proxy: 'traefik' }, 'rps', [40, 50, 60, 45, 55])
  const t = (op: string, value: number) =>
    evalCheck({ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'traefik' }, op, value }, { measurements: rows })
  assert.equal(t('>', 30).verdict, 'reproduced')
  assert.match(t('>', 30).measured, /^traefik article: 50 \[40, 60\] rps; wanted > 30$/)
  assert.deepEqual(t('>', 30).interval, { lo: 40, hi: 60, method: 'order statistics' })
  assert.equal(t('>', 70).verdict, 'not reproduced')
  assert.equal(t('>', 50).verdict, 'inconclusive')
  assert.equal(t('<=', 60).verdict, 'reproduced')
  assert.equal(t('<', 60).verdict, 'inconclusive', 'hi = 60 may not be < 60')
  assert.equal(t('>=', 60).verdict, 'inconclusive')
  assert.equal(t('>', 60).verdict, 'not reproduced', 'no value of [40, 60] is > 60')
  assert.equal(t('==', 50).verdict, 'inconclusive')
  assert.equal(
    evalCheck({ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'traefik' }, op: '>', value: 30 }, { measurements: rows.slice(0, 1) })
      .verdict,
    'inconclusive',
    'a single repeat',
  )
})

test('spread with an interval', () => {
  const haproxy = reps(w, { proxy: 'haproxy' }, 'proxy_cpu_us_per_msg', [100, 102, 98, 101, 99])
  const tight = [...haproxy, ...reps(w, { proxy: 'envoy' }, 'proxy_cpu_us_per_msg', [110, 113, 108, 111, 109])]
  const noisy = [...haproxy, ...reps(w, { proxy: 'envoy' }, 'proxy_cpu_us_per_msg', [100, 130, 110, 125, 105])]
  const spread = (max: number, data: WebSocketRow[]) =>
    evalCheck(
      {
        kind: 'spread',
        table: 'websocket',
        metric: 'proxy_cpu_us_per_msg',
        select: { series: 'ws-echo', mode: 'echo', variant: 'ws', proxy: ['haproxy', 'envoy'] },
        max,
      },
      { websocket: data },
    )
  assert.equal(spread(0.2, tight).verdict, 'reproduced')
  assert.match(spread(0.2, tight).measured, /^s = 0\.1 \[0\.099, 0\.108\] \(haproxy 100, envoy 110 µs\/msg\); wanted <= 0\.2$/)
  assert.equal(spread(0.05, tight).verdict, 'not reproduced')
  assert.equal(spread(0.15, noisy).verdict, 'inconclusive')
  assert.match(spread(0.15, noisy).measured, /^s = 0\.1 \[0, 0\.29\] /)
})

test('count with an interval; conns_target per cell', () => {
  const rows = [
    ...reps(w, { proxy: 'envoy', series: 'ws-hold', variant: 'ws', mode: 'hold', conns_target: 5000 }, 'conns_established', [1024, 1024, 1020, 1024, 1024]),
    ...reps(w, { proxy: 'envoy', series: 'ws-hold', variant: 'ws-raised', mode: 'hold', conns_target: 5000 }, 'conns_established', [5000, 4990, 5000]),
  ]
  const count = (variant: string, value: number | string, tolerance?: number) =>
    evalCheck(
      {
        kind: 'count',
        table: 'websocket',
        metric: 'conns_established',
        rows: 'all',
        select: { series: 'ws-hold', proxy: 'envoy', variant, mode: 'hold' },
        value,
        ...(tolerance !== undefined && { tolerance }),
      },
      { websocket: rows },
    )
  assert.equal(count('ws', 1024, 5).verdict, 'reproduced')
  assert.match(count('ws', 1024, 5).measured, /^envoy ws hold: 1,024 \[1,020, 1,024\] conns \(target 5000\); wanted 1,024 ±5$/)
  assert.equal(count('ws', 1024).verdict, 'inconclusive', 'one repeat at 1020')
  assert.equal(count('ws', 5000, 100).verdict, 'not reproduced')
  assert.equal(count('ws-raised', 'conns_target').verdict, 'inconclusive')
  assert.match(count('ws-raised', 'conns_target').measured, /^envoy 1\.40\.0 ws-raised hold: 5,000 \[4,990, 5,000\] of 5,000 conns; wanted the target ±0$/)
  assert.equal(count('ws-raised', 'conns_target', 20).verdict, 'reproduced')
  assert.equal(count('ws', 'conns_target', 20).verdict, 'not reproduced')
})

test('rank positions with intervals: decided where neighbours do not overlap', () => {
  const five = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
  const cell = (proxy: string, v: number, noise = 5) => reps(m, { proxy }, 'rps', [v, v + noise, v - noise, v + noise / 2, v - noise / 2])
  // traefik and envoy overlap; the others are far apart.
  const rows = [...cell('haproxy', 500), ...cell('traefik', 400, 20), ...cell('envoy', 390, 20), ...cell('caddy', 200), ...cell('nginx', 100)]
  const rank = (positions: object) =>
    evalCheck({ kind: 'rank', metric: 'rps', by: 'desc', select: { series: 'same', variant: 'article', proxy: five }, positions }, { measurements: rows })
  const ok = rank({ haproxy: [1], traefik: [2, 3], nginx: [-1] })
  assert.equal(ok.verdict, 'reproduced', 'traefik is 2nd or 3rd whichever way the overlap goes')
  assert.match(
    ok.measured,
    /^by rps desc: haproxy 500 \[495, 505\] > traefik 400 \[380, 420\] ≈ envoy 390 \[370, 410\] > caddy 200 \[195, 205\] > nginx 100 \[95, 105\]; wanted/,
  )
  const undecided = rank({ haproxy: [1], traefik: [2] })
  assert.equal(undecided.verdict, 'inconclusive')
  assert.match(undecided.measured, /\(traefik could be 2nd or 3rd, wanted 2nd\)/)
  const wrong = rank({ traefik: [1], nginx: [-1] })
  assert.equal(wrong.verdict, 'not reproduced')
  assert.match(wrong.measured, /traefik is 2nd or 3rd, wanted 1st/)
  // Single repeats decide no order.
  const one = rows.filter((r) => r.repeat === 1)
  assert.equal(
    evalCheck(
      { kind: 'rank', metric: 'rps', by: 'desc', select: { series: 'same', variant: 'article', proxy: five }, positions: { haproxy: [1] } },
      { measurements: one },
    ).verdict,
    'inconclusive',
  )
})

test('rank same_order_as with intervals: both orders decided and equal, a pair decided opposite, or undecided', () => {
  const three = ['haproxy', 'envoy', 'nginx']
  const cell = <T extends { repeat: number }>(make: (f: Partial<T>) => T, f: Partial<T>, metric: keyof T, v: number, noise: number) =>
    reps(make, f, metric, [v, v + noise, v - noise, v + noise / 2, v - noise / 2])
  const rps = (envoy: number) => [
    ...cell(m, { proxy: 'haproxy' }, 'rps', 500, 5),
    ...cell(m, { proxy: 'envoy' }, 'rps', envoy, 5),
    ...cell(m, { proxy: 'nginx' }, 'rps', 100, 5),
  ]
  const hs = (envoy: number) => [
    ...cell(h, { proxy: 'haproxy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 4000, 50),
    ...cell(h, { proxy: 'envoy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', envoy, 50),
    ...cell(h, { proxy: 'nginx', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 8000, 50),
  ]
  const order = (r: Measurement[], s: Handshake[]) =>
    evalCheck(
      {
        kind: 'rank',
        metric: 'rps',
        by: 'desc',
        select: { series: 'same', variant: 'article', proxy: three },
        same_order_as: { table: 'handshakes', metric: 'proxy_cpu_us_per_handshake', select: { series: 'tls-handshake', key_type: 'rsa4096' }, by: 'asc' },
      },
      { measurements: r, handshakes: s },
    )
  assert.equal(order(rps(300), hs(6000)).verdict, 'reproduced')
  const opposite = order(rps(300), hs(9000))
  assert.equal(opposite.verdict, 'not reproduced')
  assert.match(
    opposite.measured,
    /by proxy_cpu_us_per_handshake asc: haproxy 4,000 \[3,950, 4,050\] < nginx 8,000 \[7,950, 8,050\] < envoy 9,000 \[8,950, 9,050\] \(a different order\)$/,
  )
  // envoy's handshake cost overlaps nginx's: nothing contradicts, nothing settles.
  const close = order(rps(300), hs(8020))
  assert.equal(close.verdict, 'inconclusive')
  assert.match(close.measured, /nginx 8,000 \[7,950, 8,050\] ≈ envoy 8,020 \[7,970, 8,070\] \(not decided: overlapping intervals\)$/)
  // An overlap on one side and a decided opposite pair elsewhere still refutes.
  assert.equal(order(rps(495), hs(9000)).verdict, 'not reproduced')
})

test('status: a tie between an allowed and a ruled-out status is inconclusive, said in the text', () => {
  const cellOf = (...statuses: ('valid' | 'invalid' | 'failed')[]) =>
    statuses.map((status, i) => w({ proxy: 'nginx', variant: 'article', repeat: i + 1, status }))
  const check = (rows: WebSocketRow[], allowed = ['failed', 'invalid']) =>
    evalCheck(
      {
        kind: 'status',
        table: 'websocket',
        rows: 'all',
        cells: [{ select: { series: 'ws-echo', proxy: 'nginx', variant: 'article', mode: 'echo' }, status: allowed }],
      },
      { websocket: rows },
    )
  assert.equal(check(cellOf('failed', 'failed', 'valid')).verdict, 'reproduced')
  assert.equal(check(cellOf('valid', 'valid', 'failed')).verdict, 'not reproduced')
  const tie = check(cellOf('valid', 'failed'))
  assert.equal(tie.verdict, 'inconclusive')
  assert.equal(tie.measured, 'nginx 1.31.3 article echo: failed (1 valid, 1 failed: a tie); wanted failed or invalid')
  assert.equal(tie.evidence[0]!.status, 'failed', 'shown as the worse status')
  assert.equal(check(cellOf('valid', 'failed'), ['valid']).verdict, 'inconclusive', 'undecided the other way round too')
  // A tie between two allowed statuses decides.
  assert.equal(check(cellOf('invalid', 'failed')).verdict, 'reproduced')
  assert.equal(check(cellOf('invalid', 'failed'), ['valid']).verdict, 'not reproduced')
  // A refuting cell wins over an undecided one; a missing one over an undecided one.
  const both = (cells: object[], rows: WebSocketRow[]) =>
    evalCheck({ kind: 'status', table: 'websocket', rows: 'all', select: { series: 'ws-echo', mode: 'echo' }, cells }, { websocket: rows })
  const rows = [...cellOf('valid', 'failed'), ...two(w, { proxy: 'haproxy', variant: 'article' })]
  assert.equal(
    both(
      [
        { select: { proxy: 'nginx', variant: 'article' }, status: ['failed'] },
        { select: { proxy: 'haproxy', variant: 'article' }, status: ['failed'] },
      ],
      rows,
    ).verdict,
    'not reproduced',
  )
  assert.equal(
    both(
      [
        { select: { proxy: 'nginx', variant: 'article' }, status: ['failed'] },
        { select: { proxy: 'caddy', variant: 'article' }, status: ['failed'] },
      ],
      rows,
    ).verdict,
    'not measured',
  )
  assert.equal(
    both(
      [
        { select: { proxy: 'nginx', variant: 'article' }, status: ['failed'] },
        { select: { proxy: 'haproxy', variant: 'article' }, status: ['valid'] },
      ],
      rows,
    ).verdict,
    'inconclusive',
  )
})

test('the claim rule over units: fails > missing > undecided > holds', () => {
  const rows = [
    ...reps(m, { proxy: 'haproxy' }, 'rps', [40, 50, 60]),
    ...reps(m, { proxy: 'envoy' }, 'rps', [90, 100, 110]),
    ...reps(m, { proxy: 'caddy' }, 'rps', [5, 6, 7]),
  ]
  const each = (proxies: string[]) =>
    evalCheck(
      { kind: 'threshold', metric: 'rps', select: { series: 'same', variant: 'article' }, for_each: proxies.map((proxy) => ({ proxy })), op: '>', value: 55 },
      { measurements: rows },
    )
  assert.equal(each(['envoy']).verdict, 'reproduced')
  assert.equal(each(['envoy', 'haproxy']).verdict, 'inconclusive')
  assert.equal(each(['haproxy', 'traefik']).verdict, 'not measured')
  assert.equal(each(['haproxy', 'traefik', 'caddy']).verdict, 'not reproduced')
  assert.equal(each(['envoy', 'haproxy']).interval, null, 'several units: no single figure')
})

// ------------------------------------------------------------------ the real ledger against a run

/** The scenarios series at quick's shape: reference, http (also at 1000), logging, /json 10240, and the direct floors. */
function scenarioRows(proxies: readonly string[]): Measurement[] {
  const rows: Measurement[] = []
  for (const proxy of [...proxies, 'direct']) {
    const at =
      proxy === 'direct'
        ? ([
            ['direct', 200, '/'],
            ['direct', 1000, '/'],
            ['direct', 200, '/json'],
          ] as const)
        : ([
            ['pool-added', 200, '/'],
            ['http', 200, '/'],
            ['http', 1000, '/'],
            ['logging', 200, '/'],
            ['pool-added', 200, '/json'],
          ] as const)
    for (const [variant, connections, path] of at) {
      rows.push(
        ...two(
          m,
          {
            proxy,
            series: 'scenarios',
            variant,
            connections,
            path,
            body_bytes: path === '/json' ? 10240 : null,
            scheme: variant === 'pool-added' || variant === 'logging' ? 'https' : 'http',
          },
          'rps',
          10000,
        ),
      )
    }
  }
  return rows
}

/** A run shaped like the harness's quick run: every series, every proxy. */
function syntheticRun(): RunTables {
  const proxies = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
  const measurements: Measurement[] = [...two(m, { proxy: 'direct', variant: 'direct', series: 'direct' }, 'rps', 50000)]
  for (const proxy of proxies) {
    for (const [series, variant] of [
      ['same', 'article'],
      ['pool-added', 'pool-added'],
      ['pool-removed', 'pool-removed'],
      ['tls-ceiling', 'pool-added'],
    ]) {
      measurements.push(...two(m, { proxy, series, variant }, 'rps', 10000))
    }
    for (const key_type of ['ec256', 'rsa4096']) {
      measurements.push(
        ...two(m, {
          proxy,
          series: 'tls-open',
          variant: 'pool-added',
          key_type,
          model: 'open',
          connections: 1000,
          target_rps: 900,
          status: key_type === 'ec256' ? 'valid' : 'invalid',
        }),
      )
    }
  }
  for (const variant of ['reuse-never', 'server-close']) measurements.push(...two(m, { proxy: 'haproxy', series: 'haproxy-reuse', variant }, 'rps', 9000))
  for (const version of ['1.22.1', '1.31.3']) {
    for (const variant of ['literal', 'upstream-default', 'upstream-keepalive'])
      measurements.push(...two(m, { proxy: 'nginx', version, series: 'nginx-keepalive', variant }, 'rps', 8000))
  }
  for (const [i, target] of [800, 1600, 3100, 6200].entries()) {
    measurements.push(
      ...two(m, {
        proxy: 'haproxy',
        series: 'tls-calibration',
        variant: 'pool-added',
        model: 'open',
        connections: 1000,
        target_rps: target,
        status: i < 2 ? 'valid' : 'invalid',
      }),
    )
  }
  measurements.push(...scenarioRows(proxies))
  const handshakes = proxies.flatMap((proxy) =>
    ['ec256', 'rsa2048', 'rsa4096'].flatMap((key_type) => two(h, { proxy, key_type }, 'proxy_cpu_us_per_handshake', key_type === 'ec256' ? 500 : 3000)),
  )
  handshakes.push(
    ...proxies.flatMap((proxy) =>
      (['none', 'tickets'] as const).flatMap((resumption) => two(h, { proxy, series: 'resumption', resumption, resumed: resumption === 'none' ? 0 : 990 })),
    ),
  )
  const websocket = proxies.flatMap((proxy) => [
    ...two(w, { proxy, variant: 'article', ...(proxy === 'nginx' && { status: 'failed', reason: 'upgrade failed: HTTP 400 × 200', conns_established: 0 }) }),
    ...two(w, { proxy, variant: 'ws' }),
    ...(proxy === 'envoy' ? ['ws', 'ws-raised'] : ['ws']).flatMap((variant) =>
      two(w, { proxy, variant, series: 'ws-hold', mode: 'hold', conns_target: 5000, conns_established: variant === 'ws' && proxy === 'envoy' ? 1024 : 5000 }),
    ),
  ])
  const tcp = ['haproxy', 'nginx', 'envoy', 'traefik'].flatMap((proxy) => [
    ...two(tcpRow, { proxy }, 'proxy_cpu_us_per_conn', 80),
    ...two(tcpRow, { proxy, series: 'l4-stream', mode: 'stream', stream_bytes: 16777216, proxy_cpu_us_per_conn: null, proxy_cpu_us_per_mib: 900 }),
  ])
  return { measurements, handshakes, websocket, tcp }
}

const sources: [string, () => RunTables][] = [
  ['a synthetic quick run', syntheticRun],
  ...(existsSync(FIXTURE_RUN) ? [['the committed quick run (test/fixtures/run-quick)', fixtureTables] as [string, () => RunTables]] : []),
]

for (const [name, load] of sources) {
  test(`every claim of claims.yaml evaluates against ${name}`, () => {
    const ledger = loadLedger(PUBLISHED_DIR)
    const results = evaluateClaims(ledger, load())
    assert.equal(results.length, ledger.claims.length)
    for (const [i, r] of results.entries()) {
      const c = ledger.claims[i]!
      assert.equal(r.id, c.id)
      assert.ok(r.measured.length > 0, r.id)
      assert.equal(r.verdict === 'not runnable here', !c.runnable_here, r.id)
      assert.ok(!/NaN|undefined|\[object/.test(r.measured), `${r.id}: ${r.measured}`)
      if (r.verdict === 'reproduced' || r.verdict === 'not reproduced' || r.verdict === 'inconclusive') assert.ok(r.evidence.length > 0, r.id)
      if (r.interval) assert.ok(r.value !== null && !(r.interval.lo > r.value) && !(r.interval.hi < r.value), `${r.id}: ${r.measured}`)
      if (r.verdict === 'not measured')
        assert.match(
          r.measured,
          /no cell|no valid rows|no \w+ value|no failing target|needs at least 2|no two cells|give a reason not matching|no bisect of|bisect of .* is unfinished|no default-key probe of|no ACME default read of/,
          r.id,
        )
      for (const e of r.evidence) assert.ok(['valid', 'invalid', 'failed'].includes(e.status), r.id)
    }
    assert.equal(formatLedger(results).split('\n').length, results.length + 1)
    assert.ok(results.some((r) => r.verdict === 'reproduced'))
  })
}

/** Every series value a check names (sides, select, for_each, status cells, same_order_as). */
function namedSeries(check: Claim['check']): Set<string> {
  const maps: SelectorSpec[] = [...(check.select ?? []), ...(check.for_each ?? []).flatMap((it) => [it, ...(it.a ? [it.a] : []), ...(it.b ? [it.b] : [])])]
  if (check.kind === 'ratio' || check.kind === 'equal' || check.kind === 'contrast') maps.push(...check.a, ...check.b)
  if (check.kind === 'contrast') maps.push(...(check.spread ?? []))
  if (check.kind === 'status') maps.push(...check.cells.flatMap((c) => c.select))
  if (check.kind === 'rank' && check.same_order_as) maps.push(...check.same_order_as.select)
  // A bisect check reads the bisect series' cells of its search; served_key reads default-keys.csv (its source's row series).
  if (check.kind === 'bisect') return new Set(['bisect'])
  if (check.kind === 'served_key') return new Set([KEY_SOURCES[check.source]])
  return new Set(
    maps.flatMap((m) => {
      const v = m.columns.series
      return v === undefined ? [] : typeof v === 'object' && !Array.isArray(v) ? Object.values(v).flat().map(String) : [v].flat().map(String)
    }),
  )
}

for (const [name, load] of sources) {
  test(`series separation: each claim's evidence against ${name} comes only from the series it names`, () => {
    const ledger = loadLedger(PUBLISHED_DIR)
    const results = evaluateClaims(ledger, load())
    let checked = 0
    for (const [i, r] of results.entries()) {
      const c = ledger.claims[i]!
      if (!c.runnable_here) continue
      const named = namedSeries(c.check)
      assert.ok(named.size > 0, `${c.id} names no series`)
      for (const e of r.evidence) {
        assert.ok(named.has(String(e.cell.series)), `${c.id}: evidence from series ${e.cell.series}, named ${[...named].join(', ')}`)
        checked++
      }
    }
    assert.ok(checked > 50, `only ${checked} evidence cells`)
  })
}

test('the fixture: pool-added claims read the pool-added series only, open-model claims the tls-open / tls-calibration cells', () => {
  if (!existsSync(FIXTURE_RUN)) return
  const byId = new Map(evaluateClaims(loadLedger(PUBLISHED_DIR), sources[1]![1]()).map((r) => [r.id, r]))
  const seriesOf = (id: string) => [...new Set(byId.get(id)!.evidence.map((e) => String(e.cell.series)))].sort()
  // The fixture has pool-added cells in both pool-added and tls-ceiling; only the first counts.
  assert.deepEqual(seriesOf('nginx-pool-p99-collapse'), ['pool-added', 'same'])
  // Seed 004's static L7 claims read plain HTTP at 2000 connections, which a quick run lacks:
  // not measured, saying why, and never the TLS pool-added cells in their place.
  for (const id of ['s004-l7-haproxy-leads-nginx', 's004-l7-haproxy-lower-p99', 's004-l7-haproxy-less-cpu-per-request']) {
    assert.equal(byId.get(id)!.verdict, 'not measured', id)
    assert.deepEqual(seriesOf(id), [], id)
    assert.match(byId.get(id)!.measured, /standard and full profiles only/, id)
  }
  assert.deepEqual(seriesOf('nginx-pool-sixfold'), ['pool-added', 'same'])
  assert.deepEqual(seriesOf('rsa4096-fails-everyone'), ['tls-open'])
  assert.deepEqual(seriesOf('open-model-fails-below-capacity'), ['tls-calibration', 'tls-ceiling'])
  assert.deepEqual(seriesOf('rsa4096-collapse-follows-handshake-cost'), ['tls-handshake', 'tls-open'])
  for (const id of [
    'rsa4096-open-model-collapse',
    'rsa4096-fails-everyone',
    'rsa4096-collapse-follows-handshake-cost',
    'april-traefik-cannot-handle-load',
    'open-model-fails-below-capacity',
    'open-model-fails-half-idle',
  ]) {
    assert.notEqual(byId.get(id)!.verdict, 'not measured', id)
  }
  // The article configs in the open model (series same, model open) come from the pooling-open
  // phase: never a pool-added tls-open cell in their place.
  const april = byId.get('april-nginx-last-with-errors')!
  assert.notEqual(april.verdict, 'not measured')
  assert.ok(april.evidence.length > 0 && april.evidence.every((e) => e.cell.series === 'same' && e.cell.variant === 'article' && e.cell.model === 'open'))
  // HAProxy at its own rate (series same-own-rate) is a phase the fixture run predates: not measured,
  // and never pooling-open's cell (one rate for all, from the lowest ceiling) in its place.
  const s001 = byId.get('s001-haproxy-holds-50k')!
  assert.equal(s001.verdict, 'not measured')
  assert.deepEqual(s001.evidence, [])
  const ws = byId.get('ws-nginx-article-config-fails')!
  assert.equal(ws.verdict, 'reproduced')
  assert.match(ws.measured, /"upgrade failed: HTTP 400 × 200"/)
})

test('evaluating the same run twice gives the same results (no state kept between calls)', () => {
  const ledger = loadLedger(PUBLISHED_DIR)
  const data = syntheticRun()
  assert.deepEqual(evaluateClaims(ledger, data), evaluateClaims(ledger, data))
})

test('same: [connections] pairs side b with the count side a was measured at; a side a spread over counts is not measured', () => {
  const cell = (variant: string, connections: number, cpu: number) => two(m, { series: 'scenarios', variant, connections }, 'proxy_cpu_us_per_req', cpu)
  const check = {
    kind: 'ratio',
    metric: 'proxy_cpu_us_per_req',
    select: { series: 'scenarios', proxy: 'haproxy' },
    a: { variant: 'pool-added' },
    b: { variant: 'http' },
    same: ['connections'],
    min: 2,
    max: 3,
  }
  // http at 200 gives 2.5; http at 1000 would give 1.25 (and pooled with it, the median of both).
  const rows = [...cell('pool-added', 200, 50), ...cell('http', 200, 20), ...cell('http', 1000, 40)]
  const r = evalCheck(check, { measurements: rows })
  assert.equal(r.verdict, 'reproduced')
  assert.deepEqual(
    r.evidence.map((e) => [e.cell.variant, e.cell.connections]),
    [
      ['pool-added', 200],
      ['http', 200],
    ],
  )
  // The same rows at another profile's count (50): no count written in the check.
  assert.equal(evalCheck(check, { measurements: rows.map((x) => ({ ...x, connections: x.connections === 200 ? 50 : x.connections })) }).verdict, 'reproduced')
  // Without same, b pools both http cells: the wrong pair, and here a refutation.
  const { same: _, ...unpaired } = check
  assert.equal(evalCheck(unpaired, { measurements: rows }).verdict, 'not reproduced')
  // b has no cell at a's count: not measured, naming the count.
  const lone = evalCheck(check, { measurements: [...cell('pool-added', 200, 50), ...cell('http', 1000, 20)] })
  assert.equal(lone.verdict, 'not measured')
  assert.match(lone.measured, /no cell \{series: scenarios, proxy: haproxy, variant: http, connections: 200\}/)
  // a spread over two counts has no one count to pair with.
  const spread = evalCheck(check, { measurements: [...cell('pool-added', 200, 50), ...cell('pool-added', 1000, 50), ...cell('http', 200, 20)] })
  assert.equal(spread.verdict, 'not measured')
  assert.match(spread.measured, /side a's cells differ in connections \(200, 1000\)/)
  // A value that breaks the band still fails when paired.
  assert.equal(
    evalCheck(check, { measurements: [...cell('pool-added', 200, 30), ...cell('http', 200, 20), ...cell('http', 1000, 12)] }).verdict,
    'not reproduced',
  )
})
