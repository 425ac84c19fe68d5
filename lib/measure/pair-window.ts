import { join } from 'node:path'
import { repeatStem } from '../data/raw-files.ts'
import type { Measurement } from '../data/schema.ts'
import { accessLogIssue, withVerifiedStack, type CellContext, type CellPlan, type RunningStack } from './cell.ts'
import { closedFields, closedRow, measureClosed, runClosedWindow, wrkGenerator, type WindowSide } from './closed.ts'

/**
 * Then and now at one instant (docs/method/pairs.md#at-one-instant): a pair's two stacks run
 * together, both proxies on the proxy's cpuset and both backends on the backend's, each
 * loaded by a wrk of its own started with the other on the generator's cpuset. One window,
 * its slices and its judgement serve both; each side's CPU is read from its own cgroup and its
 * requests from its own backend and wrk report, into a row of its own.
 */

/** Each side's wrk connections: the cell's own, so each proxy holds the connections its row states (docs/method/pairs.md#at-one-instant). */
export const sideConnections = (cell: CellPlan): number => cell.connections

type PairRows = [Measurement, Measurement]

/** One side's fixed parts: its cell, context, generator, raw stem and row. */
function pairSide(cell: CellPlan, repeat: number, ctx: CellContext) {
  const gen = wrkGenerator(ctx)
  return { cell, ctx, gen, name: repeatStem(cell, repeat), row: closedRow(cell, repeat, ctx, gen) }
}
type PairSide = ReturnType<typeof pairSide>

/** A start failure or failed verification of one side, as its row. */
const sideOutcome = (side: PairSide) => ({
  failed: (reason: string) => side.row({ status: 'failed', reason }),
  invalid: (reason: string) => side.row({ status: 'invalid', reason }),
})

/**
 * The now cell and its then twin measured in one window: both rows, now first. A side that
 * does not start or verify gets its row saying why, and the other side is measured alone in a
 * window of its own (as --pair-at adjacent would), so one side's failure costs the other nothing.
 */
export async function measureClosedPair(now: CellPlan, then: CellPlan, repeat: number, ctx: CellContext, thenCtx: CellContext): Promise<PairRows> {
  const sides = [pairSide(now, repeat, ctx), pairSide(then, repeat, thenCtx)] as const
  // Which side's stack starts first alternates with the round: an order effect (the first to
  // start, the first to warm) falls on each side in turn and cancels over the rounds.
  const [first, second] = repeat % 2 ? ([0, 1] as const) : ([1, 0] as const)
  // The then side's roles are named apart from now's: with --pair-same both are one version and config.
  const stem = (i: 0 | 1) => (i === 1 ? `then-${sides[i].name}` : sides[i].name)
  const start = (i: 0 | 1, body: (stack: RunningStack) => Promise<Measurement | PairRows>) =>
    withVerifiedStack(sides[i].cell, stem(i), sides[i].ctx, sideOutcome(sides[i]), body)
  const inOrder = (a: Measurement, b: Measurement): PairRows => (first === 0 ? [a, b] : [b, a])
  const outer = await start(first, async (firstStack): Promise<Measurement | PairRows> => {
    const inner = await start(second, async (secondStack): Promise<Measurement | PairRows> => {
      const stacks = first === 0 ? [firstStack, secondStack] : [secondStack, firstStack]
      const window = await runClosedWindow(sides.map((s, i): WindowSide => ({ ...s, stack: stacks[i]!, connections: sideConnections(s.cell) })))
      return [0, 1].map((i) => withLogIssue(sides[i]!.row({ ...closedFields(window, i), pair_window: 'instant' }), sides[i]!.cell, stacks[i]!)) as PairRows
    })
    if (Array.isArray(inner)) return inner
    const f = sides[first]
    const alone = await runClosedWindow([{ ...f, stack: firstStack, connections: f.cell.connections }])
    return inOrder(withLogIssue(f.row(closedFields(alone, 0)), f.cell, firstStack), inner)
  })
  if (Array.isArray(outer)) return outer
  const s = sides[second]
  return inOrder(outer, await measureClosed(s.cell, repeat, s.ctx, s.gen))
}

/** A logging variant's row made invalid when its access log falls short (withVerifiedStack checks one row; a pair's are two). */
function withLogIssue(row: Measurement, cell: CellPlan, stack: RunningStack): Measurement {
  const issue = stack.proxy ? accessLogIssue(cell, join(stack.scratch, 'proxy')) : null
  return issue ? { ...row, status: 'invalid', reason: [row.reason, issue].filter(Boolean).join('; ') } : row
}
