import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkBenchOptions, formatOverhead, formatPerCallCost, overheadLines, parseSyscallLoop, uncounted } from '../../lib/bench/counts-overhead.ts'
import { measurement } from '../fixtures/rows.ts'

const OFF = 'counting switched off (--no-counts)'
const pair = (repeat: number, on: number, off: number, extra = {}) => [
  measurement({ series: 'counts-overhead', repeat, proxy_cpu_us_per_req: on, proxy_syscalls_per_req: 7.4, counts_reason: '', ...extra }),
  measurement({ series: 'counts-overhead', repeat, proxy_cpu_us_per_req: off, counts_reason: OFF, ...extra }),
]

test('overhead: paired ratios by repeat, medians per arm; the uncounted arm is the one whose reason says so', () => {
  const rows = [...pair(1, 51, 50), ...pair(2, 40, 40), ...pair(3, 66, 60)]
  assert.equal(uncounted(rows[1]!), true)
  assert.equal(uncounted(rows[0]!), false)
  const [l] = overheadLines(rows)
  assert.deepEqual(l!.ratios, [51 / 50, 1, 66 / 60])
  assert.equal(l!.countedUs, 51)
  assert.equal(l!.uncountedUs, 50)
  assert.equal(l!.syscallsPerReq, 7.4)
})

test('overhead: an invalid row breaks its pair; a disturbed-only one counts when asked', () => {
  const disturbed = { status: 'invalid' as const, reason: "disturbed: steal 0.0% / foreign CPU 80% on the proxy's cores" }
  const rows = [
    ...pair(1, 51, 50),
    ...pair(2, 45, 40, disturbed),
    measurement({ repeat: 3, proxy_cpu_us_per_req: 99, status: 'invalid', reason: 'errors 5% >= 1%' }),
    measurement({ repeat: 3, proxy_cpu_us_per_req: 50, counts_reason: OFF }),
  ]
  assert.equal(overheadLines(rows)[0]!.ratios.length, 1)
  assert.equal(overheadLines(rows, true)[0]!.ratios.length, 2)
})

test('overhead printout: a verdict only with a 95% interval of the median; within, above or spanning the target', () => {
  const within = overheadLines(Array.from({ length: 8 }, (_, i) => pair(i + 1, 50 + (i % 3) * 0.2, 50)).flat())
  assert.match(formatOverhead(within), /over 8 pairs: within the 1.02 target/)
  const above = overheadLines(Array.from({ length: 8 }, (_, i) => pair(i + 1, 55 + i * 0.1, 50)).flat())
  assert.match(formatOverhead(above), /above the 1.02 target/)
  const few = overheadLines(pair(1, 50, 50))
  assert.match(formatOverhead(few), /too few pairs for a 95% interval \(1\)/)
  assert.match(formatOverhead([]), /no valid pair/)
})

test('overhead options: a bad flag is one line naming it', () => {
  assert.throws(() => checkBenchOptions({ proxies: ['haproxy'], variants: ['nope'], repeats: 2, durationS: 3 }), /--variants.*haproxy has no variant "nope"/)
  assert.throws(() => checkBenchOptions({ proxies: ['haproxy'], variants: ['article'], repeats: 0, durationS: 3 }), /--repeats/)
  assert.throws(() => checkBenchOptions({ proxies: ['haproxy'], variants: ['article'], repeats: 2, durationS: 0.5 }), /--duration/)
})

test('per-call cost line: the added µs per call and what it bounds per cell at the sub-window share', () => {
  const lines = overheadLines([...pair(1, 51, 50), ...pair(2, 51, 50)])
  const text = formatPerCallCost({ plainUs: 0.2, countedUs: 0.36, rounds: 5 }, lines, 0.25)
  // 7.4 calls/req × 0.16 µs × 0.25 over 50 µs/req = 0.59%.
  assert.match(text, /0\.200 → 0\.360 µs per getppid \(\+0\.160 µs/)
  assert.match(text, /haproxy article 0\.59%/)
})

test('loadgen syscalls: µs per call; another kind or no figure is an error', () => {
  assert.equal(
    parseSyscallLoop(
      '{"kind":"syscalls","n":2000000,"cpu_us":406135,"user_us":137467,"sys_us":268668,"wall_us":1859945,"us_per_op":0.2030675,"checksum":9424000000}\n',
    ),
    0.2030675,
  )
  assert.throws(() => parseSyscallLoop('{"kind":"compute","us_per_op":2650}'), /unexpected output/)
  assert.throws(() => parseSyscallLoop('{"kind":"syscalls","us_per_op":0}'), /unexpected output/)
  assert.throws(() => parseSyscallLoop('boom'), /unexpected output/)
})
