import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { stringify } from 'yaml'
import { cellStatus } from '../lib/claims/cells.ts'
import { evaluateClaims, type ClaimResult } from '../lib/claims/evaluate.ts'
import type { RunTables } from '../lib/data/run-data.ts'
import { evalNumber, ExprError, parseExpr } from '../lib/claims/expr.ts'
import { formatLedger } from '../lib/claims/format.ts'
import { CLAIM_SERIES, loadLedger, PUBLISHED_DIR, type Claim, type SelectorSpec } from '../lib/claims/ledger.ts'
import type { Handshake, Measurement, WebSocketRow } from '../lib/data/schema.ts'
import { HANDSHAKES, MEASUREMENTS, readTable, WEBSOCKETS } from '../lib/data/tables.ts'
import { UserError } from '../lib/core/errors.ts'
import { repoRoot } from '../lib/core/paths.ts'
import { poolingCells } from '../lib/series/pooling.ts'
import { PROXIES } from '../lib/catalog/stack.ts'
import { tlsSeries } from '../lib/series/tls.ts'
import { versionsSeries } from '../lib/series/versions.ts'
import { wsSeries } from '../lib/series/ws.ts'

// ------------------------------------------------------------------ rows with every column filled

const VERSIONS: Record<string, string> = { haproxy: '2.8.25', nginx: '1.31.3', envoy: '1.40.0', traefik: '3.7.15', caddy: '2.11.7', direct: 'abc' }

function m(f: Partial<Measurement>): Measurement {
  const proxy = f.proxy ?? 'haproxy'
  return {
    run_id: 't', series: 'same', proxy, version: VERSIONS[proxy]!, variant: 'article', key_type: 'ec256', model: 'closed', connections: 200, target_rps: null,
    duration_s: 3, repeat: 1, requests: 10000, errors: 0, rps: 1000, p50_ms: 1, p90_ms: 2, p99_ms: 3, p999_ms: 4, max_ms: 5, proxy_cpu_us_per_req: 50,
    backend_cpu_us_per_req: 20, generator_cpu_share: 0.3, backend_conns_per_1k_req: 0, max_vus: null, dropped: null, status: 'valid', reason: '',
    proxy_cpu_share: 0.9, runtime: 'native', started_at: '2026-11-30T00:00:00Z', ...f,
  }
}

function h(f: Partial<Handshake>): Handshake {
  const proxy = f.proxy ?? 'haproxy'
  return {
    run_id: 't', series: 'tls-handshake', proxy, version: VERSIONS[proxy]!, variant: 'pool-added', key_type: 'ec256', connections: 4, duration_s: 3, repeat: 1,
    handshakes: 1000, resumed: 0, errors: 0, rate: 300, p50_ms: 1, p99_ms: 2, proxy_cpu_us_per_handshake: 500, generator_cpu_share: 0.2, proxy_cpu_share: 0.9,
    status: 'valid', reason: '', runtime: 'native', started_at: '2026-11-30T00:00:00Z', ...f,
  }
}

function w(f: Partial<WebSocketRow>): WebSocketRow {
  const proxy = f.proxy ?? 'haproxy'
  return {
    run_id: 't', series: 'ws-echo', proxy, version: VERSIONS[proxy]!, variant: 'ws', mode: 'echo', conns_target: 200, conns_established: 200, messages: 10000,
    msg_rate: 3000, proxy_cpu_us_per_msg: 30, p50_ms: 1, p99_ms: 5, status: 'valid', reason: '', repeat: 1, duration_s: 3, survived: null, refused: null,
    closed_early: null, max_ms: 9, generator_cpu_share: 0.2, runtime: 'native', started_at: '2026-11-30T00:00:00Z', ...f,
  }
}

/** Two repeats of a cell (values slightly apart, the median is the given value). */
const two = <T extends { repeat: number }>(make: (f: Partial<T>) => T, f: Partial<T>, metric?: keyof T, value?: number): T[] =>
  [0.99, 1.01].map((k, i) => make({ ...f, repeat: i + 1, ...(metric && value !== undefined ? { [metric]: value * k } : {}) } as Partial<T>))

const run = (r: Partial<RunTables>): RunTables => ({ measurements: [], handshakes: [], websocket: [], ...r })

// ------------------------------------------------------------------ a small ledger written to a temp dir

const FIGURES = [
  { id: 's000-six', value: 6 },
  { id: 's000-ten', value: 10 },
  { id: 's000-five-pct', value: 5 },
  { id: 's000-a-range', value: '2-3' },
].map((f) => ({ id: f.id, source: '000_ad6047c3dfc67502.txt', quote: 'q', meaning: 'm', proxy: null, version: null, metric: 'ratio', value: f.value, unit: 'x', conditions: {} }))

