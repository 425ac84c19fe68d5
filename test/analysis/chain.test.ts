import assert from 'node:assert/strict'
import { test } from 'node:test'
import { chainLinks, type MachineLink, machineSeries, NO_LINKS, type PairedLink, runLinks, unusableRatio } from '../../lib/analysis/chain.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { measurement } from '../fixtures/rows.ts'

/** A link of nginx with its log half-widths below and above the ratio given, not its bounds. */
const link = (
  baselineId: string,
  runId: string,
  date: string | null,
  ratio: number,
  below: number,
  above: number,
  proxy = 'nginx',
  method: string | null = 'quick profile, native, data schema 9',
): PairedLink => ({
  runId,
  date,
  baselineId,
  proxy,
  basis: 'time',
  thenVersion: `v-${baselineId}`,
  nowVersion: `v-${runId}`,
  ratio,
  lo: ratio * Math.exp(-below),
  hi: ratio * Math.exp(above),
  cells: 3,
  method,
})

const close = (actual: number | undefined, expected: number, what: string) =>
  assert.ok(Math.abs(actual! - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`)

test('chain: the index is the product of the ratios; its log half-widths add in quadrature, below and above each on its own', () => {
  // Given out of order: the chain orders them by date, then run id.
  const points = chainLinks([link('B', 'C', '2028-01-10', 1.25, 0.04, 0.08), link('A', 'B', '2027-01-10', 0.8, 0.03, 0.06)])
  assert.deepEqual(
    points.map((p) => `${p.kind} ${p.runId} ${p.segment}`),
    ['start A 0', 'step B 0', 'step C 0'],
  )
  const [start, b, c] = points
  assert.deepEqual(start!.index, { value: 1, lo: 1, hi: 1 })
  assert.equal(start!.gap, null)
  assert.equal(start!.step, null)
  close(b!.index!.value, 0.8, 'B')
  close(Math.log(b!.index!.value / b!.index!.lo), 0.03, 'B below')
  close(Math.log(b!.index!.hi / b!.index!.value), 0.06, 'B above')
  // 0.8 × 1.25 = 1; below √(0.03² + 0.04²) = 0.05, above √(0.06² + 0.08²) = 0.1.
  close(c!.index!.value, 1, 'C')
  close(c!.index!.lo, Math.exp(-0.05), 'C lo')
  close(c!.index!.hi, Math.exp(0.1), 'C hi')
  close(c!.step!.value, 1.25, 'C step')
  assert.equal(c!.step!.cells, 3)
  assert.equal(c!.baselineId, 'B')
  assert.equal(`${c!.thenVersion} → ${c!.nowVersion}`, 'v-B → v-C')
})

test('chain: a link whose baseline no point reaches starts a new segment at 1.0 with its reason, never bridged', () => {
  const points = chainLinks([link('A', 'B', '2027-01-10', 0.8, 0.03, 0.03), link('X', 'Y', '2028-01-10', 1.1, 0.02, 0.02)])
  assert.deepEqual(
    points.map((p) => `${p.kind} ${p.runId} ${p.segment}`),
    ['start A 0', 'step B 0', 'start X 1', 'step Y 1'],
  )
  const [, , x, y] = points
  assert.match(x!.gap!, /^X is no point of the chain before .*: the index restarts at 1\.0, not bridged$/)
  assert.deepEqual(x!.index, { value: 1, lo: 1, hi: 1 })
  // Y's index is its own ratio, not 0.8 × 1.1.
  close(y!.index!.value, 1.1, 'Y')
  close(y!.index!.lo, 1.1 * Math.exp(-0.02), 'Y lo')
})

test('chain: several runs paired with one baseline branch from it, by date then run id; an unusable link breaks what follows it', () => {
  const points = chainLinks([
    link('A', 'C', '2027-03-01', 1.2, 0.01, 0.01),
    link('A', 'B2', '2027-02-01', 0.9, 0.01, 0.01),
    link('A', 'B1', '2027-02-01', 0.5, 0.01, 0.01),
    link('B1', 'D', '2027-04-01', 2, 0.01, 0.01),
    { ...link('D', 'E', '2027-05-01', 1, 0.01, 0.01), ratio: Number.NaN },
    link('E', 'F', '2027-06-01', 1.5, 0.01, 0.01),
    link('Z', 'undated', null, 1, 0.01, 0.01),
  ])
  assert.deepEqual(
    points.map((p) => `${p.kind} ${p.runId} ${p.segment} ${p.index ? p.index.value.toFixed(3) : '-'}`),
    [
      'start A 0 1.000',
      'step B1 0 0.500',
      'branch B2 0 0.900',
      'branch C 0 1.200',
      'branch D 0 1.000',
      'unusable E 0 -',
      'start E 1 1.000',
      'step F 1 1.500',
      'start Z 2 1.000',
      'step undated 2 1.000',
    ],
  )
  assert.match(points[5]!.gap!, /^no usable ratio/)
  assert.match(unusableRatio({ ratio: 1.2, lo: 0.9, hi: 1.1 })!, /outside its interval/)
  assert.equal(unusableRatio({ ratio: 1, lo: 0.9, hi: 1.1 }), null)
  // Deterministic: the same links in any order give the same chain.
  const again = chainLinks(
    [
      link('A', 'B1', '2027-02-01', 0.5, 0.01, 0.01),
      link('B1', 'D', '2027-04-01', 2, 0.01, 0.01),
      link('A', 'C', '2027-03-01', 1.2, 0.01, 0.01),
      link('A', 'B2', '2027-02-01', 0.9, 0.01, 0.01),
    ].reverse(),
  )
  assert.deepEqual(
    again.map((p) => p.runId),
    ['A', 'B1', 'B2', 'C', 'D'],
  )
})

test('chain: proxies apart, in name order; machine factors in date order and never in a proxy index', () => {
  const links = [link('A', 'B', '2027-01-10', 0.8, 0.03, 0.03, 'nginx'), link('A', 'B', '2027-01-10', 1.3, 0.03, 0.03, 'haproxy')]
  const points = chainLinks(links)
  assert.deepEqual(
    points.map((p) => `${p.proxy} ${p.runId}`),
    ['haproxy A', 'haproxy B', 'nginx A', 'nginx B'],
  )
  close(points[3]!.index!.value, 0.8, 'nginx B')
  const machine: MachineLink[] = [
    { runId: 'C', date: '2028-01-10', baselineId: 'B', ratio: 0.7, lo: 0.6, hi: 0.8, cells: 10 },
    { runId: 'B', date: '2027-01-10', baselineId: 'A', ratio: 1.32, lo: 1.21, hi: 1.4, cells: 10 },
  ]
  const copy = structuredClone(machine)
  assert.deepEqual(
    machineSeries(machine).map((m) => `${m.runId} ${m.ratio}`),
    ['B 1.32', 'C 0.7'],
  )
  assert.deepEqual(machine, copy, 'the input is left as it was')
  // The chain takes no machine factor: its index is the proxy ratios' product whatever the machine did.
  assert.deepEqual(chainLinks(links), points)
})

test("a paired run's links: the proxy's now / then with its interval, the machine's then today / baseline, named by the run", () => {
  const rows = (version: string, costs: number[]) => costs.map((c, i) => measurement({ version, repeat: i + 1, proxy_cpu_us_per_req: c }))
  const tables = (measurements: Measurement[]) => ({ measurements, handshakes: [], websocket: [] })
  // Each round moves both sides together (the drift the pair cancels); now is 0.8 × then, ±1%.
  const drift = [1, 1.3, 0.9, 1.2]
  const run = {
    ...tables(
      rows(
        '3.0.0',
        drift.map((d, i) => 40 * d * (i % 2 ? 1.01 : 0.99)),
      ),
    ),
    paired: {
      sides: { baseline: 'last-year', pair_same: false, sides: [] },
      tables: tables(
        rows(
          '2.8.25',
          drift.map((d) => 50 * d),
        ),
      ),
    },
  }
  const links = runLinks('this-year', '2027-12-01', run, tables(rows('2.8.25', [40, 40, 40, 40])))
  assert.equal(links.proxy.length, 1)
  const p = links.proxy[0]!
  assert.deepEqual([p.runId, p.baselineId, p.thenVersion, p.nowVersion, p.cells], ['this-year', 'last-year', '2.8.25', '3.0.0', 1])
  assert.ok(p.lo < 0.8 && 0.8 < p.hi && p.hi - p.lo < 0.1, `${p.ratio} [${p.lo}, ${p.hi}]`)
  // Then today: 50 × median drift (1.1) against the baseline's 40.
  assert.equal(links.machine.length, 1)
  assert.ok(Math.abs(links.machine[0]!.ratio - (50 * 1.1) / 40) < 1e-9, String(links.machine[0]!.ratio))
  assert.deepEqual(runLinks('x', null, { ...tables([]) }), NO_LINKS, 'an unpaired run has no links')
})

test('a change of method is marked on the point whose link crosses it, never on a start or the first link of a segment', () => {
  const points = chainLinks([
    link('b0', 'r1', '2027-01-01', 0.9, 0.05, 0.05),
    link('r1', 'r2', '2028-01-01', 1.1, 0.05, 0.05, 'nginx', 'standard profile, native, data schema 10'),
    link('r2', 'r3', '2029-01-01', 1.0, 0.05, 0.05, 'nginx', 'standard profile, native, data schema 10'),
  ])
  assert.deepEqual(
    points.map((p) => [p.kind, p.runId, p.methodChange]),
    [
      ['start', 'b0', null],
      ['step', 'r1', null],
      ['step', 'r2', 'quick profile, native, data schema 9 → standard profile, native, data schema 10'],
      ['step', 'r3', null],
    ],
  )
})
