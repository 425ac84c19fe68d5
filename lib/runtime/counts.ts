import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { exec } from '../core/exec.ts'
import type { RunningRole, Runtime } from './types.ts'

/*
 * Kernel counts of a role over a measurement window (docs/method/counts.md): system calls
 * (the raw_syscalls:sys_enter tracepoint) and context switches counted by Debian's
 * linux-perf attached to every process of the role's cgroup, children inherited; the
 * user/system split of its CPU from the same cgroup's cpuacct (v1) or cpu.stat (v2); the
 * involuntary share of its context switches from /proc. Counts do not depend on the
 * machine's speed: they explain a time that moved.
 */

/** The cgroup that holds all of a role's processes, on this machine. */
export interface CountingGroup {
  dir: string
  v2: boolean
}

/** What a window counted for one role, or why it could not. */
export type RoleCounts =
  | {
      ok: true
      syscalls: number
      contextSwitches: number
      /** Involuntary (preempted) switches of the threads alive at both ends; null where /proc was unreadable. */
      involuntarySwitches: number | null
      /** Share of the role's CPU spent in user mode (cgroup tick-sampled split); null where the cgroup has no split. */
      userShare: number | null
    }
  | { ok: false; reason: string }

/** The cgroup directory of a process (v1 cpuacct, else v2), from /proc/PID/cgroup. */
export function cgroupOfPid(pid: number, procRoot = '/proc', cgroupRoot = '/sys/fs/cgroup'): CountingGroup | null {
  try {
    const lines = readFileSync(join(procRoot, String(pid), 'cgroup'), 'utf8').split('\n')
    const v1 = lines.find((l) => /^\d+:[^:]*\bcpuacct\b[^:]*:/.test(l))
    if (v1) {
      const rel = v1.slice(v1.indexOf(':', v1.indexOf(':') + 1) + 1)
      for (const mount of ['cpuacct', 'cpu,cpuacct', 'cpuacct,cpu']) {
        const dir = join(cgroupRoot, mount, rel)
        if (existsSync(join(dir, 'cpuacct.usage'))) return { dir, v2: false }
      }
    }
    const v2 = lines.find((l) => l.startsWith('0::'))
    if (v2 && existsSync(join(cgroupRoot, v2.slice(3), 'cpu.stat'))) return { dir: join(cgroupRoot, v2.slice(3)), v2: true }
  } catch {}
  return null
}

