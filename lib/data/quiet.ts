import { isDisturbed } from './precision.ts'
import type { RunTables } from './run-data.ts'
import type { QuietRecord } from './schema.ts'
import { CELL_COLUMNS, cellIdOf, type TableName } from './grouping.ts'

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
  /** Null: a run written before waits were recorded. */
  waitedS: number | null
  waits: number
  /** The commands that took the most CPU from the bench's disturbed windows: core-seconds (share of a core × window), most first. */
  top: { command: string; coreS: number }[]
  preflight: string | null
}

type Row = { status: string; reason: string; repeat: number; duration_s: number; foreign_processes?: string | undefined; counted_share?: number | null }

/** `python3 63%, cc1 21%` → [['python3', 0.63], ['cc1', 0.21]]; malformed parts are skipped. */
export function parseCulprits(text: string | undefined): [string, number][] {
  if (!text) return []
  return text.split(', ').flatMap((part) => {
    const m = /^(.*) (\d+)%$/.exec(part.trim())
    return m ? [[m[1]!, Number(m[2]) / 100] as [string, number]] : []
  })
}

export function quietSummary(tables: RunTables, quiet: QuietRecord | undefined): QuietSummary {
  let disturbed = 0
  let redone = 0
  let counted = 0
  const coreS = new Map<string, number>()
  for (const name of Object.keys(CELL_COLUMNS) as TableName[]) {
    const rows = tables[name] as Row[] | undefined
    if (!rows) continue
    const cellOf = (r: Row) => cellIdOf(name, r)
    const lastRepeat = new Map<string, number>()
    for (const r of rows) lastRepeat.set(cellOf(r), Math.max(lastRepeat.get(cellOf(r)) ?? 0, r.repeat))
    for (const r of rows) {
      const partly = isCountedInPart(r)
      if (!isDisturbed(r) && !partly) continue
      if (partly) counted++
      else disturbed++
      if (!partly && lastRepeat.get(cellOf(r))! > r.repeat) redone++
      for (const [command, share] of parseCulprits(r.foreign_processes)) coreS.set(command, (coreS.get(command) ?? 0) + share * r.duration_s)
    }
  }
  const top = [...coreS]
    .map(([command, s]) => ({ command, coreS: s }))
    .sort((a, b) => b.coreS - a.coreS || a.command.localeCompare(b.command))
    .slice(0, 3)
  return { disturbed, redone, counted, waitedS: quiet ? quiet.waited_s : null, waits: quiet?.waits ?? 0, top, preflight: quiet?.preflight ?? null }
}

/** A valid row counted from its clean slices only. */
export const isCountedInPart = (r: { status: string; counted_share?: number | null }) =>
  r.status === 'valid' && typeof r.counted_share === 'number' && r.counted_share < 1

/** The end summary's one line: `other work: 12 windows disturbed, 12 redone, waited 48 s (9 waits); most CPU taken from the bench: python3 9.1 core-s, …`. */
export function quietLine(s: QuietSummary): string {
  if (s.disturbed === 0 && s.waits === 0 && s.counted === 0)
    return `other work: no window disturbed, nothing waited${s.preflight ? ` (the preflight saw ${s.preflight.replace(/^other work on this machine: /, '').replace(/; results will take longer$/, '')})` : ''}`
  const top = s.top.length ? `; most CPU taken from the bench: ${s.top.map((t) => `${t.command} ${t.coreS.toFixed(1)} core-s`).join(', ')}` : ''
  const waited =
    s.waitedS === null ? 'waits not recorded (a run written before them)' : `waited ${Math.round(s.waitedS)} s (${s.waits} wait${s.waits === 1 ? '' : 's'})`
  const counted = s.counted ? `${s.counted} counted from their clean slices, ` : ''
  return `other work: ${s.disturbed} window${s.disturbed === 1 ? '' : 's'} disturbed, ${s.redone} redone, ${counted}${waited}${top}`
}
