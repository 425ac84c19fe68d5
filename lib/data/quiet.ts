import { isDisturbed } from './precision.ts'
import type { RunTables } from './run-data.ts'
import type { QuietRecord } from './schema.ts'
import { CELL_COLUMNS, cellIdOf, groupBy, projectKey, type TableName } from './grouping.ts'

/**
 * What other work on the machine cost a run, from its rows and manifest: the end summary's
 * line and the report's setup section say the same (docs/method/disturbance.md).
 */
export interface QuietSummary {
  /** Windows made invalid as disturbed. */
  disturbed: number
  /** Disturbed windows whose cell got a later window. */
  redone: number
  /** Windows with disturbed slices, counted from their clean part (docs/method/disturbance.md#slices). */
  counted: number
  /** Seconds of those windows left out (their disturbed slices). */
  droppedS: number
  /** Closed windows that extended themselves past the profile's window for clean time (docs/method/disturbance.md#extension), and the seconds they added. */
  extended: number
  extendedS: number
  /** Seconds of windows read in slices, and of those in disturbed slices (rows' disturbed_slice_share; none in runs before it). */
  slicedS: number
  disturbedSliceS: number
  /** Null: a run written before waits were recorded. */
  waitedS: number | null
  waits: number
  /** The commands that took the most CPU from the bench's disturbed windows: core-seconds (share of a core × window), most first. */
  top: { command: string; coreS: number }[]
  preflight: string | null
  /** Cells short of their minimum valid repeats for disturbed windows: not measured (docs/method/disturbance.md#too-busy). */
  tooBusy: TooBusyCell[]
}

/** A cell the machine was too busy to measure: its key's values, its windows, how many were disturbed, and by what. */
export interface TooBusyCell {
  cell: string
  windows: number
  disturbed: number
  /** The share of its windows' time in disturbed slices; null: none was read in slices (a run before them, WebSocket hold). */
  disturbedSliceShare: number | null
  culprits: { command: string; coreS: number }[]
}

type Row = {
  status: string
  reason: string
  repeat: number
  duration_s: number
  model?: string
  foreign_processes?: string | undefined
  counted_share?: number | null
  disturbed_slice_share?: number | null
}

/** `python3 63%, cc1 21%` → [['python3', 0.63], ['cc1', 0.21]]; malformed parts are skipped. */
export function parseCulprits(text: string | undefined): [string, number][] {
  if (!text) return []
  return text.split(', ').flatMap((part) => {
    const m = /^(.*) (\d+)%$/.exec(part.trim())
    return m ? [[m[1]!, Number(m[2]) / 100] as [string, number]] : []
  })
}

/**
 * What other work cost the run. `settings` (the profile's, as run): a cell with fewer valid
 * repeats than `repeats`, and fewer windows that were not disturbed, was left short by other
 * work; a closed window longer than `duration_s` extended itself.
 */
export function quietSummary(tables: RunTables, quiet: QuietRecord | undefined, settings: { repeats?: number; duration_s?: number } = {}): QuietSummary {
  const { repeats: minRepeats = 0, duration_s: windowS = Number.POSITIVE_INFINITY } = settings
  const t: OtherWorkTally = { disturbed: 0, redone: 0, counted: 0, droppedS: 0, extended: 0, extendedS: 0, slicedS: 0, disturbedSliceS: 0, coreS: new Map() }
  const tooBusy: TooBusyCell[] = []
  for (const name of Object.keys(CELL_COLUMNS) as TableName[]) {
    const rows = tables[name] as Row[] | undefined
    if (!rows) continue
    tallyOtherWork(name, rows, t, windowS)
    tooBusy.push(...tooBusyCells(name, rows, minRepeats))
  }
  const { coreS, ...counts } = t
  return {
    ...counts,
    waitedS: quiet ? quiet.waited_s : null,
    waits: quiet?.waits ?? 0,
    top: topCommands(coreS),
    preflight: quiet?.preflight ?? null,
    tooBusy,
  }
}

/** The three commands with the most core-seconds, most first. */
const topCommands = (coreS: ReadonlyMap<string, number>) =>
  [...coreS]
    .map(([command, s]) => ({ command, coreS: s }))
    .sort((a, b) => b.coreS - a.coreS || a.command.localeCompare(b.command))
    .slice(0, 3)

/** Adds the core-seconds each foreign command took in a row's window (share of a core × window). */
function addCulprits(coreS: Map<string, number>, r: Row): void {
  for (const [command, share] of parseCulprits(r.foreign_processes)) coreS.set(command, (coreS.get(command) ?? 0) + share * r.duration_s)
}

/**
 * The cells of one table left short by other work: fewer valid repeats than the minimum, and
 * fewer windows that were not disturbed (a cell short for its own errors is its result).
 */
function tooBusyCells(name: TableName, rows: readonly Row[], minRepeats: number): TooBusyCell[] {
  return [...groupBy(rows, (r) => [cellIdOf(name, r)]).values()].flatMap((own) => {
    const disturbed = own.filter(isDisturbed)
    const valid = own.filter((r) => r.status === 'valid').length
    if (disturbed.length === 0 || valid >= minRepeats || own.length - disturbed.length >= minRepeats) return []
    const coreS = new Map<string, number>()
    for (const r of disturbed) addCulprits(coreS, r)
    const key = Object.values(projectKey(own[0]!, CELL_COLUMNS[name]))
    const sliced = own.filter(isSliced)
    const slicedS = sliced.reduce((t, r) => t + r.duration_s, 0)
    const disturbedSliceShare = slicedS > 0 ? sliced.reduce((t, r) => t + r.disturbed_slice_share! * r.duration_s, 0) / slicedS : null
    return [
      {
        cell: key.filter((v) => v !== null && v !== '').join(' '),
        windows: own.length,
        disturbed: disturbed.length,
        disturbedSliceShare,
        culprits: topCommands(coreS),
      },
    ]
  })
}