/** Pids listed in a cgroup (cgroup.procs), sorted; empty when unreadable. */
export function groupPids(g: CountingGroup): number[] {
  try {
    return readFileSync(join(g.dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(Number)
      .filter((n) => n > 0)
      .sort((a, b) => a - b)
  } catch {
    return []
  }
}

/** Cumulative user and system CPU of a cgroup in its own unit (v1 ns, v2 µs); only their ratio is used. */
export function readUserSys(g: CountingGroup): { user: number; sys: number } | null {
  try {
    if (g.v2) {
      const text = readFileSync(join(g.dir, 'cpu.stat'), 'utf8')
      const user = Number(/^user_usec (\d+)/m.exec(text)?.[1])
      const sys = Number(/^system_usec (\d+)/m.exec(text)?.[1])
      return Number.isFinite(user) && Number.isFinite(sys) ? { user, sys } : null
    }
    const user = Number(readFileSync(join(g.dir, 'cpuacct.usage_user'), 'utf8').trim())
    const sys = Number(readFileSync(join(g.dir, 'cpuacct.usage_sys'), 'utf8').trim())
    return Number.isFinite(user) && Number.isFinite(sys) ? { user, sys } : null
  } catch {
    return null
  }
}

/** Per thread id: voluntary and involuntary context switches (/proc/PID/task/TID/status) of every pid. */
export function readSwitches(pids: readonly number[], procRoot = '/proc'): Map<number, { voluntary: number; involuntary: number }> {
  const out = new Map<number, { voluntary: number; involuntary: number }>()
  for (const pid of pids) {
    let tids: string[]
    try {
      tids = readdirSync(join(procRoot, String(pid), 'task'))
    } catch {
      continue
    }
    for (const tid of tids) {
      try {
        const s = readFileSync(join(procRoot, String(pid), 'task', tid, 'status'), 'utf8')
        const v = Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(s)?.[1])
        const i = Number(/^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(s)?.[1])
        if (Number.isFinite(v) && Number.isFinite(i)) out.set(Number(tid), { voluntary: v, involuntary: i })
      } catch {}
    }
  }
  return out
}

/** Involuntary switches between two readings, over the threads present in both. */
export function involuntaryBetween(a: ReadonlyMap<number, { involuntary: number }>, b: ReadonlyMap<number, { involuntary: number }>): number | null {
  let n = 0
  let seen = false
  for (const [tid, x] of b) {
    const y = a.get(tid)
    if (!y) continue
    n += x.involuntary - y.involuntary
    seen = true
  }
  return seen ? n : null
}

/** The share of user time between two readings of readUserSys; null when no time was sampled. */
export function userShareBetween(a: { user: number; sys: number } | null, b: { user: number; sys: number } | null): number | null {
  if (!a || !b) return null
  const user = b.user - a.user
  const sys = b.sys - a.sys
  return user >= 0 && sys >= 0 && user + sys > 0 ? user / (user + sys) : null
}

export const PERF_EVENTS = ['raw_syscalls:sys_enter', 'context-switches'] as const

/** perf stat's arguments: CSV output, counters disabled until told (--control on fds 3 and 4), attached to `pids` and whatever they fork. */
export const perfStatArgs = (pids: readonly number[]) => ['stat', '-x,', '-D', '-1', '--control', 'fd:3,4', '-e', PERF_EVENTS.join(','), '-p', pids.join(',')]

/**
 * The counts of `perf stat -x,` output, by event: `1000668,,raw_syscalls:sys_enter,376619305,100.00,,`.
 * `<not counted>` / `<not supported>` read null; lines that are not counts are skipped.
 */
export function parsePerfStat(text: string): Map<string, number | null> {
  const out = new Map<string, number | null>()
  for (const line of text.split('\n')) {
    const f = line.split(',')
    if (f.length < 3) continue
    const event = f[2]!.trim()
    if (!event || /\s/.test(event)) continue
    const v = f[0]!.trim()
    if (/^<not (counted|supported)>$/.test(v)) out.set(event, null)
    else if (/^\d+(\.\d+)?$/.test(v)) out.set(event, (out.get(event) ?? 0) + Number(v))
  }
  return out
}

let probe: Promise<string | null> | undefined

/**
 * Why this machine cannot count (perf missing, tracefs not mounted and not mountable,
 * tracepoints forbidden), or null when it can. Asked once per process; mounts tracefs where
 * it is missing and the harness may (root).
 */
export function countingUnavailable(): Promise<string | null> {
  probe ??= (async () => {
    if (!existsSync('/sys/kernel/tracing/events') && !existsSync('/sys/kernel/debug/tracing/events')) {
      await exec('mount', ['-t', 'tracefs', 'nodev', '/sys/kernel/tracing'], { timeoutMs: 10_000 }).catch(() => null)
    }
    const r = await exec('perf', ['stat', '-x,', '-e', PERF_EVENTS.join(','), '--', 'true'], { timeoutMs: 30_000 }).catch((e: Error) => ({
      code: 127,
      stdout: '',
      stderr: e.message,
    }))
    if (r.code === 127 || (/not found|ENOENT/.test(r.stderr) && r.code !== 0)) return 'perf is not installed (Debian linux-perf)'
    const counts = parsePerfStat(r.stderr)
    if (r.code !== 0 || counts.get(PERF_EVENTS[0]) == null) {
      const why = r.stderr
        .split('\n')
        .map((l) => l.trim())
        .find((l) => /permission|paranoid|tracefs|debugfs|unknown tracepoint|not supported|No such/i.test(l))
      return `perf cannot count ${PERF_EVENTS[0]} here${why ? `: ${why}` : ` (exit ${r.code})`}`
    }
    return null
  })()
  return probe
}

interface Attached {
  role: RunningRole
  group: CountingGroup
  pids: number[]
  perf: ChildProcess
  stderr: string
  exited: Promise<void>
  acks: string[]
  ackWaiters: (() => void)[]
  userSysA?: { user: number; sys: number } | null
  userSysB?: { user: number; sys: number } | null
  switchesA?: Map<number, { voluntary: number; involuntary: number }>
  switchesB?: Map<number, { voluntary: number; involuntary: number }>
  failed?: string
}

/** Counting over one window: opened before it (perf attaches), begun and ended with the window's CPU snapshots, then read. */
export interface CountingWindow {
  begin(): Promise<void>
  end(): Promise<void>
  /** Stops the counters; per role its counts or the reason there are none. */
  read(): Promise<Map<RunningRole, RoleCounts>>
}

const ACK_TIMEOUT_MS = 5000

async function command(a: Attached, word: 'enable' | 'disable'): Promise<void> {
  if (a.failed) return
  const got = new Promise<boolean>((resolve) => {
    const t = setTimeout(() => resolve(false), ACK_TIMEOUT_MS)
    t.unref()
    a.ackWaiters.push(() => (clearTimeout(t), resolve(true)))
  })
  try {
    ;(a.perf.stdio[3] as Writable).write(`${word}\n`)
  } catch {}
  if (!(await got))
    a.failed = `perf did not acknowledge '${word}' within ${ACK_TIMEOUT_MS / 1000} s${a.perf.exitCode !== null ? ` (it exited ${a.perf.exitCode}: ${a.stderr.trim().split('\n').at(-1) ?? ''})` : ''}`
}

/**
 * Attaches counters to `roles` (those the runtime can count on this machine; the others
 * read a reason). `perfCpus`: where perf itself runs (it sleeps during the window).
 * `enabled: false` (counting switched off) reads every role as not counted, saying so.
 */
export async function openCounting(runtime: Runtime, roles: readonly RunningRole[], o: { perfCpus?: string; enabled?: boolean } = {}): Promise<CountingWindow> {
  const reasons = new Map<RunningRole, string>()
  const attached: Attached[] = []
  const off = o.enabled === false ? 'counting switched off (--no-counts)' : await countingUnavailable()
  for (const role of roles) {
    if (off) {
      reasons.set(role, off)
      continue
    }
    const group = runtime.countingGroup ? runtime.countingGroup(role) : `the ${runtime.kind} runtime cannot say where its roles run`
    if (typeof group === 'string') {
      reasons.set(role, group)
      continue
    }
    const pids = groupPids(group)
    if (pids.length === 0) {
      reasons.set(role, `no process in ${role.spec.role}'s cgroup ${group.dir}`)
      continue
    }
    attached.push(attachPerf(role, group, pids, o.perfCpus))
  }
  // perf prints "Events disabled" once it has attached to every thread: the window may begin.
  await Promise.all(
    attached.map(async (a) => {
      for (let i = 0; i < 200 && !a.failed && !/Events disabled/.test(a.stderr) && a.perf.exitCode === null; i++) await new Promise((r) => setTimeout(r, 25))
      if (!/Events disabled/.test(a.stderr))
        a.failed = `perf did not attach to ${a.role.spec.role} (pids ${a.pids.join(',')}): ${a.stderr.trim().split('\n').at(-1) ?? 'no output'}`
    }),
  )
  return {
    async begin() {
      await Promise.all(
        attached.map(async (a) => {
          a.userSysA = readUserSys(a.group)
          a.switchesA = readSwitches(a.pids)
          await command(a, 'enable')
        }),
      )
    },
    async end() {
      await Promise.all(
        attached.map(async (a) => {
          await command(a, 'disable')
          a.userSysB = readUserSys(a.group)
          a.switchesB = readSwitches(a.pids)
        }),
      )
    },
    async read() {
      const out = new Map<RunningRole, RoleCounts>()
      for (const [role, reason] of reasons) out.set(role, { ok: false, reason })
      await Promise.all(
        attached.map(async (a) => {
          out.set(a.role, await stopAndRead(a))
        }),
      )
      return out
    },
  }
}

/** perf stat attached to a role's processes, disabled until the window begins (counts read at the end). */
function attachPerf(role: RunningRole, group: CountingGroup, pids: number[], perfCpus: string | undefined): Attached {
  const argv = perfCpus ? ['taskset', '-c', perfCpus, 'perf', ...perfStatArgs(pids)] : ['perf', ...perfStatArgs(pids)]
  const perf = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] })
  const a: Attached = { role, group, pids, perf, stderr: '', acks: [], ackWaiters: [], exited: new Promise((r) => perf.once('close', () => r())) }
  ;(perf.stderr as Readable).on('data', (d: Buffer) => (a.stderr += d.toString()))
  ;(perf.stdio[4] as Readable).on('data', (d: Buffer) => {
    for (const _ of d.toString().match(/ack/g) ?? []) a.ackWaiters.shift()?.()
  })
  ;(perf.stdio[3] as Writable).on('error', () => {})
  perf.once('error', (e) => (a.failed = `perf did not start: ${e.message}`))
  return a
}

