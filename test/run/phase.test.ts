import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import type { Measurement } from '../../lib/data/schema.ts'
import { appendRow, MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { pairedAgain, progressLine, progressTask, runPhase, type PhaseAdaptive } from '../../lib/run/phase.ts'
import { QuietBudget, WATCHFUL_WINDOWS } from '../../lib/run/quiet.ts'
import { markInterrupted } from '../../lib/runtime/shutdown.ts'
import { cellOfRepeatId } from '../../lib/data/grouping.ts'
import type { Task } from '../../lib/series/types.ts'
import { measurement } from '../fixtures/rows.ts'

/** Tasks of fake cells whose rows come from `value(variant, repeat)`: the phase runner without a proxy. */
function fakeTasks(variants: string[], repeats: number, value: (variant: string, repeat: number) => Partial<Measurement>, ran: string[]): Task[] {
  const task = (variant: string, repeat: number): Task => {
    const row = () => measurement({ variant, repeat, ...value(variant, repeat) })
    const key = MEASUREMENTS.key(row())
    return {
      label: `${variant} r${repeat}`,
      table: MEASUREMENTS as Task['table'],
      key,
      cellId: cellOfRepeatId(key),
      repeat,
      again: (r) => task(variant, r),
      run: async () => (ran.push(`${variant}${repeat}`), row()),
    }
  }
  return Array.from({ length: repeats }, (_, i) => variants.map((v) => task(v, i + 1))).flat()
}
const adaptive = (o: Partial<PhaseAdaptive['settings']> = {}): PhaseAdaptive => ({
  settings: { minRepeats: 3, maxRepeats: 8, precision: 0.03, maxDisturbed: 2, budgetS: 1e6, ...o },
  seed: 1,
  repeatS: 1,
})
const noisy = (r: number) => ({ proxy_cpu_us_per_req: r % 2 ? 80 : 120 })
const steady = (r: number) => ({ proxy_cpu_us_per_req: 100 + (r % 3) * 0.1 })

test('adaptive rounds: a steady cell stops at n = 6 (95%), a noisy one at its budget; each round only the cells that need it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  const log = memoryLogger()
  await runPhase(
    'p',
    fakeTasks(['a', 'b'], 3, (v, r) => (v === 'a' ? steady(r) : noisy(r)), ran),
    dir,
    log,
    false,
    adaptive(),
  )
  const rows = readTable(dir, MEASUREMENTS)
  assert.equal(rows.filter((r) => r.variant === 'a').length, 6)
  assert.equal(rows.filter((r) => r.variant === 'b').length, 8)
  assert.deepEqual(
    rows.filter((r) => r.variant === 'b').map((r) => r.repeat),
    [1, 2, 3, 4, 5, 6, 7, 8],
  )
  assert.ok(
    log.lines.some((l) => /^p: 1 of 2 cells reached ±3\.0%; stopped on budget: 8 repeats × 1$/.test(l)),
    log.lines.join('\n'),
  )
})

test('a disturbed window is invalid with its reason, kept in the CSV, not a repeat, and re-measured', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  // Repeat 2 of the cell ran next to a busy neighbour.
  await runPhase(
    'p',
    fakeTasks(['a'], 2, (_, r) => ({ ...steady(r), foreign_cpu_share: r === 2 ? 0.45 : 0.01 }), ran),
    dir,
    memoryLogger(),
    false,
    adaptive({ minRepeats: 2, maxRepeats: 2 }),
  )
  const rows = readTable(dir, MEASUREMENTS)
  assert.deepEqual(
    rows.map((r) => [r.repeat, r.status]),
    [
      [1, 'valid'],
      [2, 'invalid'],
      [3, 'valid'],
    ],
  )
  assert.equal(rows[1]!.reason, "disturbed: steal 0.0% / foreign CPU 45% on the proxy's cores")
})

