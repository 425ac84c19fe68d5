import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { writeFileAtomic } from '../core/atomic.ts'
import { cacheDir } from '../core/paths.ts'
import { consoleLogger, type Logger } from '../core/log.ts'
import { CGROUP_PARENTS, detectCpuAccounting, removeCgroup, type CpuAccounting } from './cgroup.ts'
import { localCountingGroup, type CountingGroup } from './counts.ts'
import { cleanupStaleCopies } from './key-copies.ts'
import { procRef, sameProcess, type ProcRef } from './proc.ts'
import { keepAside } from './state-file.ts'
import { applyPortSysctls } from './network.ts'
import { interrupted, trackRuntime, untrackRuntime } from './shutdown.ts'
import type { Exit, RoleSpec, RunningRole, Runtime } from './types.ts'

/**
 * What a run started, on disk, so that the next start can clean up after a kill -9. Each
 * process is named by boot id + pid + start time: a pid alone may be another process
 * after a reboot or a wrap-around, and that one is never signalled.
 */
export interface State {
  harness: ProcRef
  roles: ({ name: string } & ProcRef)[]
}

export const stateDir = () => join(cacheDir(), 'native')

/** Whether a process exists (a zombie counts until its parent reaps it). */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {}
}

/** A state file's content, or null when it is not one (unreadable, old format). */
function parseState(text: string): State | null {
  try {
    const s = JSON.parse(text) as Partial<State>
    const ok = (r: unknown): r is ProcRef =>
      typeof (r as ProcRef)?.pid === 'number' && typeof (r as ProcRef).start === 'string' && typeof (r as ProcRef).boot === 'string'
    if (!ok(s.harness) || !Array.isArray(s.roles) || !s.roles.every((r) => ok(r) && typeof r.name === 'string')) return null
    return s as State
  } catch {
    return null
  }
}

/**
 * Removes processes and cgroups of earlier runs whose harness is gone, and key copies a
 * crashed Docker run left. Kills only a recorded process that still is the same one (same
 * boot, same start time). Returns the number of processes killed.
 */
export function cleanupStale(log: Logger = consoleLogger()): number {
  cleanupStaleCopies(log)
  const files = existsSync(stateDir()) ? readdirSync(stateDir()).filter((f) => f.endsWith('.json')) : []
  let killed = 0
  for (const f of files) killed += cleanupStateFile(f, log)
  removeOrphanCgroups()
  return killed
}

/**
 * One run's state file: left alone while its harness runs; else its roles that still run are
 * killed, its cgroups and the file removed; a file this version cannot read is set aside.
 * Returns the number of processes killed.
 */
function cleanupStateFile(f: string, log: Logger): number {
  const file = join(stateDir(), f)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return 0 // gone meanwhile (another harness cleaned it)
  }
  const state = parseState(text)
  if (!state) {
    keepAside(file, 'not a state file this version can read', log)
    return 0
  }
  if (sameProcess(state.harness)) return 0
  let killed = 0
  for (const r of state.roles.filter((r) => sameProcess(r))) {
    killGroup(r.pid, 'SIGKILL')
    killed++
    log.warn(`killed ${r.name} (pid ${r.pid}) left by an earlier run`)
  }
  const runId = f.slice(0, -'.json'.length)
  for (const parent of CGROUP_PARENTS) removeCgroup(join(parent, runId))
  rmSync(file, { force: true })
  return killed
}

/** cgroups with no state file at all (the harness died before writing it); those of a state file kept aside stay, with their processes. */
function removeOrphanCgroups(): void {
  const live = new Set(existsSync(stateDir()) ? readdirSync(stateDir()).map((f) => f.replace(/\.json(\.corrupt-.*)?$/, '')) : [])
  for (const parent of CGROUP_PARENTS.filter(existsSync)) {
    const stale = readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory() && !live.has(d.name) && !ownRuns.has(d.name))
    for (const d of stale) removeCgroup(join(parent, d.name))
  }
}

/** Every role runs in this harness's network namespace: the port settings go there, once, where it is not the host's. */
function portSettingsOfRoles(): string {
  try {
    return applyPortSysctls(process.pid)
  } catch (e) {
    return `TCP settings left as they are: ${(e as Error).message.split('\n')[0]}`
  }
}

let ownRef: ProcRef | undefined
/** This harness, as state files record it. */
export const harnessRef = () => (ownRef ??= procRef(process.pid))

/** Run ids of runtimes in this process, whose cgroups exist before their state file does. */
const ownRuns = new Set<string>()

