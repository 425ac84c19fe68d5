import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { cellOfRepeatId } from '../../lib/data/grouping.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { appendRow, MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { thenTable } from '../../lib/data/then.ts'
import { pairedAgain, runPhase } from '../../lib/run/phase.ts'
import type { Task } from '../../lib/series/types.ts'
import { measurement } from '../fixtures/rows.ts'

// Pairs at one instant (--pair-at instant): one task, one window, a row to each side's table.
const THEN = thenTable(MEASUREMENTS)

/** A pair task of the fake cell `variant`: its run yields the now row and the then row (`thenValue`, else `value`) of one window. */
function pairTask(variant: string, repeat: number, value: (r: number) => Partial<Measurement>, ran: string[], thenValue = value): Task {
  const now = measurement({ variant, repeat, ...value(repeat) })
  const then = measurement({ variant, repeat, version: '0.9', ...thenValue(repeat) })
  const key = MEASUREMENTS.key(now)
  const thenKeyOf = THEN.key(then)
  const both = async () => (ran.push(`${variant}${repeat}`), [now, then] as const)
  return {
    label: `${variant} r${repeat} + then`,
    table: MEASUREMENTS as Task['table'],
    key,
    cellId: cellOfRepeatId(key),
    repeat,
    pairOf: cellOfRepeatId(thenKeyOf),
    again: (r) => pairTask(variant, r, value, ran, thenValue),
    run: async () => (await both())[0],
    pair: {
      side: { label: `${variant} r${repeat} · then`, table: THEN as Task['table'], key: thenKeyOf, cellId: cellOfRepeatId(thenKeyOf), repeat },
      run: both,
    },
  }
}

test('a pair task writes both rows, each to its side table, and resume skips a pair whose two rows are in', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-pair-phase-'))
  const ran: string[] = []
  const tasks = [1, 2].map((r) => pairTask('a', r, () => ({ proxy_cpu_us_per_req: 50 }), ran))
  await runPhase('p', tasks, dir, memoryLogger(), false)
  assert.deepEqual(ran, ['a1', 'a2'])
  assert.deepEqual(
    readTable(dir, MEASUREMENTS).map((r) => r.repeat),
    [1, 2],
  )
  assert.deepEqual(
    readTable(dir, THEN).map((r) => [r.version, r.repeat]),
    [
      ['0.9', 1],
      ['0.9', 2],
    ],
  )
  // Both rows in: nothing again. One side missing (a stop between the two appends): the pair again, the written row not twice.
  await runPhase('p', tasks, dir, memoryLogger(), true)
  assert.deepEqual(ran, ['a1', 'a2'])
  const half = mkdtempSync(join(tmpdir(), 'pb-pair-phase-'))
  appendRow(half, MEASUREMENTS, measurement({ variant: 'a', repeat: 1, proxy_cpu_us_per_req: 50 }))
  await runPhase('p', tasks.slice(0, 1), half, memoryLogger(), true)
  assert.deepEqual(ran, ['a1', 'a2', 'a1'])
  assert.equal(readTable(half, MEASUREMENTS).length, 1)
  assert.equal(readTable(half, THEN).length, 1)
})

test("adaptive rounds: a pair is re-measured as one task, found by either cell, by Pinpoint's rule on its ratio", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-pair-phase-'))
  const ran: string[] = []
  const noisy = (r: number) => ({ proxy_cpu_us_per_req: r % 2 ? 80 : 120 })
  const steady = () => ({ proxy_cpu_us_per_req: 100 })
  // now ÷ then swings 0.8 / 1.2 round to round: undecided, so rounds until the budget of 5.
  const tasks = [1, 2, 3].map((r) => pairTask('a', r, noisy, ran, steady))
  const adaptive = { settings: { minRepeats: 3, maxRepeats: 5, precision: 0.03, maxDisturbed: 2, budgetS: 1e6 }, seed: 1, repeatS: 1 }
  await runPhase('p', tasks, dir, memoryLogger(), false, adaptive)
  assert.deepEqual(ran, ['a1', 'a2', 'a3', 'a4', 'a5'])
  // Both sides swing together (one window, one machine): the ratio is 1 every round, decided at the minimum,
  // though each side's median alone is far from ±3%.
  const ranSteady: string[] = []
  const together = [1, 2, 3].map((r) => pairTask('b', r, noisy, ranSteady))
  await runPhase('p', together, mkdtempSync(join(tmpdir(), 'pb-pair-phase-')), memoryLogger(), false, adaptive)
  assert.deepEqual(ranSteady, ['b1', 'b2', 'b3'])
  assert.deepEqual(
    readTable(dir, THEN).map((r) => r.repeat),
    [1, 2, 3, 4, 5],
  )
  const template = new Map(tasks.flatMap((t) => [t.cellId, t.pair!.side.cellId].map((id) => [id, t] as const)))
  const last = new Map([...template.keys()].map((id) => [id, 3]))
  const order = pairedAgain([{ id: tasks[0]!.pair!.side.cellId }, { id: tasks[0]!.cellId }], template, last)
  assert.deepEqual(
    order.map((t) => [t.repeat, !!t.pair]),
    [[4, true]],
  )
})

test("a pair's then window that collapsed is marked invalid in then/, the now side left alone", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-pair-phase-'))
  const served = (r: number) => ({ requests: 13_000 + r, rps: (13_000 + r) / 2 })
  const tasks = [1, 2, 3].map((r) => pairTask('c', r, served, [], (x) => (x === 2 ? { requests: 1, rps: 0.5 } : served(x))))
  await runPhase('p', tasks, dir, memoryLogger(), false)
  assert.deepEqual(
    readTable(dir, THEN).map((r) => [r.repeat, r.status]),
    [
      [1, 'valid'],
      [2, 'invalid'],
      [3, 'valid'],
    ],
  )
  assert.match(readTable(dir, THEN)[1]!.reason, /^requests collapsed: 1 /)
  assert.ok(readTable(dir, MEASUREMENTS).every((r) => r.status === 'valid'))
})