test('a window whose requests collapsed against its cell’s others is marked invalid in the CSV once the round is in, kept, other cells alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  const log = memoryLogger()
  // Cell a's repeat 1 served one request (ports exhausted); cell b is steady throughout.
  const served = (v: string, r: number) => (v === 'a' && r === 1 ? 1 : 13_000 + r)
  const tasks = fakeTasks(['a', 'b'], 3, (v, r) => ({ requests: served(v, r), rps: served(v, r) / 2, time_wait_at_end: 28_000, reason: 'kept note' }), ran)
  await runPhase('p', tasks, dir, log, false)
  const rows = readTable(dir, MEASUREMENTS)
  assert.deepEqual(
    rows.map((r) => [r.variant, r.repeat, r.status]),
    [
      ['a', 1, 'invalid'],
      ['b', 1, 'valid'],
      ['a', 2, 'valid'],
      ['b', 2, 'valid'],
      ['a', 3, 'valid'],
      ['b', 3, 'valid'],
    ],
  )
  assert.equal(
    rows[0]!.reason,
    "requests collapsed: 1 (0.5/s) vs a median 6,501/s of the cell's other windows (ports in TIME_WAIT at the end: 28,000); kept note",
  )
  assert.equal(rows[0]!.time_wait_at_end, 28_000)
  assert.deepEqual(
    rows.slice(1).map((r) => r.reason),
    Array(5).fill('kept note'),
  )
  assert.ok(
    log.lines.some((l) => l.includes('a r1: invalid: requests collapsed: 1')),
    log.lines.join('\n'),
  )
})

test('a machine that stays busy ends: the disturbed budget stops the cell', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  const log = memoryLogger()
  await runPhase(
    'p',
    fakeTasks(['a'], 2, (_, r) => ({ ...steady(r), steal_share: 0.3 }), ran),
    dir,
    log,
    false,
    adaptive({ minRepeats: 2, maxRepeats: 2 }),
  )
  // 2 rounds, both disturbed (within the budget of 2), one re-measurement: a third disturbed window ends it.
  assert.equal(readTable(dir, MEASUREMENTS).length, 3)
  assert.ok(
    log.lines.some((l) => /disturbed budget: 3 windows disturbed × 1/.test(l)),
    log.lines.join('\n'),
  )
})

test('a phase that does not adapt keeps a disturbed row as it is, and runs exactly its tasks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  const log = memoryLogger()
  await runPhase(
    'p',
    fakeTasks(['a'], 2, (_, r) => ({ ...noisy(r), foreign_cpu_share: 0.5 }), ran),
    dir,
    log,
    false,
    null,
  )
  assert.deepEqual(
    readTable(dir, MEASUREMENTS).map((r) => r.status),
    ['valid', 'valid'],
  )
  assert.ok(log.lines.some((l) => /disturbed window: .*kept: this phase does not re-measure/.test(l)))
})

test('resume: rows already in the CSV count, disturbed ones included, and the rounds continue after them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  // A killed run left repeats 1-5 of a noisy cell, repeat 4 disturbed.
  for (let r = 1; r <= 5; r++)
    appendRow(
      dir,
      MEASUREMENTS,
      measurement({
        variant: 'a',
        repeat: r,
        ...noisy(r),
        ...(r === 4 ? { status: 'invalid', reason: "disturbed: steal 5.0% / foreign CPU 9% on the proxy's cores" } : {}),
      }),
    )
  const ran: string[] = []
  await runPhase(
    'p',
    fakeTasks(['a'], 3, (_, r) => noisy(r), ran),
    dir,
    memoryLogger(),
    true,
    adaptive({ maxRepeats: 6 }),
  )
  // 4 repeats counted (one disturbed): 2 more up to the budget of 6, numbered after the last row.
  assert.deepEqual(ran, ['a6', 'a7'])
  assert.equal(readTable(dir, MEASUREMENTS).length, 7)
})

test('rows carry the invocation that measured them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  await runPhase(
    'p',
    fakeTasks(['a'], 2, (_, r) => steady(r), []),
    { runDir: dir, invocation: 3 },
    memoryLogger(),
    false,
  )
  assert.deepEqual(
    readTable(dir, MEASUREMENTS).map((r) => r.invocation),
    [3, 3],
  )
})

test('after a signal no row is written (the one in flight neither: its roles were killed), rows before it stay, and the phase never returns', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  const tasks = fakeTasks(['a', 'b', 'c'], 1, (_, r) => steady(r), ran)
  // The signal arrives while b is measured: b returns a row blaming its dead roles.
  const b = tasks[1]!
  tasks[1] = {
    ...b,
    run: async () => {
      const row = await b.run()
      markInterrupted('SIGINT')
      return { ...(row as Measurement), status: 'invalid', reason: 'a role exited during the run' }
    },
  }
  try {
    const outcome = await Promise.race([
      runPhase('p', tasks, dir, memoryLogger(), false).then(() => 'returned'),
      new Promise((r) => setTimeout(() => r('waiting for exit'), 300)),
    ])
    assert.equal(outcome, 'waiting for exit')
  } finally {
    markInterrupted(null)
  }
  assert.deepEqual(
    readTable(dir, MEASUREMENTS).map((r) => r.variant),
    ['a'],
  )
  assert.deepEqual(ran, ['a1', 'b1'], 'c never started')
})

