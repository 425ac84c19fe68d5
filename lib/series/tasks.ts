import { blockOrder } from '../core/shuffle.ts'
import { workSettings } from '../catalog/profiles.ts'
import type { Handshake, TcpRow } from '../data/schema.ts'
import { type CellId, cellOfRepeatId } from '../data/grouping.ts'
import { HANDSHAKES, MEASUREMENTS, TCP, WEBSOCKETS } from '../data/tables.ts'
import type { CellPlan } from '../measure/cell.ts'
import { measureClosed } from '../measure/closed.ts'
import { measureClosedPair } from '../measure/pair-window.ts'
import { measureDefaultKey } from '../measure/default-key.ts'
import { DEFAULT_KEYS } from '../data/default-keys.ts'
import { measureH2 } from '../measure/h2.ts'
import { measureH3 } from '../measure/h3.ts'
import { measureHandshakes } from '../measure/handshake.ts'
import { measureOpen } from '../measure/open.ts'
import { measureEcho, measureHold } from '../measure/ws.ts'
import { measureTcp, L4_MIX, type TcpMode } from '../measure/tcp.ts'
import { measureHandshakeWork, measureRequestWork, type WorkUnit } from '../measure/work.ts'
import { focusCells } from './focus.ts'
import { thenContext, thenTwin } from './then.ts'
import { thenKey, thenTable } from '../data/then.ts'
import type { Phase, SeriesContext, Task } from './types.ts'

/** Whether a phase's rows get adaptive rounds in this run (its own rule, else yes). */
export const adaptiveHere = (phase: Pick<Phase, 'adaptive'>, ctx: SeriesContext): boolean =>
  typeof phase.adaptive === 'function' ? phase.adaptive(ctx) : phase.adaptive !== false

type TaskBody = Pick<Task, 'label' | 'table' | 'key' | 'run' | 'subject'>

/** How a builder makes a task's body of an item, in the context it measures in (a then twin's is under then/). */
type MakeBody<C> = (item: C, repeat: number, ctx: SeriesContext) => TaskBody

/** How a builder measures a now item and its then twin in one window, or null when their protocol cannot (lib/measure/pair-window.ts). */
type MeasurePair<C> = (now: C, then: C, repeat: number, nowCtx: SeriesContext, thenCtx: SeriesContext) => (() => Promise<readonly [unknown, unknown]>) | null

/**
 * Tasks of items, repeats interleaved and shuffled with the run's seed; each can make its own
 * next repeat. The run's focus (--variants, --key-types) filters the cells here, for every phase.
 * Under --like an item whose cell has a then twin (lib/series/then.ts) runs beside it in
 * each round (`withCell` puts the twin's cell in a copy of the item); its rows go to then/.
 * With --pair-at instant and a protocol that can (`measurePair`), the two are one task: one
 * window, both rows.
 */
function interleaved<C>(
  all: readonly C[],
  ctx: SeriesContext,
  cellOf: (item: C) => CellPlan,
  make: MakeBody<C>,
  withCell?: (item: C, cell: CellPlan) => C,
  measurePair?: MeasurePair<C>,
): Task[] {
  const keep = new Set(focusCells(all.map(cellOf), ctx.plan.focus))
  const items = all.filter((i) => keep.has(cellOf(i)))
  const thenCtx = thenContext(ctx)
  const task = (item: C, repeat: number, pairOf?: CellId, then = false): Task => {
    const made = make(item, repeat, then ? thenCtx : ctx)
    const body = then ? { ...made, label: `${made.label} · then ${cellOf(item).version}`, table: thenTable(made.table), key: thenKey(made.key) } : made
    return { ...body, cellId: cellOfRepeatId(body.key), repeat, again: (r) => task(item, r, pairOf, then), ...(pairOf ? { pairOf } : {}) }
  }
  const thenTask = (item: C, repeat: number, pairOf?: CellId) => task(item, repeat, pairOf, true)
  const atInstant = ctx.plan.pair?.at === 'instant' && !!measurePair
  const pairTask = (now: C, then: C, repeat: number): Task => {
    const own = task(now, repeat)
    const side = thenTask(then, repeat)
    const run = measurePair!(now, then, repeat, ctx, thenCtx)!
    return {
      ...own,
      label: `${own.label} + then ${cellOf(then).version}`,
      pairOf: side.cellId,
      again: (r) => pairTask(now, then, r),
      run: async () => (await run())[0],
      pair: {
        side: { label: side.label, table: side.table, key: side.key, cellId: side.cellId, repeat, ...(side.subject ? { subject: side.subject } : {}) },
        run,
      },
    }
  }
  type Side = { item: C; twin: boolean; pairOf?: CellId; instantWith?: C }
  const blocks = items.map((item): Side[] => {
    const twin = withCell && thenTwin(cellOf(item), ctx)
    if (!twin) return [{ item, twin: false }]
    const then = withCell(item, twin)
    if (atInstant && measurePair(item, then, 0, ctx, thenCtx)) return [{ item, twin: false, instantWith: then }]
    const ids = [task(item, 0).cellId, thenTask(then, 0).cellId]
    return [
      { item, twin: false, pairOf: ids[1] },
      { item: then, twin: true, pairOf: ids[0] },
    ]
  })
  return blockOrder(blocks, ctx.profile.repeats, ctx.seed).map(({ cell, repeat }) =>
    cell.instantWith ? pairTask(cell.item, cell.instantWith, repeat) : task(cell.item, repeat, cell.pairOf, cell.twin),
  )
}

