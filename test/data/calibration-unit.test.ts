import assert from 'node:assert/strict'
import { test } from 'node:test'
import { REFERENCE_UNITS, twoPartCost } from '../../lib/data/calibration-unit.ts'

const ref = { syscall_us: REFERENCE_UNITS.syscall_us, compute_us: REFERENCE_UNITS.compute_us }
const close = (a: number | null, b: number, what: string) => assert.ok(a !== null && Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`)

test('two-part unit on the reference machine: the raw µs (calls at the reference price plus the rest unscaled)', () => {
  // 7.4 calls/req, 20 µs system, 10 µs user: the calls cost 7.4 × 0.2, the rest of the kernel time 18.52.
  close(twoPartCost({ userUs: 10, sysUs: 20, syscalls: 7.4 }, ref), 30, 'reference machine')
})

test('a syscall tax (every call dearer by t) cancels: it is in the counted calls and in the unit alike', () => {
  const base = twoPartCost({ userUs: 10, sysUs: 20, syscalls: 7.4 }, ref)!
  for (const tax of [0.1, 2.4]) {
    const taxed = twoPartCost({ userUs: 10, sysUs: 20 + 7.4 * tax, syscalls: 7.4 }, { syscall_us: ref.syscall_us + tax, compute_us: ref.compute_us })
    close(taxed, base, `tax ${tax} µs`)
  }
})

test('a CPU twice as fast: every part halves, the compute unit too, and the figure holds', () => {
  const base = twoPartCost({ userUs: 10, sysUs: 20, syscalls: 7.4 }, ref)!
  close(twoPartCost({ userUs: 5, sysUs: 10, syscalls: 7.4 }, { syscall_us: ref.syscall_us / 2, compute_us: ref.compute_us / 2 }), base, 'twice as fast')
})

test('a proxy change that adds system calls shows, priced at the reference', () => {
  const base = twoPartCost({ userUs: 10, sysUs: 20, syscalls: 7.4 }, ref)!
  const more = twoPartCost({ userUs: 10, sysUs: 20 + 2 * 0.2, syscalls: 9.4 }, ref)!
  close(more - base, 2 * 0.2, 'two calls more')
})

test("missing parts or units read null; kernel time below the calls' price is no negative rest", () => {
  assert.equal(twoPartCost({ userUs: null, sysUs: 20, syscalls: 7 }, ref), null)
  assert.equal(twoPartCost({ userUs: 10, sysUs: 20, syscalls: undefined }, ref), null)
  assert.equal(twoPartCost({ userUs: 10, sysUs: 20, syscalls: 7 }, null), null)
  assert.equal(twoPartCost({ userUs: 10, sysUs: 20, syscalls: 7 }, { syscall_us: null, compute_us: 2650 }), null)
  close(twoPartCost({ userUs: 10, sysUs: 1, syscalls: 10 }, ref), 10 * 0.2 + 10, 'rest clamped at 0')
})