test("with a quiet budget: each disturbed window is followed by a wait, redone in a later round beyond maxDisturbed, and the waits are not the phase's time", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  const log = memoryLogger()
  const waits: number[] = []
  // A stand-in for waitForQuiet: each wait takes 0.3 s, together far beyond the phase's time budget of 0.5 s.
  const quiet = new QuietBudget({ budgetS: 100, settleS: 1, groups: ['1'], maxWaitS: 30 }, log, undefined, null, async (o) => {
    waits.push(o.maxS)
    await new Promise((r) => setTimeout(r, 300))
    return { waitedS: 0.3, quiet: true, processes: [] }
  })
  // Cell a is disturbed in its first four windows (more than maxDisturbed = 2), b never.
  const value = (v: string, r: number) => ({ ...steady(r), foreign_cpu_share: v === 'a' && r <= 4 ? 0.4 : 0.01 })
  await runPhase(
    'p',
    fakeTasks(['a', 'b'], 2, value, ran),
    { runDir: dir, invocation: null, quiet },
    log,
    false,
    adaptive({ minRepeats: 2, maxRepeats: 2, budgetS: 0.5 }),
  )
  const a = readTable(dir, MEASUREMENTS).filter((r) => r.variant === 'a')
  assert.deepEqual(
    a.map((r) => [r.repeat, r.status]),
    [
      [1, 'invalid'],
      [2, 'invalid'],
      [3, 'invalid'],
      [4, 'invalid'],
      [5, 'valid'],
      [6, 'valid'],
    ],
  )
  assert.equal(waits.length, 4, 'one wait after each disturbed window')
  assert.deepEqual([quiet.record.waits, quiet.record.waited_s], [4, 1.2])
  // Interleaving kept: the redo of a's first window comes after b's rounds, never back to back with the disturbed one.
  assert.deepEqual(ran.slice(0, 4).sort(), ['a1', 'a2', 'b1', 'b2'])
})

test('once the quiet budget is spent, waits stop and the disturbed budget ends a cell as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const waits: number[] = []
  const log = memoryLogger()
  const quiet = new QuietBudget(
    { budgetS: 12, settleS: 1, groups: ['1'], maxWaitS: 30 },
    log,
    undefined,
    null,
    async (o) => (waits.push(o.maxS), { waitedS: o.maxS, quiet: false, processes: [] }),
  )
  await runPhase(
    'p',
    fakeTasks(['a'], 2, (_, r) => ({ ...steady(r), steal_share: 0.3 }), []),
    { runDir: dir, invocation: null, quiet },
    log,
    false,
    adaptive({ minRepeats: 2, maxRepeats: 2 }),
  )
  // The first wait gets the whole budget left (12 s less the disturbed window's own few ms) and spends it; none after.
  assert.equal(waits.length, 1)
  assert.ok(waits[0]! > 11 && waits[0]! <= 12, String(waits[0]))
  assert.equal(quiet.leftS(), 0)
  assert.equal(quiet.record.unquiet_waits, 1)
  assert.equal(readTable(dir, MEASUREMENTS).length, 3)
  assert.ok(
    log.lines.some((l) => /no quiet 1 s within 12 s/.test(l)),
    log.lines.join('\n'),
  )
})

/** A quiet budget whose wait only records itself, and tasks wrapped as closed.ts runs them: stack up, then the gate, then the load. */
function gatedQuiet(log: ReturnType<typeof memoryLogger>) {
  const steps: string[] = []
  const quiet = new QuietBudget(
    { budgetS: 100, settleS: 1, groups: ['1'], maxWaitS: 30 },
    log,
    undefined,
    null,
    async () => (steps.push('wait'), { waitedS: 0.5, quiet: true, processes: [] }),
  )
  const gated = (t: Task): Task => ({
    ...t,
    run: async () => (steps.push(`${t.label} stack`), await quiet.beforeWindow([]), steps.push(`${t.label} load`), t.run()),
    again: (r) => gated(t.again(r)),
  })
  return { steps, quiet, gated }
}