/** Tasks of a builder whose item is its cell: the twin is the then cell itself. */
const cellTasks = (cells: readonly CellPlan[], ctx: SeriesContext, make: MakeBody<CellPlan>, measurePair?: MeasurePair<CellPlan>): Task[] =>
  interleaved(
    cells,
    ctx,
    (c) => c,
    make,
    (_, twin) => twin,
    measurePair,
  )

/** The columns of a row's key that every table takes from its cell and repeat (a table's key reads its own columns only). */
const keyColumns = (c: CellPlan, repeat: number) => ({
  series: c.series,
  proxy: c.proxy,
  version: c.version,
  variant: c.variant,
  key_type: c.keyType,
  connections: c.connections,
  repeat,
})

/** Key of the measurements row a cell produces in a repeat (the table's own key). */
export const cellRowKey = (c: CellPlan, repeat: number, model: 'closed' | 'open' = 'closed', targetRps: number | null = null): string =>
  MEASUREMENTS.key({
    ...keyColumns(c, repeat),
    model,
    target_rps: targetRps,
    path: c.path ?? '/',
    body_bytes: c.bodyBytes ?? null,
    streams: c.streams ?? null,
  } as never)

/** The key of a handshake cell's row of one repeat in handshakes.csv. */
const handshakeRowKey = (c: CellPlan, repeat: number): string => HANDSHAKES.key({ ...keyColumns(c, repeat), resumption: c.resumption } as Handshake)

/** What a cell asks beyond the defaults (/json and its size, another connection count), for its label. */
const requestLabel = (c: CellPlan, connections: number) =>
  `${c.bodyBytes ? ` ${c.path ?? '/json'} ${c.bodyBytes} B` : ''}${c.connections === connections ? '' : ` ${c.connections} conns`}`

/** Closed-model tasks for cells, repeats interleaved and shuffled with the run's seed. */
export function closedTasks(cells: readonly CellPlan[], ctx: SeriesContext): Task[] {
  return cellTasks(
    cells,
    ctx,
    (cell, repeat, ctx) => ({
      label: `${cell.series} ${cell.proxy} ${cell.version} ${cell.variant}${cell.keyType === 'ec256' ? '' : ` ${cell.keyType}`}${cell.streams ? ` ${cell.protocol ?? 'h2'} m${cell.streams}` : ''}${requestLabel(cell, ctx.connections)} r${repeat}`,
      table: MEASUREMENTS as Task['table'],
      key: cellRowKey(cell, repeat),
      // h3 cells run loadgen h3, h2 cells (streams per connection set) h2load, the others wrk.
      run: () =>
        cell.protocol === 'h3'
          ? measureH3(cell, repeat, ctx)
          : cell.streams
            ? measureH2({ ...cell, streams: cell.streams }, repeat, ctx)
            : measureClosed(cell, repeat, ctx),
      subject: cell,
    }),
    // Only wrk's cells share an instant so far; h2load's and loadgen's keep adjacent windows.
    (now, then, repeat, ctx, thenCtx) =>
      now.protocol === 'h3' || now.streams ? null : () => measureClosedPair(now, then, repeat, ctx, thenCtx) as Promise<readonly [unknown, unknown]>,
  )
}

/**
 * Work tasks (lib/measure/work.ts): each cell counted under callgrind, `profile.work.repeats`
 * times (a count needs no more rounds to be precise), interleaved and shuffled like the timed ones.
 */
