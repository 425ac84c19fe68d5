import type { Logger } from '../core/log.ts'
import { appendRow, readTable, type Table } from '../data/tables.ts'
import type { Task } from '../series/types.ts'

/** Runs the tasks not yet in their table, appending one row each, with a live progress line. */
export async function runPhase(name: string, tasks: Task[], runDir: string, log: Logger, resume: boolean): Promise<void> {
  const doneKeys = new Map<Table<unknown>, Set<string>>()
  const isDone = (t: Task) => {
    if (!doneKeys.has(t.table)) doneKeys.set(t.table, new Set(readTable(runDir, t.table).map((r) => t.table.key(r))))
    return doneKeys.get(t.table)!.has(t.key)
  }
  const todo = tasks.filter((t) => !isDone(t))
  if (resume && todo.length < tasks.length) log.info(`resume ${name}: ${tasks.length - todo.length} repeats already measured, ${todo.length} to go`)
  const t0 = Date.now()
  for (const [i, task] of todo.entries()) {
    const elapsed = (Date.now() - t0) / 1000
    const eta = i === 0 ? '?' : fmtDuration((elapsed / i) * (todo.length - i))
    log.progress(`[${name} ${i + 1}/${todo.length}] ${task.label} · ${fmtDuration(elapsed)} elapsed · ETA ${eta}`)
    const row = (await task.run()) as { status: string; reason: string }
    appendRow(runDir, task.table, row)
    if (row.status !== 'valid') log.warn(`${task.label}: ${row.status}: ${row.reason}`)
  }
}

export function fmtDuration(s: number): string {
  const m = Math.floor(s / 60)
  return m > 0 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.round(s)}s`
}
