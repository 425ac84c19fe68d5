import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { cacheDir } from '../core/paths.ts'
import type { Logger } from '../core/log.ts'
import { CGROUP_PARENTS, detectCpuAccounting, removeCgroup, type CpuAccounting } from './cgroup.ts'
import { trackRuntime, untrackRuntime } from './shutdown.ts'
import type { Exit, RoleSpec, RunningRole, Runtime } from './types.ts'

/** What a run started, on disk, so that the next start can clean up after a kill -9. */
interface State {
  harnessPid: number
  roles: { name: string; pid: number }[]
}

const stateDir = () => join(cacheDir(), 'native')

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

/**
 * Removes processes and cgroups of earlier runs whose harness is gone. Returns the
 * number of processes killed.
 */
export function cleanupStale(log?: Logger): number {
  let killed = 0
  if (existsSync(stateDir())) {
    for (const f of readdirSync(stateDir()).filter((f) => f.endsWith('.json'))) {
      const file = join(stateDir(), f)
      let state: State
      try {
        state = JSON.parse(readFileSync(file, 'utf8')) as State
      } catch {
        rmSync(file, { force: true })
        continue
      }
      if (isAlive(state.harnessPid)) continue
      for (const r of state.roles.filter((r) => isAlive(r.pid))) {
        killGroup(r.pid, 'SIGKILL')
        killed++
        log?.warn(`killed ${r.name} (pid ${r.pid}) left by an earlier run`)
      }
      const runId = f.slice(0, -'.json'.length)
      for (const parent of CGROUP_PARENTS) removeCgroup(join(parent, runId))
      rmSync(file, { force: true })
    }
  }
  // cgroups with no state file at all (the harness died before writing it).
  const live = new Set(existsSync(stateDir()) ? readdirSync(stateDir()).map((f) => f.replace(/\.json$/, '')) : [])
  for (const parent of CGROUP_PARENTS.filter(existsSync)) {
    const stale = readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory() && !live.has(d.name) && !ownRuns.has(d.name))
    for (const d of stale) removeCgroup(join(parent, d.name))
  }
  return killed
}

/** Run ids of runtimes in this process, whose cgroups exist before their state file does. */
const ownRuns = new Set<string>()

export class NativeRuntime implements Runtime {
  readonly kind = 'native' as const
  readonly cpuSource: string
  private readonly roles = new Map<string, RunningRole>()
  private readonly cpu: CpuAccounting
  private readonly stateFile: string

  constructor(readonly runId: string) {
    this.cpu = detectCpuAccounting(runId)
    this.cpuSource = this.cpu.source
    this.stateFile = join(stateDir(), `${runId}.json`)
    trackRuntime(this)
    ownRuns.add(runId)
  }

  private saveState(): void {
    mkdirSync(stateDir(), { recursive: true })
    const state: State = { harnessPid: process.pid, roles: [...this.roles.values()].map((r) => ({ name: r.spec.name, pid: r.pid })) }
    writeFileSync(this.stateFile, JSON.stringify(state))
  }

  async start(spec: RoleSpec): Promise<RunningRole> {
    if (this.roles.has(spec.name)) throw new Error(`role ${spec.name} already running`)
    const procs = this.cpu.create(spec.name)
    mkdirSync(dirname(spec.logFile), { recursive: true })
    const out = openSync(spec.logFile, 'a')
    // The shell joins the cgroup before exec, so the role and all its children are counted.
    // Open files are raised to the hard limit: 5000 held WebSockets need 10000 in a proxy.
    const script = 'cg=$1; cpus=$2; shift 2; if [ -n "$cg" ]; then echo $$ > "$cg"; fi; ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec taskset -c "$cpus" "$@"'
    const child = spawn('sh', ['-c', script, 'sh', procs, spec.cpus, ...spec.argv], {
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
    this.saveState()
    return role
  }

  async cpuNs(role: RunningRole): Promise<number> {
    return this.cpu.read(role.spec.name, role.pid)
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
    this.saveState()
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.roles.values()].map((r) => this.stop(r)))
    rmSync(this.stateFile, { force: true })
    untrackRuntime(this)
  }

  killAllSync(): void {
    for (const r of this.roles.values()) killGroup(r.pid, 'SIGKILL')
  }
}