/** Stops a role's perf and reads what it counted; a perf that failed or counted nothing gives the reason. */
async function stopAndRead(a: Attached): Promise<RoleCounts> {
  if (a.perf.exitCode === null) a.perf.kill('SIGINT')
  const late = setTimeout(() => a.perf.kill('SIGKILL'), 5000)
  await a.exited
  clearTimeout(late)
  const counts = parsePerfStat(a.stderr)
  const syscalls = counts.get(PERF_EVENTS[0])
  const switches = counts.get(PERF_EVENTS[1])
  if (a.failed) return { ok: false, reason: a.failed }
  if (syscalls == null || switches == null)
    return { ok: false, reason: `perf counted nothing for ${a.role.spec.role}: ${a.stderr.trim().split('\n').at(-1) ?? 'no output'}` }
  return {
    ok: true,
    syscalls,
    contextSwitches: switches,
    involuntarySwitches: a.switchesA && a.switchesB ? involuntaryBetween(a.switchesA, a.switchesB) : null,
    userShare: userShareBetween(a.userSysA ?? null, a.userSysB ?? null),
  }
}

/** The counting group of a native or local-engine role: the cgroup its main process is in. */
export function localCountingGroup(pid: number, what: string): CountingGroup | string {
  const g = cgroupOfPid(pid)
  return g ?? `${what}: its process ${pid} is in no cgroup with a CPU controller`
}

/** The directory holding a cgroup CPU counter file (for the Docker runtime's recorded file). */
export const groupOfCounterFile = (f: { path: string; v2: boolean }): CountingGroup => ({ dir: dirname(f.path), v2: f.v2 })