test('a cell protocol that calls the gate waits inside the next task, with its stack up, just before its load', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const ran: string[] = []
  const log = memoryLogger()
  const { steps, quiet, gated } = gatedQuiet(log)
  // a's first window is disturbed, its redo is not.
  const tasks = fakeTasks(['a', 'b'], 1, (v, r) => ({ ...steady(1), foreign_cpu_share: v === 'a' && r === 1 ? 0.4 : 0.01 }), ran).map(gated)
  await runPhase('p', tasks, { runDir: dir, invocation: null, quiet }, log, false, null)
  assert.deepEqual(steps, ['a r1 stack', 'a r1 load', 'b r1 stack', 'b r1 load'], 'a phase that does not adapt neither invalidates nor waits')
  steps.length = 0
  const dir2 = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  await runPhase('p', tasks, { runDir: dir2, invocation: null, quiet }, log, false, adaptive({ minRepeats: 1, maxRepeats: 1 }))
  // The next WATCHFUL_WINDOWS windows after the disturbed one wait: here the two left.
  assert.deepEqual(steps, ['a r1 stack', 'a r1 load', 'b r1 stack', 'wait', 'b r1 load', 'a r2 stack', 'wait', 'a r2 load'])
  assert.equal(quiet.record.waits, 2)
})

test('a window counted from its clean slices makes the next WATCHFUL_WINDOWS windows wait at their gate, and is not redone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-phase-'))
  const { steps, quiet, gated } = gatedQuiet(memoryLogger())
  const tasks = fakeTasks(['a', 'b', 'c', 'd', 'e'], 1, (v) => ({ ...steady(1), ...(v === 'a' ? { counted_share: 0.6 } : {}) }), []).map(gated)
  await runPhase('p', tasks, { runDir: dir, invocation: null, quiet }, memoryLogger(), false, adaptive({ minRepeats: 1, maxRepeats: 1 }))
  assert.equal(WATCHFUL_WINDOWS, 3)
  assert.deepEqual(steps, [
    ...['a r1 stack', 'a r1 load'],
    ...['b r1 stack', 'wait', 'b r1 load', 'c r1 stack', 'wait', 'c r1 load', 'd r1 stack', 'wait', 'd r1 load'],
    ...['e r1 stack', 'e r1 load'],
  ])
  assert.equal(readTable(dir, MEASUREMENTS).length, 5, 'the counted window is a valid repeat: nothing redone')
  assert.equal(quiet.leftS(), 100 - 1.5, 'only the waits are charged, not the counted window')
})

test('an adaptive round re-measures a paired cell with its partner, next to it, at one repeat past both', () => {
  const made: string[] = []
  const task = (id: string, pairOf?: string): Task => ({
    label: id,
    table: MEASUREMENTS as Task['table'],
    key: `${id}|1`,
    cellId: id,
    repeat: 1,
    again: (r) => {
      made.push(`${id}@${r}`)
      return { ...task(id, pairOf), repeat: r }
    },
    run: async () => ({}),
    ...(pairOf ? { pairOf } : {}),
  })
  const template = new Map([
    ['now', task('now', 'then|now')],
    ['then|now', task('then|now', 'now')],
    ['alone', task('alone')],
  ])
  const last = new Map([
    ['now', 6],
    ['then|now', 5],
    ['alone', 2],
  ])
  // The twin needs more, its now cell does not: both are re-measured, at repeat 7, the twin first.
  const order = pairedAgain([{ id: 'then|now' }, { id: 'alone' }, { id: 'now' }], template, last)
  assert.deepEqual(
    order.map((t) => `${t.cellId}@${t.repeat}`),
    ['then|now@7', 'now@7', 'alone@3'],
  )
  assert.deepEqual(made, ['then|now@7', 'now@7', 'alone@3'])
})

test('a progress line gives back its phase and its task repeat; a pair, a rate and other lines', () => {
  assert.deepEqual(progressTask(progressLine('pooling', 2, 14, 'same haproxy 3.4.7 article r3', 65)), { phase: 'pooling', repeat: 3 })
  assert.deepEqual(progressTask(progressLine('pooling', 0, 14, 'same haproxy 3.4.7 article r12 + then 3.4.6', 0)), { phase: 'pooling', repeat: 12 })
  assert.deepEqual(progressTask(progressLine('pooling-open', 4, 9, 'pooling-open nginx 1.31.3 article ec256 2500 rps r2', 3723)), {
    phase: 'pooling-open',
    repeat: 2,
  })
  // An adaptive round of a phase is that phase's.
  assert.deepEqual(progressTask(progressLine('pooling +1', 3, 4, 'pool-added haproxy 3.4.7 pool-added r3', 64)), { phase: 'pooling', repeat: 3 })
  assert.equal(progressTask('run base: profile quick, series pooling'), null)
  assert.equal(progressTask(progressLine('tls', 0, 1, 'no repeat here', 1)), null)
})