/** The summary's window counts as the rows are tallied, and the core-seconds each foreign command took. */
type OtherWorkTally = Pick<QuietSummary, 'disturbed' | 'redone' | 'counted' | 'droppedS' | 'extended' | 'extendedS' | 'slicedS' | 'disturbedSliceS'> & {
  coreS: Map<string, number>
}

/** A row whose window was read in slices and judged in each (disturbed_slice_share set). */
const isSliced = (r: Row): boolean => typeof r.disturbed_slice_share === 'number'

/** Adds one table's rows to the tally: a disturbed window is redone when its cell has a later repeat; a closed one longer than `windowS` was extended. */
function tallyOtherWork(name: TableName, rows: readonly Row[], t: OtherWorkTally, windowS: number): void {
  const cellOf = (r: Row) => cellIdOf(name, r)
  const lastRepeat = new Map<string, number>()
  for (const r of rows) lastRepeat.set(cellOf(r), Math.max(lastRepeat.get(cellOf(r)) ?? 0, r.repeat))
  for (const r of rows) {
    if (isSliced(r)) {
      t.slicedS += r.duration_s
      t.disturbedSliceS += r.disturbed_slice_share! * r.duration_s
    }
    if (r.model === 'closed' && r.duration_s > windowS) {
      t.extended++
      t.extendedS += r.duration_s - windowS
    }
    const partly = isCountedInPart(r)
    if (!isDisturbed(r) && !partly) continue
    if (partly) {
      t.counted++
      t.droppedS += (1 - r.counted_share!) * r.duration_s
    } else t.disturbed++
    if (!partly && lastRepeat.get(cellOf(r))! > r.repeat) t.redone++
    addCulprits(t.coreS, r)
  }
}

/** A valid row counted from its clean slices only. */
export const isCountedInPart = (r: { status: string; counted_share?: number | null }) =>
  r.status === 'valid' && typeof r.counted_share === 'number' && r.counted_share < 1

/** `pb-neighbour 1.8 core-s, node 0.6 core-s`: commands by the CPU they took from the bench. */
const culpritText = (top: readonly { command: string; coreS: number }[]) => top.map((t) => `${t.command} ${t.coreS.toFixed(1)} core-s`).join(', ')

/** `waited 48 s (9 waits)`, or that a run written before waits were recorded does not say. */
const waitedText = (s: QuietSummary) =>
  s.waitedS === null ? 'waits not recorded (a run written before them)' : `waited ${Math.round(s.waitedS)} s (${s.waits} wait${s.waits === 1 ? '' : 's'})`

/** The end summary's one line: `other work: 9% of slices disturbed, 12 windows disturbed, 12 redone, waited 48 s (9 waits); most CPU taken from the bench: python3 9.1 core-s, …`; `waits: false` leaves the waits out (a part of a run: they are the run's). */
export function quietLine(s: QuietSummary, o: { waits?: boolean } = {}): string {
  const waits = o.waits ?? true
  if (s.disturbed === 0 && (s.waits === 0 || !waits) && s.counted === 0 && s.extended === 0)
    return `other work: no window disturbed${waits ? ', nothing waited' : ''}${s.preflight ? ` (the preflight saw ${s.preflight.replace(/^other work on this machine: /, '').replace(/; results will take longer$/, '')})` : ''}`
  const top = s.top.length ? `; most CPU taken from the bench: ${culpritText(s.top)}` : ''
  const waited = waits ? waitedText(s) : ''
  const counted = s.counted ? `${s.counted} counted from their clean slices (${s.droppedS.toFixed(1)} s of disturbed slices left out), ` : ''
  const extended = s.extended ? `${s.extended} extended by ${s.extendedS.toFixed(1)} s for clean time, ` : ''
  const slices = s.disturbedSliceS > 0 ? `${percent(s.disturbedSliceS / s.slicedS)} of slices disturbed, ` : ''
  const tooBusy = s.tooBusy.length ? `, ${s.tooBusy.length} cell${s.tooBusy.length === 1 ? '' : 's'} not measured` : ''
  return (
    `other work: ${slices}${s.disturbed} window${s.disturbed === 1 ? '' : 's'} disturbed, ${s.redone} redone${tooBusy}, ${counted}${extended}${waited}`.replace(
      /, $/,
      '',
    ) + top
  )
}

/** `62%`; a share above 0 never shows as 0%. */
const percent = (share: number) => `${share > 0 && share < 0.005 ? '<1' : Math.round(100 * share)}%`

/**
 * One line per cell other work left short: `<cell>: not measured: machine too busy (62% of
 * slices disturbed, 4 of 4 windows; culprits …)`; from a run before slices were recorded,
 * `(3 of 4 windows disturbed, 75%; …)`.
 */
export const tooBusyLines = (s: QuietSummary): string[] =>
  s.tooBusy.map((c) => {
    const share =
      c.disturbedSliceShare === null
        ? `${c.disturbed} of ${c.windows} windows disturbed, ${percent(c.disturbed / c.windows)}`
        : `${percent(c.disturbedSliceShare)} of slices disturbed, ${c.disturbed} of ${c.windows} windows`
    return `${c.cell}: not measured: machine too busy (${share}${c.culprits.length ? `; culprits ${culpritText(c.culprits)}` : ''})`
  })