export function workTasks(cells: readonly CellPlan[], unit: WorkUnit, ctx: SeriesContext): Task[] {
  const work = workSettings(ctx.profile)
  const counted = { ...ctx, profile: { ...ctx.profile, repeats: work.repeats } }
  return cellTasks(cells, counted, (cell, repeat, ctx) => ({
    label: `work ${cell.proxy} ${cell.version} ${cell.variant}${unit === 'handshake' ? ` handshake ${cell.keyType}` : ''} r${repeat}`,
    ...(unit === 'request'
      ? { table: MEASUREMENTS as Task['table'], key: cellRowKey(cell, repeat), run: () => measureRequestWork(cell, repeat, work, ctx) }
      : {
          table: HANDSHAKES as Task['table'],
          key: handshakeRowKey(cell, repeat),
          run: () => measureHandshakeWork(cell, repeat, { rounds: work.rounds, ...work.handshakes }, ctx),
        }),
    subject: cell,
  }))
}

/** Open-model tasks: each cell at each fixed rate, repeats interleaved and shuffled. */
export function openTasks(cells: readonly CellPlan[], rates: readonly number[], ctx: SeriesContext): Task[] {
  return openTasksAt(
    cells.flatMap((cell) => rates.map((rate) => ({ cell, rate }))),
    ctx,
  )
}

/** Open-model tasks of cells each at its own rate (a fraction of its own ceiling), repeats interleaved and shuffled. */
export function openTasksAt(combos: readonly { cell: CellPlan; rate: number }[], ctx: SeriesContext): Task[] {
  // Through interleaved() like the other builders, so an adaptive phase can ask for more repeats.
  return interleaved(
    combos,
    ctx,
    (x) => x.cell,
    ({ cell, rate }, repeat, ctx) => ({
      label: `${cell.series} ${cell.proxy} ${cell.version} ${cell.variant} ${cell.keyType} ${rate} rps r${repeat}`,
      table: MEASUREMENTS as Task['table'],
      key: cellRowKey(cell, repeat, 'open', rate),
      run: () => measureOpen(cell, repeat, rate, ctx),
      subject: cell,
    }),
    (x, cell) => ({ ...x, cell }),
  )
}

/** Handshake tasks (new TLS connection per request), repeats interleaved and shuffled. */
export function handshakeTasks(cells: readonly CellPlan[], ctx: SeriesContext): Task[] {
  return cellTasks(cells, ctx, (cell, repeat, ctx) => ({
    label: `handshakes ${cell.proxy} ${cell.keyType}${cell.protocol === 'h3' ? ' over QUIC' : ''}${cell.resumption ? ` ${cell.variant} resume ${cell.resumption}` : ''} r${repeat}`,
    table: HANDSHAKES as Task['table'],
    key: handshakeRowKey(cell, repeat),
    run: () => measureHandshakes(cell, repeat, ctx),
    subject: cell,
  }))
}

/** Default-key probes (lib/measure/default-key.ts): one handshake a repeat, what the proxy serves when given no certificate. */
export function defaultKeyTasks(cells: readonly CellPlan[], ctx: SeriesContext): Task[] {
  return interleaved(
    cells,
    ctx,
    (c) => c,
    (c, repeat, ctx) => ({
      label: `default key ${c.proxy} ${c.version} ${c.variant} r${repeat}`,
      table: DEFAULT_KEYS as Task['table'],
      key: DEFAULT_KEYS.key(keyColumns(c, repeat) as never),
      run: () => measureDefaultKey(c, repeat, ctx),
      subject: c,
    }),
  )
}

/** WebSocket tasks (echo or hold), repeats interleaved and shuffled. */
export function wsTasks(cells: readonly CellPlan[], mode: 'echo' | 'hold', ctx: SeriesContext): Task[] {
  return cellTasks(cells, ctx, (c, repeat, ctx) => ({
    label: `ws-${mode} ${c.proxy} ${c.variant} ${c.connections} conns r${repeat}`,
    table: WEBSOCKETS as Task['table'],
    key: WEBSOCKETS.key({ ...keyColumns(c, repeat), mode, conns_target: c.connections } as never),
    run: () => (mode === 'echo' ? measureEcho(c, repeat, ctx) : measureHold(c, repeat, ctx)),
    subject: c,
  }))
}

/** L4 tasks (lib/measure/tcp.ts), repeats interleaved and shuffled. */
export function tcpTasks(cells: readonly CellPlan[], mode: TcpMode, ctx: SeriesContext): Task[] {
  const mix = L4_MIX[mode]
  return cellTasks(cells, ctx, (c, repeat, ctx) => ({
    label: `${c.series} ${c.proxy} ${c.variant} r${repeat}`,
    table: TCP as Task['table'],
    key: TCP.key({ ...keyColumns(c, repeat), mode, msg_bytes: mix.msgBytes, stream_bytes: mix.streamBytes } as TcpRow),
    run: () => measureTcp(c, mode, repeat, ctx),
    subject: c,
  }))
}