function writeLedger(claims: Record<string, unknown>[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-claims-'))
  writeFileSync(join(dir, 'figures.yaml'), stringify(FIGURES))
  writeFileSync(join(dir, 'claims.yaml'), stringify(claims))
  return dir
}

function claimOf(check: Record<string, unknown>, extra: Record<string, unknown> = {}, i = 0): Record<string, unknown> {
  return {
    id: `test-claim-${i}`, source: '000_ad6047c3dfc67502.txt', quote: 'q', claim: 'c', published: 'p', figures: [], finding: null, condition: 'x', runnable_here: true,
    check: { expect: 'rule', expect_basis: 'project', ...check }, comparable_across_machines: true, ...extra,
  }
}

/** Evaluates one check against rows. */
function evalCheck(check: Record<string, unknown>, data: Partial<RunTables>, extra: Record<string, unknown> = {}): ClaimResult {
  return evaluateClaims(loadLedger(writeLedger([claimOf(check, extra)])), run(data))[0]!
}

// ------------------------------------------------------------------ expressions

test('expressions: precedence, left associativity, parentheses, unary minus, figure ids with hyphens', () => {
  const f = new Map(FIGURES.map((x) => [x.id, x]))
  assert.equal(evalNumber('1 + 2 * 3', f), 7)
  assert.equal(evalNumber('(1 + 2) * 3', f), 9)
  assert.equal(evalNumber('10 - 3 - 2', f), 5)
  assert.equal(evalNumber('8 / 4 / 2', f), 1)
  assert.equal(evalNumber('- 2 * 3', f), -6)
  assert.equal(evalNumber('s000-ten - s000-six', f), 4)
  assert.ok(Math.abs(evalNumber('(s000-ten / s000-six) / (s000-six / s000-ten)', f) - 100 / 36) < 1e-12)
  assert.equal(evalNumber('1 + s000-five-pct / 100', f), 1.05)
  assert.equal(evalNumber('2.5e3', f), 2500)
  assert.equal(evalNumber(0.25, f), 0.25)
  assert.deepEqual(parseExpr('(s000-six)'), { kind: 'id', id: 's000-six' })
  assert.deepEqual(parseExpr('1 - 2 * 3'), {
    kind: 'bin', op: '-', left: { kind: 'num', value: 1 }, right: { kind: 'bin', op: '*', left: { kind: 'num', value: 2 }, right: { kind: 'num', value: 3 } },
  })
})

test('expressions: unknown ids, non-numeric figures, missing spaces and bad syntax are errors', () => {
  const f = new Map(FIGURES.map((x) => [x.id, x]))
  assert.throws(() => evalNumber('s000-nope * 2', f), (e: Error) => e instanceof ExprError && /unknown figure id "s000-nope"/.test(e.message))
  assert.throws(() => evalNumber('s000-a-range', f), /figure "s000-a-range" is not a number/)
  assert.throws(() => evalNumber('s000-ten-1', f), /unknown figure id "s000-ten-1"/)
  assert.throws(() => evalNumber('10-1', f), /neither a number nor a figure id \(write operators with spaces/)
  assert.throws(() => evalNumber('(1 + 2', f), /without its "\)"/)
  assert.throws(() => evalNumber('1 +', f), /ends where a number/)
  assert.throws(() => evalNumber('1 2', f), /unexpected "2"/)
  assert.throws(() => evalNumber('', f), /empty/)
  assert.throws(() => evalNumber('1 / 0', f), /not a finite number/)
  assert.throws(() => evalNumber('eval(1)', f), ExprError)
})

// ------------------------------------------------------------------ loading

test('the published ledger loads: every claim, figure and expression is well-formed', () => {
  const ledger = loadLedger()
  assert.equal(ledger.claims.length, 53)
  assert.equal(ledger.figures.size, 317)
  assert.equal(new Set(ledger.claims.map((c) => c.id)).size, 53)
  const c = ledger.claims.find((x) => x.id === 'pool-removed-pit')!
  assert.equal(c.check.kind, 'spread')
  assert.equal(c.check.table, 'measurements')
  assert.equal(c.check.rows, 'valid')
})

test('a malformed claims file is a one-line error naming file:line, what and the fix', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { proxy: 'haproxy' }, approx: 's000-sixx', tolerance: 0.25 }, /check\.approx: unknown figure id "s000-sixx"/],
    [{ kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { value: 's000-six-1' } }, /check\.b.*unknown figure id "s000-six-1"/],
    [{ kind: 'ratios', metric: 'rps' }, /check\.kind: Invalid discriminator value/],
    [{ kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { proxy: 'haproxy' }, approx: 2 }, /approx needs a tolerance/],
    [{ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx', tls: true }, op: '<', value: 1 }, /"tls" is not a selector column of measurements/],
    [{ kind: 'threshold', metric: 'rpm', select: { series: 'same', proxy: 'nginx' }, op: '<', value: 1 }, /"rpm" is not a metric of measurements/],
    [{ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'ngnix' }, op: '<', value: 1 }, /unknown proxy "ngnix"/],
    [{ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx', version: 1.27 }, op: '<', value: 1 }, /version 1\.27 must be a quoted string/],
    [{ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx' }, op: '<', value: 1, tolerence: 0.1 }, /Unrecognized key\(s\) in object: 'tolerence'/],
    [{ kind: 'count', table: 'measurements', metric: 'rps', select: { series: 'same', proxy: 'nginx' }, value: 'conns_target' }, /conns_target is a column of the websocket table only/],
    // Series: every side of a runnable claim names one the harness writes to that table.
    [{ kind: 'threshold', metric: 'rps', select: { proxy: 'nginx', variant: 'pool-added' }, op: '<', value: 1 }, /check\.select: no series: name the series whose cells this side reads \(one of same, pool-added/],
    [{ kind: 'ratio', metric: 'rps', a: { series: 'pool-added', proxy: 'nginx' }, b: { proxy: 'nginx' }, min: 1 }, /check\.b: no series/],
    [{ kind: 'ratio', metric: 'rps', select: [{ series: 'same' }, { proxy: 'haproxy' }], a: { proxy: 'nginx' }, b: { proxy: 'nginx' }, min: 1 }, /check\.a: no series/],
    [{ kind: 'threshold', metric: 'rps', select: { series: 'pool_added', proxy: 'nginx' }, op: '<', value: 1 }, /check\.select\.series: "pool_added" is not a series of measurements/],
    [{ kind: 'threshold', table: 'handshakes', metric: 'rate', select: { series: 'tls-open', proxy: 'nginx' }, op: '<', value: 1 }, /"tls-open" is not a series of handshakes \(one of tls-handshake\)/],
    [{ kind: 'rank', metric: 'rps', by: 'desc', select: { series: { nginx: 'same', haproxy: 'reuse' } }, positions: { nginx: [1] } }, /check\.select\.series: "reuse" is not a series of measurements/],
    [{ kind: 'ratio', metric: 'rps', select: { series: 'same' }, for_each: [{ series: 'ws-echo' }], a: { proxy: 'nginx' }, b: { proxy: 'nginx' }, min: 1 }, /check\.for_each\.0\.series: "ws-echo" is not a series of measurements/],
    [{ kind: 'rank', metric: 'rps', by: 'desc', select: { series: 'same' }, same_order_as: { table: 'handshakes', metric: 'rate', select: { key_type: 'rsa4096' }, by: 'asc' } }, /check\.same_order_as\.select: no series/],
    [{ kind: 'status', cells: [{ select: { proxy: 'nginx' }, status: ['failed'] }] }, /check\.cells\.0\.select: no series/],
    // reason: a regular expression.
    [{ kind: 'status', table: 'websocket', cells: [{ select: { series: 'ws-echo', proxy: 'nginx' }, status: ['failed'], reason: '^upgrade (failed' }] }, /check\.cells\.0\.reason: not a regular expression/],
  ]
  for (const [check, what] of cases) {
    const dir = writeLedger([claimOf({ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx' }, op: '<', value: 1 }, {}, 1), claimOf(check, {}, 2)])
    const file = join(dir, 'claims.yaml')
    const err = (() => {
      try {
        loadLedger(dir)
      } catch (e) {
        return e as Error
      }
      return undefined
    })()
    assert.ok(err instanceof UserError, `${JSON.stringify(check)} loads`)
    assert.ok(!err.message.includes('\n'), err.message)
    const m = new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+): `).exec(err.message)
    assert.ok(m, err.message)
    // The line is inside the second claim, which starts after the first one.
    const lines = readFileSync(file, 'utf8').split('\n')
    const second = lines.findIndex((l) => l.includes('test-claim-2')) + 1
    assert.ok(Number(m[1]) >= second, `${err.message} (second claim starts at ${second})`)
    assert.match(err.message, what)
    assert.match(err.message, /Fix the claim as the header of claims\.yaml describes/)
  }
})

test('a claim not runnable here may name columns the harness lacks, but needs its reason', () => {
  const check = { kind: 'threshold', table: 'handshakes', metric: 'resumed', select: { proxy: 'nginx', resumption_offered: true }, op: '==', value: 0 }
  const r = evalCheck(check, {}, { runnable_here: false, not_runnable_reason: 'no resumption series' })
  assert.equal(r.verdict, 'not runnable here')
  assert.equal(r.measured, 'no resumption series')
  assert.throws(() => loadLedger(writeLedger([claimOf(check, { runnable_here: false })])), /runnable_here: false needs not_runnable_reason/)
  assert.throws(() => loadLedger(writeLedger([claimOf(check)])), /"resumption_offered" is not a selector column of handshakes/)
  // Without series too: the series rule is for runnable claims.
  assert.doesNotThrow(() => loadLedger(writeLedger([claimOf({ ...check, select: { proxy: 'nginx', tuned: true } }, { runnable_here: false, not_runnable_reason: 'no tuned variant' })])))
})

// ------------------------------------------------------------------ cells

test('cell status: the most common status of the rows, a tie goes to the worse one', () => {
  const s = (...xs: ('valid' | 'invalid' | 'failed')[]) => cellStatus(xs.map((status) => ({ status })))
  assert.equal(s('valid', 'valid', 'invalid'), 'valid')
  assert.equal(s('valid', 'invalid'), 'invalid')
  assert.equal(s('invalid', 'failed'), 'failed')
  assert.equal(s('valid', 'failed', 'invalid'), 'failed')
  assert.equal(s('failed', 'failed', 'valid', 'valid', 'valid'), 'valid')
})

test('a cell value is the median over valid rows (all rows with rows: all); excluded rows and single repeats are warnings', () => {
  const rows = [
    m({ proxy: 'nginx', repeat: 1, rps: 100 }), m({ proxy: 'nginx', repeat: 2, rps: 300 }), m({ proxy: 'nginx', repeat: 3, rps: 5, status: 'invalid' }),
    m({ proxy: 'haproxy', rps: 100 }),
  ]
  const check = { kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx' }, b: { proxy: 'haproxy' }, min: 1.9, max: 2.1 }
  const valid = evalCheck(check, { measurements: rows })
  assert.equal(valid.verdict, 'reproduced')
  assert.match(valid.measured, /^r = 2 \(nginx article 200 \/ haproxy article 100 rps\); wanted 1\.9\.\.2\.1$/)
  assert.deepEqual(valid.warnings, ['nginx 1.31.3 article: invalid rows excluded: 1', 'haproxy 2.8.25 article: 1 repeat'])
  const nginx = valid.evidence.find((e) => e.cell.proxy === 'nginx')!
  assert.deepEqual(nginx, {
    table: 'measurements', cell: { series: 'same', proxy: 'nginx', version: '1.31.3', variant: 'article', key_type: 'ec256', model: 'closed', connections: 200, target_rps: null },
    value: 200, n: 2, status: 'valid',
  })
  const all = evalCheck({ ...check, rows: 'all' }, { measurements: rows })
  assert.equal(all.verdict, 'not reproduced')
  assert.match(all.measured, /^r = 1 \(nginx article 100 /)
})

test('the derived metric errors_pct = 100 * errors / (requests + errors)', () => {
  const rows = [m({ proxy: 'traefik', requests: 670, errors: 330, status: 'invalid' })]
  const r = evalCheck({ kind: 'threshold', metric: 'errors_pct', rows: 'all', select: { series: 'same', proxy: 'traefik' }, op: '>=', value: 1 }, { measurements: rows })
  assert.equal(r.verdict, 'reproduced')
  assert.equal(r.evidence[0]!.value, 33)
  assert.match(r.measured, /traefik article: 33%; wanted >= 1/)
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
  const ratio = (a: object, b: object) => evalCheck({ kind: 'ratio', metric: 'rps', a: { proxy: 'nginx', variant: 'pool-added', ...a }, b: { proxy: ['nginx', 'haproxy'], variant: 'article', series: 'same', ...b }, min: 2 }, { measurements: rows })
  const r = ratio({ series: 'pool-added' }, {})
  // a: only the pool-added series' cell (300), not tls-ceiling's; b: same series only, median of nginx 100 and haproxy 300 = 200.
  assert.equal(r.verdict, 'not reproduced')
  assert.match(r.measured, /^r = 1\.5 \(nginx pool-added 300 \/ nginx\+haproxy article \(median of 2 cells\) 200 rps\)/)
  assert.deepEqual(r.evidence.map((e) => `${e.cell.series} ${e.cell.proxy}`), ['pool-added nginx', 'same nginx', 'same haproxy'])
  // The other series alone: tls-ceiling's cell, named in the label as its variant does not tell it.
  const ceiling = ratio({ series: 'tls-ceiling' }, {})
  assert.match(ceiling.measured, /^r = 2\.5 \(nginx pool-added tls-ceiling 500 \//)
  assert.equal(ceiling.verdict, 'reproduced')
  // A list of series pools them on purpose (median of 300 and 500).
  assert.match(ratio({ series: ['pool-added', 'tls-ceiling'] }, {}).measured, /^r = 2 \(nginx pool-added pool-added\+tls-ceiling \(median of 2 cells\) 400 \//)
  // versions: "newest" is per series, so b of the versions series is its own newest nginx (900), not same's.
  const versions = ratio({ series: 'pool-added' }, { proxy: 'nginx', series: 'versions' })
  assert.match(versions.measured, /^r = 0\.333 \(nginx pool-added 300 \/ nginx article versions 900 rps\)/)
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
  const ratio = (a: object, b: object) => evalCheck({ kind: 'ratio', metric: 'rps', select: { series: 'same' }, a: { proxy: 'nginx', variant: 'literal', ...a }, b: { proxy: 'nginx', variant: 'literal', ...b }, min: 0 }, { measurements: rows })
  assert.match(ratio({ version: '<1.29.7', agg: 'min' }, { version: '>=1.29.7', agg: 'max' }).measured, /^r = 2 \(nginx 1\.22\.1\+1\.27\.4 literal \(min of 2 cells\) 500 \/ nginx 1\.29\.7\+1\.31\.3 literal \(max of 2 cells\) 250 rps\)/)
  assert.match(ratio({ version: '<1.29.7', agg: 'max' }, {}).measured, /^r = 2\.4 \(.* 600 \/ nginx literal 250 rps\)/, 'left out = newest')
  assert.match(ratio({ version: 'v1.27.4' }, { version: 'newest' }).measured, /^r = 2 \(nginx 1\.27\.4 literal 500 \/ nginx 1\.31\.3 literal 250/)
  assert.match(ratio({ version: '<=1.29.7', agg: 'newest' }, { version: '1.29.7' }).measured, /^r = 1 \(/)
  assert.match(ratio({ version: '<1.29.7' }, { version: '>1.29.7' }).measured, /^r = 2\.2 \(nginx 1\.22\.1\+1\.27\.4 literal \(median of 2 cells\) 550 \/ nginx 1\.31\.3 literal 250/)
  // newest is per selector: upstream-default exists only on 1.22.1, which is then its newest.
  const up = evalCheck({ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'nginx', variant: 'upstream-default' }, op: '==', value: 700 }, { measurements: rows })
  assert.equal(up.verdict, 'reproduced')
  assert.equal(ratio({ version: '1.25.0' }, {}).verdict, 'not measured')
})

test('selectors: a value may be a map keyed by proxy; a proxy absent from the map does not match', () => {
  const rows = [
    ...two(m, { proxy: 'haproxy', variant: 'server-close' }, 'rps', 100), ...two(m, { proxy: 'haproxy', variant: 'article' }, 'rps', 900),
    ...two(m, { proxy: 'nginx', variant: 'upstream-default' }, 'rps', 200), ...two(m, { proxy: 'nginx', variant: 'article' }, 'rps', 50),
    ...two(m, { proxy: 'traefik', variant: 'article' }, 'rps', 300), ...two(m, { proxy: 'caddy', variant: 'article' }, 'rps', 1000),
  ]
  const r = evalCheck({ kind: 'rank', metric: 'rps', by: 'desc', select: { series: 'same', variant: { traefik: 'article', nginx: 'upstream-default', haproxy: 'server-close' } }, positions: { traefik: [1], nginx: [2], haproxy: [-1] } }, { measurements: rows })
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /^by rps desc: traefik 300 > nginx 200 > haproxy 100; wanted traefik 1st, nginx 2nd, haproxy last$/)
  // Per-proxy versions: each proxy's own.
  const v = evalCheck({ kind: 'threshold', metric: 'rps', select: { series: 'same', proxy: 'haproxy', variant: 'article', version: { haproxy: '2.8.25', nginx: '9.9.9' } }, op: '==', value: 900 }, { measurements: rows })
  assert.equal(v.verdict, 'reproduced')
})

test('selectors: pick lowest-failing-target and a metric override per side', () => {
  const open = (target: number, status: 'valid' | 'invalid', share: number) =>
    two(m, { proxy: 'haproxy', series: 'tls-calibration', variant: 'pool-added', model: 'open', connections: 1000, target_rps: target, status, proxy_cpu_share: share })
  const rows = [...open(1000, 'valid', 0.1), ...open(2000, 'valid', 0.2), ...open(4000, 'invalid', 0.45), ...open(8000, 'invalid', 0.9), ...two(m, { proxy: 'haproxy', series: 'tls-ceiling', variant: 'pool-added' }, 'rps', 10000)]
  const r = evalCheck({
    kind: 'ratio', rows: 'all', a: { series: 'tls-ceiling', proxy: 'haproxy', model: 'closed', metric: 'rps' }, b: { series: 'tls-calibration', proxy: 'haproxy', model: 'open', pick: 'lowest-failing-target', metric: 'target_rps' }, min: 2,
  }, { measurements: rows })
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /^r = 2\.5 \(haproxy pool-added tls-ceiling 10,000 \/ haproxy pool-added tls-calibration open@4000 4,000 rps\); wanted >= 2$/)
  const idle = evalCheck({ kind: 'threshold', metric: 'proxy_cpu_share', rows: 'all', select: { series: 'tls-calibration', proxy: 'haproxy', model: 'open', pick: 'lowest-failing-target' }, op: '<=', value: 0.625 }, { measurements: rows })
  assert.equal(idle.verdict, 'reproduced')
  assert.equal(idle.evidence[0]!.cell.target_rps, 4000)
  // Nothing failed: the lowest failing target was not measured.
  const none = evalCheck({ kind: 'threshold', metric: 'proxy_cpu_share', rows: 'all', select: { series: 'tls-calibration', proxy: 'haproxy', model: 'open', pick: 'lowest-failing-target' }, op: '<=', value: 1 }, { measurements: rows.filter((x) => x.status === 'valid') })
  assert.equal(none.verdict, 'not measured')
  assert.match(none.measured, /no failing target among the 2 cells/)
})

test('selectors: a constant side from published figures; keys of select apply to a and b but not to a constant', () => {
  const rows = two(m, { proxy: 'haproxy' }, 'proxy_cpu_us_per_req', 18)
  const r = evalCheck({
    kind: 'ratio', metric: 'proxy_cpu_us_per_req', select: { model: 'closed' }, a: { value: 's000-ten * s000-six * 3' }, b: { series: 'same', proxy: 'haproxy' }, approx: 's000-ten', tolerance: 0.25,
  }, { measurements: rows })
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /^r = 10 \(published 180 \/ haproxy article 18 µs\/req\); wanted 7\.5\.\.12\.5 \(≈ 10 ±25%\)$/)
})

test('selectors: a list of selectors is the union of their cells', () => {
  const rows = [
    ...two(m, { proxy: 'haproxy', variant: 'pool-removed' }, 'proxy_cpu_us_per_req', 110), ...two(m, { proxy: 'envoy', variant: 'pool-removed' }, 'proxy_cpu_us_per_req', 120),
    ...two(m, { proxy: 'nginx', variant: 'article' }, 'proxy_cpu_us_per_req', 130), ...two(m, { proxy: 'nginx', variant: 'pool-removed' }, 'proxy_cpu_us_per_req', 500),
  ]
  const r = evalCheck({ kind: 'spread', metric: 'proxy_cpu_us_per_req', select: [{ series: 'same', variant: 'pool-removed', proxy: ['haproxy', 'envoy'] }, { series: 'same', variant: 'article', proxy: 'nginx' }], max: 0.2 }, { measurements: rows })
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /^s = 0\.182 \(haproxy 110, envoy 120, nginx 130 µs\/req\); wanted <= 0\.2$/)
})

test('for_each: the check runs per item (select < item < a/b) and holds only if every item holds', () => {
  const rows = ['rsa2048', 'rsa4096'].flatMap((kt) => [
    ...two(h, { proxy: 'traefik', key_type: kt }, 'proxy_cpu_us_per_handshake', kt === 'rsa2048' ? 2000 : 8000),
    ...two(h, { proxy: 'nginx', key_type: kt }, 'proxy_cpu_us_per_handshake', kt === 'rsa2048' ? 1000 : 2000),
  ])
  const check = { kind: 'ratio', table: 'handshakes', metric: 'proxy_cpu_us_per_handshake', select: { series: 'tls-handshake' }, a: { proxy: 'traefik' }, b: { proxy: 'nginx' }, for_each: [{ key_type: 'rsa2048' }, { key_type: 'rsa4096' }], approx: 2, tolerance: 0.25 }
  const r = evalCheck(check, { handshakes: rows })
  assert.equal(r.verdict, 'not reproduced')
  assert.match(r.measured, /^rsa2048: r = 2 \(traefik pool-added rsa2048 2,000 \/ nginx pool-added rsa2048 1,000 µs\/handshake\).*; rsa4096: r = 4 /)
  // The side wins over the item: a pinned to rsa2048 in both items.
  const pinned = evalCheck({ ...check, a: { proxy: 'traefik', key_type: 'rsa2048' }, b: { proxy: 'nginx', key_type: 'rsa2048' } }, { handshakes: rows })
  assert.equal(pinned.verdict, 'reproduced')
  // An item overrides select.
  const sel = evalCheck({ kind: 'threshold', table: 'handshakes', metric: 'proxy_cpu_us_per_handshake', select: { proxy: 'nginx', key_type: 'rsa4096' }, for_each: [{ series: 'tls-handshake', key_type: 'rsa2048' }], op: '==', value: 1000 }, { handshakes: rows })
  assert.equal(sel.verdict, 'reproduced')
})

// ------------------------------------------------------------------ check kinds

test('ratio: min / max bounds and approx ± tolerance', () => {
  const rows = [...two(m, { proxy: 'nginx', series: 'pool-added', variant: 'pool-added' }, 'rps', 600), ...two(m, { proxy: 'nginx', variant: 'article' }, 'rps', 100)]
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
  const eq = (tolerance: number | string) => evalCheck({ kind: 'equal', metric: 'rps', select: { series: 'same' }, a: { variant: 'reuse-never' }, b: { variant: 'article' }, tolerance }, { measurements: rows })
  assert.equal(eq('s000-five-pct / 100').verdict, 'reproduced')
  assert.match(eq(0.05).measured, /^a\/b = 1\.04 \(haproxy reuse-never 233 \/ haproxy article 223 rps\); wanted 0\.95\.\.1\.05 \(±5%\)$/)
  assert.equal(eq(0.04).verdict, 'not reproduced')
})

test('spread: one value per proxy, max / min - 1 <= max; fewer than 2 cells is not measured', () => {
  const rows = [...two(w, { proxy: 'haproxy' }, 'proxy_cpu_us_per_msg', 30), ...two(w, { proxy: 'envoy' }, 'proxy_cpu_us_per_msg', 36)]
  const spread = (max: number | string, proxy: string[] = ['haproxy', 'envoy'], data = rows) =>
    evalCheck({ kind: 'spread', table: 'websocket', metric: 'proxy_cpu_us_per_msg', select: { series: 'ws-echo', mode: 'echo', variant: 'ws', proxy }, max }, { websocket: data })
  assert.equal(spread('s000-five-pct * 3 / 100').verdict, 'not reproduced')
  assert.equal(spread(0.2).verdict, 'reproduced')
  assert.match(spread(0.2).measured, /^s = 0\.2 \(haproxy 30, envoy 36 µs\/msg\); wanted <= 0\.2$/)
  assert.equal(spread(0.2, ['haproxy']).verdict, 'not measured')
  assert.equal(spread(0.2, ['haproxy', 'envoy', 'caddy']).verdict, 'not measured')
})

test('rank: positions (1-based, negative from the end) and same_order_as', () => {
  const rows = [
    ...two(m, { proxy: 'haproxy' }, 'rps', 500), ...two(m, { proxy: 'traefik' }, 'rps', 400), ...two(m, { proxy: 'envoy' }, 'rps', 300),
    ...two(m, { proxy: 'caddy' }, 'rps', 200), ...two(m, { proxy: 'nginx' }, 'rps', 100),
  ]
  const five = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
  const rank = (positions: object, data = rows) => evalCheck({ kind: 'rank', metric: 'rps', by: 'desc', select: { series: 'same', variant: 'article', proxy: five }, positions }, { measurements: data })
  assert.equal(rank({ haproxy: [1], traefik: [2, 3], nginx: [-1] }).verdict, 'reproduced')
  const bad = rank({ haproxy: [1], traefik: [3], nginx: [-2] })
  assert.equal(bad.verdict, 'not reproduced')
  assert.match(bad.measured, /traefik is 2nd, wanted 3rd; nginx is 5th \(last\), wanted 4th/)
  assert.equal(rank({ haproxy: [1] }, rows.filter((r) => r.proxy !== 'caddy')).verdict, 'not measured', 'a missing proxy changes every place')

  const hs = [
    ...two(h, { proxy: 'haproxy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 4000), ...two(h, { proxy: 'traefik', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 6000),
    ...two(h, { proxy: 'envoy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 5000), ...two(h, { proxy: 'caddy', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 7000),
    ...two(h, { proxy: 'nginx', key_type: 'rsa4096' }, 'proxy_cpu_us_per_handshake', 8000), ...two(h, { proxy: 'nginx', key_type: 'ec256' }, 'proxy_cpu_us_per_handshake', 1),
  ]
  const order = (data: Handshake[]) => evalCheck({
    kind: 'rank', metric: 'rps', by: 'desc', select: { series: 'same', variant: 'article', proxy: five },
    same_order_as: { table: 'handshakes', metric: 'proxy_cpu_us_per_handshake', select: { series: 'tls-handshake', key_type: 'rsa4096' }, by: 'asc' },
  }, { measurements: rows, handshakes: data })
  const same = order(hs)
  assert.equal(same.verdict, 'not reproduced')
  assert.match(same.measured, /by rps desc: haproxy 500 > traefik 400 > envoy 300 > caddy 200 > nginx 100; by proxy_cpu_us_per_handshake asc: haproxy 4,000 < envoy 5,000 < traefik 6,000/)
  const swapped = hs.map((r) => (r.proxy === 'envoy' ? { ...r, proxy_cpu_us_per_handshake: r.proxy_cpu_us_per_handshake! + 1500 } : r.proxy === 'traefik' ? { ...r, proxy_cpu_us_per_handshake: r.proxy_cpu_us_per_handshake! - 1000 } : r))
  assert.equal(order(swapped).verdict, 'reproduced')
  assert.equal(order(hs.filter((r) => r.proxy !== 'caddy')).verdict, 'not measured')
})

test('threshold: v <op> value for each operator', () => {
  const rows = two(m, { proxy: 'traefik' }, 'errors', 0)
  const t = (op: string, value: number) => evalCheck({ kind: 'threshold', metric: 'errors', rows: 'all', select: { series: 'same', proxy: 'traefik' }, op, value }, { measurements: rows }).verdict
  assert.equal(t('==', 0), 'reproduced')
  assert.equal(t('<', 1), 'reproduced')
  assert.equal(t('<=', 0), 'reproduced')
  assert.equal(t('>', 0), 'not reproduced')
  assert.equal(t('>=', 1), 'not reproduced')
})

test('status: every matched cell has an allowed status; a refuting cell wins over a missing one', () => {
  const rows = [
    ...two(m, { proxy: 'traefik', model: 'open', key_type: 'rsa4096', target_rps: 900, status: 'invalid' }),
    m({ proxy: 'traefik', model: 'open', key_type: 'ec256', target_rps: 900, repeat: 1 }), m({ proxy: 'traefik', model: 'open', key_type: 'ec256', target_rps: 900, repeat: 2, status: 'invalid' }),
    m({ proxy: 'traefik', model: 'open', key_type: 'ec256', target_rps: 900, repeat: 3 }),
  ]
  const check = (cells: object[]) => evalCheck({ kind: 'status', rows: 'all', select: { series: 'same' }, cells }, { measurements: rows })
  const r = check([
    { select: { proxy: 'traefik', model: 'open', key_type: 'rsa4096' }, status: ['invalid', 'failed'] },
    { select: { proxy: 'traefik', model: 'open', key_type: 'ec256' }, status: ['valid'] },
  ])
  assert.equal(r.verdict, 'reproduced')
  assert.match(r.measured, /traefik 3\.7\.15 article rsa4096 open@900: invalid; wanted invalid or failed; traefik 3\.7\.15 article open@900: valid \(2 valid, 1 invalid\); wanted valid/)
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
    evalCheck({ kind: 'status', table: 'websocket', rows: 'all', cells: [{ select: { series: 'ws-echo', proxy: 'nginx', variant: 'article', mode: 'echo' }, status: ['failed', 'invalid'], ...(reason && { reason }) }] }, { websocket: rows })
  const ok = check(nginx(refused, refused))
  assert.equal(ok.verdict, 'reproduced')
  assert.equal(ok.measured, 'nginx 1.31.3 article echo: failed ("upgrade failed: HTTP 400 × 200"); wanted failed or invalid with every reason matching /^upgrade failed/')
  // The proxy did not start: failed, but it never saw an upgrade request. Without reason this passed.
  assert.equal(check(nginx(noStart, noStart), null).verdict, 'reproduced')
  const other = check(nginx(noStart, noStart))
  assert.equal(other.verdict, 'not measured')
  assert.equal(other.measured, 'not measured: nginx 1.31.3 article echo: 2 of 2 rows give a reason not matching /^upgrade failed/ ("did not start: nginx: [emerg] unknown directive")')
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
    evalCheck({ kind: 'count', table: 'websocket', metric: 'conns_established', rows: 'all', select: { series: 'ws-hold', proxy: 'envoy', variant, mode: 'hold' }, value, ...(tolerance !== undefined && { tolerance }) }, { websocket: rows })
  assert.equal(count('ws', 1024).verdict, 'reproduced')
  assert.match(count('ws', 1024).measured, /^envoy ws hold: 1,024 conns \(target 5000\); wanted 1,024 ±0$/)
  assert.equal(count('ws', 1000).verdict, 'not reproduced')
  assert.equal(count('ws', 1000, 30).verdict, 'reproduced')
  assert.equal(count('ws-raised', 'conns_target').verdict, 'reproduced')
  assert.equal(count('ws', 'conns_target').verdict, 'not reproduced')
})

test('the missing-cell rule: an absent cell, or one without a valid row, is not measured, never not reproduced', () => {
  const rows = [...two(m, { proxy: 'nginx', series: 'pool-added', variant: 'pool-added' }, 'rps', 600), ...two(m, { proxy: 'nginx', variant: 'article', status: 'invalid' }, 'rps', 100)]
  const ratio = { kind: 'ratio', metric: 'rps', a: { series: 'pool-added', proxy: 'nginx', variant: 'pool-added' }, b: { series: 'same', proxy: 'nginx', variant: 'article' }, approx: 's000-ten', tolerance: 0.1 }
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
    evalCheck({ kind: 'threshold', metric: 'rps', select: { series: 'same', variant: 'article' }, for_each: [{ proxy: 'haproxy' }, { proxy: 'caddy' }], op: '>', value: 10 }, { measurements: two(m, { proxy: 'haproxy' }, 'rps', a) })
  assert.equal(each(5).verdict, 'not reproduced')
  assert.equal(each(50).verdict, 'not measured')
  assert.match(each(50).measured, /^haproxy: haproxy article: 50 rps; wanted > 10; not measured: caddy: no cell/)
})

test('formatLedger: one line per claim with its mark, then a count line', () => {
  const base = { source: 's', claim: 'c', published: 'p', finding: null, expect: 'e', evidence: [], comparable_across_machines: true, caveat: null, notes: null, warnings: [], value: null, reference: null }
  const out = formatLedger([
    { ...base, id: 'a-claim', verdict: 'reproduced', measured: 'r = 6.1' },
    { ...base, id: 'another-claim', verdict: 'not reproduced', measured: 'r = 1.2' },
    { ...base, id: 'c', verdict: 'not measured', measured: 'not measured: no cell' },
    { ...base, id: 'd', verdict: 'not runnable here', measured: 'no L4 mode' },
  ])
  assert.deepEqual(out.split('\n'), [
    '  ✓ a-claim ........ r = 6.1',
    '  ✗ another-claim .. r = 1.2',
    '  · c .............. not measured: no cell',
    '  – d .............. no L4 mode',
    '  4 claims: 1 reproduced, 1 not reproduced, 1 not measured, 1 not runnable here',
  ])
})

// ------------------------------------------------------------------ the real ledger against a run

/** A run shaped like the harness's quick run: every series, every proxy. */
function syntheticRun(): RunTables {
  const proxies = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy']
  const measurements: Measurement[] = [...two(m, { proxy: 'direct', variant: 'direct', series: 'direct' }, 'rps', 50000)]
  for (const proxy of proxies) {
    for (const [series, variant] of [['same', 'article'], ['pool-added', 'pool-added'], ['pool-removed', 'pool-removed'], ['tls-ceiling', 'pool-added']]) {
      measurements.push(...two(m, { proxy, series, variant }, 'rps', 10000))
    }
    for (const key_type of ['ec256', 'rsa4096']) {
      measurements.push(...two(m, { proxy, series: 'tls-open', variant: 'pool-added', key_type, model: 'open', connections: 1000, target_rps: 900, status: key_type === 'ec256' ? 'valid' : 'invalid' }))
    }
  }
  for (const variant of ['reuse-never', 'server-close']) measurements.push(...two(m, { proxy: 'haproxy', series: 'haproxy-reuse', variant }, 'rps', 9000))
  for (const version of ['1.22.1', '1.31.3']) {
    for (const variant of ['literal', 'upstream-default', 'upstream-keepalive']) measurements.push(...two(m, { proxy: 'nginx', version, series: 'nginx-keepalive', variant }, 'rps', 8000))
  }
  for (const [i, target] of [800, 1600, 3100, 6200].entries()) {
    measurements.push(...two(m, { proxy: 'haproxy', series: 'tls-calibration', variant: 'pool-added', model: 'open', connections: 1000, target_rps: target, status: i < 2 ? 'valid' : 'invalid' }))
  }
  const handshakes = proxies.flatMap((proxy) => ['ec256', 'rsa2048', 'rsa4096'].flatMap((key_type) => two(h, { proxy, key_type }, 'proxy_cpu_us_per_handshake', key_type === 'ec256' ? 500 : 3000)))
  const websocket = proxies.flatMap((proxy) => [
    ...two(w, { proxy, variant: 'article', ...(proxy === 'nginx' && { status: 'failed', reason: 'upgrade failed: HTTP 400 × 200', conns_established: 0 }) }),
    ...two(w, { proxy, variant: 'ws' }),
    ...(proxy === 'envoy' ? ['ws', 'ws-raised'] : ['ws']).flatMap((variant) => two(w, { proxy, variant, series: 'ws-hold', mode: 'hold', conns_target: 5000, conns_established: variant === 'ws' && proxy === 'envoy' ? 1024 : 5000 })),
  ])
  return { measurements, handshakes, websocket }
}

const FIXTURE = join(repoRoot, 'test/fixtures/run-quick')

const sources: [string, () => RunTables][] = [
  ['a synthetic quick run', syntheticRun],
  ...(existsSync(FIXTURE)
    ? [['the committed quick run (test/fixtures/run-quick)', () => ({ measurements: readTable(FIXTURE, MEASUREMENTS), handshakes: readTable(FIXTURE, HANDSHAKES), websocket: readTable(FIXTURE, WEBSOCKETS) })] as [string, () => RunTables]]
    : []),
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
      if (r.verdict === 'reproduced' || r.verdict === 'not reproduced') assert.ok(r.evidence.length > 0, r.id)
      if (r.verdict === 'not measured') assert.match(r.measured, /no cell|no valid rows|no \w+ value|no failing target|needs at least 2|give a reason not matching/, r.id)
      for (const e of r.evidence) assert.ok(['valid', 'invalid', 'failed'].includes(e.status), r.id)
    }
    assert.equal(formatLedger(results).split('\n').length, results.length + 1)
    assert.ok(results.some((r) => r.verdict === 'reproduced'))
  })
}

/** Every series value a check names (sides, select, for_each, status cells, same_order_as). */
function namedSeries(check: Claim['check']): Set<string> {
  const maps: SelectorSpec[] = [...(check.select ?? []), ...(check.for_each ?? [])]
  if (check.kind === 'ratio' || check.kind === 'equal') maps.push(...check.a, ...check.b)
  if (check.kind === 'status') maps.push(...check.cells.flatMap((c) => c.select))
  if (check.kind === 'rank' && check.same_order_as) maps.push(...check.same_order_as.select)
  return new Set(maps.flatMap((m) => {
    const v = m.columns.series
    return v === undefined ? [] : typeof v === 'object' && !Array.isArray(v) ? Object.values(v).flat().map(String) : [v].flat().map(String)
  }))
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
  if (!existsSync(FIXTURE)) return
  const byId = new Map(evaluateClaims(loadLedger(PUBLISHED_DIR), sources[1]![1]()).map((r) => [r.id, r]))
  const seriesOf = (id: string) => [...new Set(byId.get(id)!.evidence.map((e) => String(e.cell.series)))].sort()
  // The fixture has pool-added cells in both pool-added and tls-ceiling; only the first counts.
  assert.deepEqual(seriesOf('s004-l7-haproxy-lower-p99'), ['pool-added'])
  assert.deepEqual(seriesOf('nginx-pool-sixfold'), ['pool-added', 'same'])
  assert.deepEqual(seriesOf('rsa4096-fails-everyone'), ['tls-open'])
  assert.deepEqual(seriesOf('open-model-fails-below-capacity'), ['tls-calibration', 'tls-ceiling'])
  assert.deepEqual(seriesOf('rsa4096-collapse-follows-handshake-cost'), ['tls-handshake', 'tls-open'])
  for (const id of ['rsa4096-open-model-collapse', 'rsa4096-fails-everyone', 'rsa4096-collapse-follows-handshake-cost', 'april-traefik-cannot-handle-load', 'open-model-fails-below-capacity', 'open-model-fails-half-idle', 's001-haproxy-holds-50k']) {
    assert.notEqual(byId.get(id)!.verdict, 'not measured', id)
  }
  // nginx WITHOUT a pool has no open-model cell here, on purpose.
  assert.equal(byId.get('april-nginx-last-with-errors')!.verdict, 'not measured')
  const ws = byId.get('ws-nginx-article-config-fails')!
  assert.equal(ws.verdict, 'reproduced')
  assert.match(ws.measured, /"upgrade failed: HTTP 400 × 200"/)
})

test('CLAIM_SERIES lists exactly the series the harness writes (lib/series)', () => {
  const pooling = poolingCells(PROXIES, { connections: 10, backendVersion: 'x', custom: [{ proxy: 'nginx', file: '/tmp/my.conf' }] }).map((c) => c.series)
  const written = new Set([...pooling, ...[versionsSeries(), tlsSeries(), wsSeries()].flatMap((x) => x.phases.map((p) => p.name))])
  assert.deepEqual([...new Set(Object.values(CLAIM_SERIES).flat())].sort(), [...written].sort())
  assert.deepEqual(CLAIM_SERIES.handshakes, ['tls-handshake'])
  assert.deepEqual(CLAIM_SERIES.websocket, ['ws-echo', 'ws-hold'])
})

test('evaluating the same run twice gives the same results (no state kept between calls)', () => {
  const ledger = loadLedger(PUBLISHED_DIR)
  const data = syntheticRun()
  assert.deepEqual(evaluateClaims(ledger, data), evaluateClaims(ledger, data))
})
