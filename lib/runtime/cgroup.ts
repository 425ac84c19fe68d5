import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs'
import { join } from 'node:path'

/** Cumulative CPU of a group of processes, whichever way this host allows. */
export interface CpuAccounting {
  readonly source: string
  /** Creates the group for one role; returns the file a pid is written to, or '' when not needed. */
  create(name: string): string
  read(name: string, rootPid: number): number
  remove(name: string): void
}

const V1 = '/sys/fs/cgroup/cpuacct'
const V2 = '/sys/fs/cgroup'
const PARENT = 'proxybench'

function tryMkdir(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true })
    return true
  } catch {
    return false
  }
}

/** Kills whatever is still in a cgroup (left by a killed run), then removes it. */
export function removeCgroup(dir: string): void {
  if (!existsSync(dir)) return
  for (const sub of readdirSync(dir, { withFileTypes: true })) if (sub.isDirectory()) removeCgroup(join(dir, sub.name))
  for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
    try {
      process.kill(Number(pid), 'SIGKILL')
    } catch {}
  }
  for (let i = 0; i < 50; i++) {
    try {
      rmdirSync(dir)
      return
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    }
  }
}

function cgroupAccounting(base: string, runId: string, source: string, readNs: (dir: string) => number): CpuAccounting {
  const dir = (name: string) => join(base, PARENT, runId, name)
  return {
    source,
    create: (name) => {
      mkdirSync(dir(name), { recursive: true })
      return join(dir(name), 'cgroup.procs')
    },
    read: (name) => readNs(dir(name)),
    remove: (name) => {
      removeCgroup(dir(name))
      try {
        rmdirSync(join(base, PARENT, runId))
      } catch {}
    },
  }
}

/** Sum of utime+stime (and reaped children's) over a process group; loses exited orphans. */
export function procTreeCpuNs(pgid: number): number {
  const tick = 1e9 / 100 // USER_HZ is 100 on Linux
  let ticks = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      // After the command: state(0) ppid(1) pgrp(2) ... utime(11) stime(12) cutime(13) cstime(14)
      if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
    } catch {}
  }
  return ticks * tick
}

/** cgroup v1 cpuacct, else v2 cpu.stat, else /proc sums (no root, no cgroup fs). */
export function detectCpuAccounting(runId: string): CpuAccounting {
  if (existsSync(join(V1, 'cpuacct.usage')) && tryMkdir(join(V1, PARENT, runId))) {
    return cgroupAccounting(V1, runId, 'cgroup v1 cpuacct.usage', (d) => Number(readFileSync(join(d, 'cpuacct.usage'), 'utf8')))
  }
  if (existsSync(join(V2, 'cgroup.controllers')) && tryMkdir(join(V2, PARENT, runId))) {
    return cgroupAccounting(V2, runId, 'cgroup v2 cpu.stat', (d) => {
      const m = /usage_usec (\d+)/.exec(readFileSync(join(d, 'cpu.stat'), 'utf8'))
      return Number(m?.[1] ?? 0) * 1000
    })
  }
  return { source: '/proc/<pid>/stat process-group sum', create: () => '', read: (_, pid) => procTreeCpuNs(pid), remove: () => {} }
}

/** Roots under which earlier runs may have left cgroups. */
export const CGROUP_PARENTS = [join(V1, PARENT), join(V2, PARENT)]
