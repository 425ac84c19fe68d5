import { readdirSync, readFileSync } from 'node:fs'

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
    const p = parsePidStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
    return p ? String(p.start) : null
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

/** One process as /proc/<pid>/stat tells it. */
export interface ProcessSample {
  pid: number
  ppid: number
  /** The kernel's command name (at most 15 characters), not the command line. */
  command: string
  /** utime + stime, in USER_HZ ticks. */
  ticks: number
  /** The CPU it last ran on. */
  cpu: number
  /** When it started (ticks after boot): tells a reused pid from the same process (a kernel thread's name changes with its work). */
  start: number
}

/** /proc/<pid>/stat: the command sits in parentheses and may itself hold spaces and parentheses. */
export function parsePidStat(text: string): ProcessSample | null {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return null
  const pid = Number(text.slice(0, open).trim())
  // Fields after the command, from field 3 (state): ppid is 4, utime 14, stime 15, starttime 22, processor 39.
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/)
  const field = (n: number) => Number(rest[n - 3])
  const [ppid, utime, stime, start, cpu] = [field(4), field(14), field(15), field(22), field(39)]
  if (![pid, ppid, utime, stime].every(Number.isFinite)) return null
  return {
    pid,
    ppid,
    command: text.slice(open + 1, close),
    ticks: utime + stime,
    cpu: Number.isFinite(cpu) ? cpu : -1,
    start: Number.isFinite(start) ? start : 0,
  }
}

/** Every process readable now (one that exits while read is left out). */
export function readProcesses(): Map<number, ProcessSample> {
  const out = new Map<number, ProcessSample>()
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return out
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue
    try {
      const p = parsePidStat(readFileSync(`/proc/${name}/stat`, 'utf8'))
      if (p) out.set(p.pid, p)
    } catch {
      // Gone between readdir and read.
    }
  }
  return out
}

/** One kernel's processes at one moment, and the pids there whose trees are the harness's own (its roles, readers, this process). */
export interface KernelProcesses {
  procs: ReadonlyMap<number, ProcessSample>
  own: readonly number[]
}