export class NativeRuntime implements Runtime {
  readonly kind = 'native' as const
  readonly cpuSource: string
  private readonly roles = new Map<string, RunningRole>()
  private readonly cpu: CpuAccounting
  private readonly stateFile: string
  private readonly refs = new Map<string, ProcRef>()

  /** argv put before every role's (the system-call tax's launcher, lib/runtime/syscall-tax.ts); empty: none. */
  private readonly launcher: readonly string[]

  /** The TCP settings of the roles' network namespace, this harness's own: set when it is the run's, else why not (lib/runtime/network.ts). */
  readonly portSettings: string

  constructor(
    readonly runId: string,
    opts: { launcher?: readonly string[] } = {},
  ) {
    this.launcher = opts.launcher ?? []
    this.portSettings = portSettingsOfRoles()
    this.cpu = detectCpuAccounting(runId)
    this.cpuSource = this.cpu.source
    this.stateFile = join(stateDir(), `${runId}.json`)
    trackRuntime(this)
    ownRuns.add(runId)
  }

  private saveState(): void {
    const state: State = { harness: harnessRef(), roles: [...this.roles.values()].map((r) => ({ name: r.spec.name, ...this.refs.get(r.spec.name)! })) }
    writeFileAtomic(this.stateFile, JSON.stringify(state))
  }

  async start(spec: RoleSpec): Promise<RunningRole> {
    if (this.roles.has(spec.name)) throw new Error(`role ${spec.name} already running`)
    // After a signal stopAll() has run or is running: a role started now would outlive it.
    if (interrupted()) throw new Error(`interrupted by ${interrupted()}: ${spec.name} not started`)
    const procs = this.cpu.create(spec.name)
    mkdirSync(dirname(spec.logFile), { recursive: true })
    const out = openSync(spec.logFile, 'a')
    // The shell joins the cgroup before exec, so the role and all its children are counted.
    // Open files are raised to the hard limit: 5000 held WebSockets need 10000 in a proxy.
    const script = 'cg=$1; cpus=$2; shift 2; if [ -n "$cg" ]; then echo $$ > "$cg"; fi; ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec taskset -c "$cpus" "$@"'
    const child = spawn('sh', ['-c', script, 'sh', procs, spec.cpus, ...this.launcher, ...spec.argv], {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', out, out],
      detached: true, // own process group: stop() signals the whole tree
    })
    closeSync(out)
    const role: RunningRole = {
      spec,
      pid: child.pid!,
      exited: new Promise<Exit>((resolve) => {
        child.once('exit', (code, signal) => {
          role.exit = { code, signal }
          resolve(role.exit)
        })
        child.once('error', () => {
          role.exit = { code: 127, signal: null }
          resolve(role.exit)
        })
      }),
    }
    this.roles.set(spec.name, role)
    this.refs.set(spec.name, procRef(role.pid))
    this.saveState()
    return role
  }

  async cpuNs(role: RunningRole): Promise<number> {
    return this.cpu.read(role.spec.name, role.pid)
  }

  countingGroup(role: RunningRole): CountingGroup | string {
    if (this.cpu.source.startsWith('/proc')) return 'no cgroup for the role (no cgroup file system the harness may write): counts need one'
    return localCountingGroup(role.pid, role.spec.name)
  }

  async interrupt(role: RunningRole): Promise<void> {
    if (!role.exit) killGroup(role.pid, 'SIGINT')
  }

  async stop(role: RunningRole): Promise<void> {
    if (!role.exit) {
      killGroup(role.pid, 'SIGTERM')
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000).unref())
      if ((await Promise.race([role.exited, timeout])) === 'timeout') {
        killGroup(role.pid, 'SIGKILL')
        await role.exited
      }
    }
    // Children that outlived the main process (daemonised workers) go too.
    killGroup(role.pid, 'SIGKILL')
    this.cpu.remove(role.spec.name)
    this.roles.delete(role.spec.name)
    this.refs.delete(role.spec.name)
    this.saveState()
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.roles.values()].map((r) => this.stop(r)))
    // A role's cgroup can outlive its removal by a moment (killed children not yet reaped): the run's own dir goes now, or it would be an orphan.
    for (let i = 0; i < 30 && CGROUP_PARENTS.some((p) => existsSync(join(p, this.runId))); i++) {
      for (const p of CGROUP_PARENTS) removeCgroup(join(p, this.runId))
      await new Promise((r) => setTimeout(r, 100))
    }
    rmSync(this.stateFile, { force: true })
    untrackRuntime(this)
  }

  killAllSync(): void {
    for (const r of this.roles.values()) killGroup(r.pid, 'SIGKILL')
  }
}
