import { readFileSync } from 'node:fs'

/*
 * Which process a recorded pid was: pids are reused (after a reboot at once, otherwise
 * after wrap-around), so a state file names a process by boot id + pid + start time and
 * only that very process is ever signalled.
 */

/** This boot's id ('' where /proc does not say). */
export const bootId = (() => {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  } catch {
    return ''
  }
})()

/** Field 22 of /proc/PID/stat (start time in clock ticks since boot), or null when there is no such process. */
export function procStartTime(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // comm (field 2) may hold spaces and parentheses: count from the last ')'. Field 3 is index 0.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[22 - 3] ?? null
  } catch {
    return null
  }
}

/** A process as a state file records it. */
export interface ProcRef {
  pid: number
  /** procStartTime(pid) when it was recorded. */
  start: string
  boot: string
}

export const procRef = (pid: number): ProcRef => ({ pid, start: procStartTime(pid) ?? '', boot: bootId })

/** Whether the recorded process still runs: same boot, same pid, same start time. */
export function sameProcess(r: Partial<ProcRef> | undefined, boot = bootId): boolean {
  if (!r || typeof r.pid !== 'number' || !r.start || !r.boot) return false
  return r.boot === boot && procStartTime(r.pid) === r.start
}

/** The `st` field of /proc/net/tcp that means TIME_WAIT (include/net/tcp_states.h). */
const TCP_TIME_WAIT = '06'

/** Sockets in TIME_WAIT among the lines of a /proc/net/tcp or tcp6 file (its header line has no state). */
export const countTimeWait = (table: string): number => table.split('\n').filter((line) => line.trim().split(/\s+/)[3] === TCP_TIME_WAIT).length

/**
 * TCP sockets in TIME_WAIT (IPv4 and IPv6) in the network namespace of process `pid`: its
 * /proc/<pid>/net files show that namespace's sockets. Null when the process is gone.
 */
export function timeWaitSockets(pid: number, read: (file: string) => string = (f) => readFileSync(f, 'utf8')): number | null {
  if (!Number.isInteger(pid) || pid <= 0) return null
  const count = (file: string) => {
    try {
      return countTimeWait(read(`/proc/${pid}/net/${file}`))
    } catch {
      return null
    }
  }
  const v4 = count('tcp')
  // A kernel without IPv6 has no tcp6: its sockets are all in tcp.
  return v4 === null ? null : v4 + (count('tcp6') ?? 0)
}
