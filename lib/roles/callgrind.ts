import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { exec, lastLine } from '../core/exec.ts'

/**
 * Valgrind's callgrind, wrapped once: the command a counted proxy starts under, the control
 * commands sent to it (zero, instrumentation on/off, dump: what callgrind_control sends) and the dump's
 * total. Instructions are counted only between `on` and `off`, so start-up is never counted
 * (docs/method/work.md).
 */

/** Where a run under callgrind writes its dumps: one file per dump, `callgrind.out.<pid>.<n>`. */
export const callgrindPrefix = (outDir: string): string[] => [
  'valgrind',
  '--tool=callgrind',
  '--instr-atstart=no',
  `--callgrind-out-file=${join(outDir, 'callgrind.out.%p')}`,
  // Go programs run thousands of goroutine stacks: the default limit is for C programs.
  '--max-threads=2000',
  '--error-limit=no',
]

let version: Promise<string> | undefined
/** `valgrind-3.19.0`, or why there is none (the row's `not countable here` reason). */
export function valgrindVersion(): Promise<string | { missing: string }> {
  version ??= exec('valgrind', ['--version'], { timeoutMs: 10_000 }).then((r) => (r.code === 0 ? r.stdout.trim() : ''))
  return version.then((v) => (v ? v : { missing: 'valgrind is not installed (Debian package valgrind: apt-get install valgrind, or npm run setup as root)' }))
}

/** The process of a role's tree that runs under callgrind: the role itself (valgrind execs its tool), else a child of it. */
export function callgrindPid(rolePid: number): number | null {
  const isCallgrind = (pid: number) => {
    try {
      return /callgrind/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))
    } catch {
      return false
    }
  }
  if (isCallgrind(rolePid)) return rolePid
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid === rolePid && isCallgrind(Number(d))) return Number(d)
    } catch {}
  }
  return null
}

/**
 * One monitor command sent to the process through vgdb, which callgrind_control wraps: direct,
 * it takes 0.1 s, not 0.3 (vgdb forces its way into a process blocked in epoll after 1 ms, not 100).
 */
async function control(pid: number, command: string, attempts = CONTROL_ATTEMPTS): Promise<void> {
  const r = await exec('vgdb', ['--max-invoke-ms=1', `--pid=${pid}`, ...command.split(' ')], { timeoutMs: 60_000 })
  if (r.code === 0 && !/error|not found|cannot/i.test(r.stdout)) return
  // On a loaded machine vgdb can miss the reply of a process that is still there: ask again.
  if (attempts > 1 && existsSync(`/proc/${pid}`)) {
    await new Promise((done) => setTimeout(done, 500))
    return control(pid, command, attempts - 1)
  }
  throw new Error(`vgdb ${command} (pid ${pid}): ${lastLine(r.stderr + r.stdout) || `exit ${r.code}`}`)
}

/** Tries of one monitor command before the cell's row fails. */
const CONTROL_ATTEMPTS = 3

/** A process under callgrind, controlled through its pid; each count is one dump file. */
export class Callgrind {
  private dumps = 0

  constructor(
    readonly pid: number,
    private readonly outDir: string,
  ) {}

  /**
   * Instructions executed while `body` runs. A dump zeroes the counters and nothing is counted
   * with instrumentation off, so only the first count needs an explicit zero.
   */
  async count(body: () => Promise<void>): Promise<number> {
    if (this.dumps === 0) await control(this.pid, 'zero')
    await control(this.pid, 'instrumentation on')
    try {
      await body()
    } finally {
      await control(this.pid, 'instrumentation off')
    }
    await control(this.pid, `dump batch${++this.dumps}`)
    return dumpTotal(this.dumpFile(this.dumps))
  }

  private dumpFile(n: number): string {
    return join(this.outDir, `callgrind.out.${this.pid}.${n}`)
  }
}

/** The `totals:` line of a callgrind dump: instructions since the counters were last zeroed. */
export function dumpTotal(file: string): number {
  if (!existsSync(file)) throw new Error(`callgrind wrote no dump ${file}`)
  const m = /^totals:\s+(\d+)/m.exec(readFileSync(file, 'utf8'))
  if (!m) throw new Error(`${file}: no totals line (not a callgrind dump)`)
  return Number(m[1])
}
