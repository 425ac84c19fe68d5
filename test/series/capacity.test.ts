import assert from 'node:assert/strict'
import { test } from 'node:test'
import { capacityCells, CAPACITY_DEFAULTS, MAX_CAPACITY_STEPS, nextCapacityStep, type SearchStep } from '../../lib/series/capacity.ts'

const settings = { ...CAPACITY_DEFAULTS, startRps: 1000, budgetS: 1000 }
const pass = (rate: number): SearchStep => ({ rate, verdict: 'pass', disturbed: false, why: '' })
const miss = (rate: number): SearchStep => ({ rate, verdict: 'miss', disturbed: false, why: 'p99 12 ms >= 10 ms' })
const roomy = { spentS: 0, stepS: 5 }

/** Runs the search against a proxy that meets the SLO up to `capacity` rps (steps cost `stepS`), as the phases would. */
function simulate(capacity: number, o: { budgetS?: number; stepS?: number; judge?: (rate: number, i: number) => SearchStep } = {}) {
  const steps: SearchStep[] = []
  const stepS = o.stepS ?? 5
  for (;;) {
    const next = nextCapacityStep(steps, { ...settings, budgetS: o.budgetS ?? settings.budgetS }, { spentS: steps.length * stepS, stepS })
    if ('done' in next) return { steps, done: next.done, spentS: steps.length * stepS }
    steps.push(o.judge ? o.judge(next.rate, steps.length) : next.rate <= capacity ? pass(next.rate) : miss(next.rate))
  }
}

test('doubles from the start rate while it passes, then halves the interval until pass and miss are 5% apart', () => {
  const r = simulate(13_000)
  assert.deepEqual(
    r.steps.map((s) => s.rate),
    [1000, 2000, 4000, 8000, 16000, 12000, 14000, 13000, 13500],
  )
  assert.equal(r.done, 'found: 13000 rps passes, 13500 rps does not')
  assert.ok(
    r.steps.every((s, i) => r.steps.findIndex((x) => x.rate === s.rate) === i),
    'no rate measured twice',
  )
})

test('halves below the start rate while nothing passes, and says so when even the lowest rate misses', () => {
  assert.deepEqual(
    simulate(300).steps.map((s) => s.rate),
    [1000, 500, 300, 400],
  )
  const none = simulate(0)
  assert.deepEqual(
    none.steps.map((s) => s.rate),
    [1000, 500, 300, 200, 100],
  )
  assert.equal(none.done, 'no rate passes: even 100 rps does not')
})

test('an invalid step is never a pass: the search goes below it', () => {
  const r = simulate(1e9, {
    judge: (rate) => (rate >= 8000 ? { rate, verdict: 'invalid', disturbed: false, why: 'generator saturated: 95% of its cpuset >= 90%' } : pass(rate)),
  })
  assert.equal(r.done, 'found: 7800 rps passes, 8000 rps does not')
  assert.ok(!r.steps.some((s) => s.verdict === 'pass' && s.rate >= 8000))
})

test('a disturbed window is measured again, twice at most; disturbed every time, the search stops there instead of going lower', () => {
  const d = (rate: number): SearchStep => ({ rate, verdict: 'invalid', disturbed: true, why: 'disturbed: foreign CPU 45%' })
  assert.deepEqual(nextCapacityStep([pass(1000), d(2000)], settings, roomy), { rate: 2000, why: 'again: its window was disturbed' })
  assert.deepEqual(nextCapacityStep([pass(1000), d(2000), d(2000)], settings, roomy), { rate: 2000, why: 'again: its window was disturbed' })
  assert.deepEqual(nextCapacityStep([pass(1000), d(2000), d(2000), d(2000)], settings, roomy), {
    done: 'stopped: every window at 2000 rps was disturbed (disturbed: foreign CPU 45%); measure when the machine is quiet',
  })
  // Measured on the second try, the search goes on from that outcome.
  assert.deepEqual(nextCapacityStep([pass(1000), d(2000), pass(2000)], settings, roomy), { rate: 4000, why: 'doubling: 2000 rps passes' })
  assert.deepEqual(nextCapacityStep([pass(1000), d(2000), miss(2000)], settings, roomy), { rate: 1500, why: 'between 1000 and 2000 rps' })
  assert.deepEqual(nextCapacityStep([d(1000), d(1000), d(1000)], settings, roomy), {
    done: 'stopped: every window at 1000 rps was disturbed (disturbed: foreign CPU 45%); measure when the machine is quiet',
  })
})

test('stops when a step did not measure at all (start failure, failed verification): halving would not help', () => {
  assert.match(
    (nextCapacityStep([{ rate: 1000, verdict: 'failed', disturbed: false, why: 'did not start: port in use' }], settings, roomy) as { done: string }).done,
    /^stopped: 1000 rps did not measure \(did not start/,
  )
  assert.ok(
    'done' in nextCapacityStep([pass(1000), { rate: 2000, verdict: 'invalid', disturbed: false, why: 'verification failed: 0/20 ok' }], settings, roomy),
  )
})

test('never starts a step that would take the search past its budget', () => {
  for (const budgetS of [0, 4, 5, 12, 23, 40, 61]) {
    for (const stepS of [3, 5, 7]) {
      const r = simulate(13_000, { budgetS, stepS })
      assert.ok(r.spentS <= budgetS, `budget ${budgetS} s, steps of ${stepS} s: spent ${r.spentS} s`)
      assert.ok(r.spentS + stepS > budgetS || r.done.startsWith('found'), `stopped with room left: ${r.done}`)
    }
  }
  assert.match(simulate(13_000, { budgetS: 12 }).done, /^budget spent: 10 s of 12 s, a step takes about 5 s$/)
})

test('stops at the upper bound and after MAX_CAPACITY_STEPS', () => {
  const capped = nextCapacityStep([pass(1000)], { ...settings, maxRps: 1000 }, roomy)
  assert.deepEqual(capped, { done: "reached the search's upper bound, 1000 rps" })
  assert.deepEqual(nextCapacityStep([pass(1000)], { ...settings, maxRps: 1500 }, roomy), { rate: 1500, why: 'doubling: 1000 rps passes' })
  const many = Array.from({ length: MAX_CAPACITY_STEPS }, () => pass(100))
  assert.ok('done' in nextCapacityStep(many, settings, roomy))
})

test("cells: each proxy with the variants it has (default pool-added), EC-256, the open model's VU cap; a custom config by its custom: name", () => {
  const cells = capacityCells({ proxies: ['haproxy', 'nginx'], plan: { custom: [] } })
  assert.deepEqual(
    cells.map((c) => [c.series, c.proxy, c.variant, c.keyType, c.connections]),
    [
      ['capacity', 'haproxy', 'pool-added', 'ec256', 1000],
      ['capacity', 'nginx', 'pool-added', 'ec256', 1000],
    ],
  )
  const focused = capacityCells({
    proxies: ['haproxy', 'nginx'],
    plan: { focus: { variants: ['reuse-never', 'custom:my.cfg'], keyTypes: ['rsa2048'] }, custom: [{ proxy: 'haproxy', file: '/tmp/my.cfg' }] },
  })
  assert.deepEqual(
    focused.map((c) => [c.proxy, c.variant, c.keyType, c.template]),
    [
      ['haproxy', 'reuse-never', 'rsa2048', focused[0]!.template],
      ['haproxy', 'custom:my.cfg', 'rsa2048', '/tmp/my.cfg'],
    ],
  )
})
