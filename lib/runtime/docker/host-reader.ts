import { Writable } from 'node:stream'
import type Docker from 'dockerode'
import { parsePidStat, type ProcessSample } from '../proc.ts'
import { parseInContainerRead } from './cgroup.ts'
import { errorLine } from './stream.ts'

/*
 * A host's reader (docs/hosts.md#disturbance): one mawk process in a small container of its
 * own on an engine whose files are not on this machine, started once per run and kept. Each
 * line written to its stdin (the pids of the roles to read) is answered on the same kept
 * attach stream with the host's /proc/stat cpu lines, the root cgroup's per-CPU run time,
 * the reader's own cgroup CPU and the CPU counter of each pid's cgroup. Files are read with
 * getline: no process is started per request, where an exec per read starts one (and the
 * engine's machinery for it) every time. Host pid and cgroup namespaces, the host's
 * /sys/fs/cgroup read-only, no network, no capability, read-only root; its stdin closes
 * when the harness's connection does, and the engine then removes it.
 */

/** Where the reader sees the host's cgroup file system. */
const CGROUP_ROOT = '/host/cgroup'

/**
 * The reader. `counter(pid)`: the pid's cgroup CPU counter file (cgroup v1 cpuacct.usage, else
 * v2 cpu.stat), looked up once in /proc/PID/cgroup; `usage(file)`: `ns N` / `us N` as
 * IN_CONTAINER_READ prints it, or `-` when it cannot be read (the process is gone).
 * The first answer is the greeting: the host's boot id. A `procs` line is answered with every
 * process's /proc/PID/stat line (`ps ...`): the one request that starts a process (sh, cat;
 * at a window's two ends and a wait's polls).
 */
export const READER_AWK = `
function counter(pid,   f, l, i, c, rel, p) {
  if (pid in file) return file[pid]
  f = "/proc/" pid "/cgroup"
  p = ""
  while ((getline l < f) > 0) {
    i = index(l, ":"); c = substr(l, i + 1); i = index(c, ":"); rel = substr(c, i + 1); c = substr(c, 1, i - 1)
    if (c ~ /(^|,)cpuacct(,|$)/) p = R "/" c rel "/cpuacct.usage"
    else if (c == "" && p == "") p = R rel "/cpu.stat"
  }
  close(f)
  if (p != "") file[pid] = p
  return p
}
function usage(f,   l, v) {
  v = "-"
  if (f == "") return v
  if (f ~ /cpu[.]stat$/) { while ((getline l < f) > 0) if (l ~ /^usage_usec /) v = "us " substr(l, 12) }
  else if ((getline l < f) > 0) v = "ns " l
  close(f)
  return v
}
BEGIN {
  R = "${CGROUP_ROOT}"
  PS = "cat /proc/[0-9]*/stat 2>/dev/null"
  for (i = 0; i < 3; i++) {
    f = R "/" (i == 0 ? "cpuacct" : i == 1 ? "cpu,cpuacct" : "cpuacct,cpu") "/cpuacct.usage_percpu"
    if ((getline l < f) > 0) { percpu = f; close(f); break }
  }
  getline boot < "/proc/sys/kernel/random/boot_id"
  printf "boot %s\\n.\\n", boot
}
$1 == "procs" {
  out = ""
  while ((PS | getline l) > 0) out = out "ps " l "\\n"
  close(PS)
  printf "%s.\\n", out
  fflush()
  next
}
{
  out = ""
  while ((getline l < "/proc/stat") > 0) if (l ~ /^cpu[0-9]/) out = out l "\\n"
  close("/proc/stat")
  if (percpu != "" && (getline l < percpu) > 0) out = out "percpu " l "\\n"
  if (percpu != "") close(percpu)
  out = out "self " usage(counter("self")) "\\n"
  for (i = 1; i <= NF; i++) out = out "p " $i " " usage(counter($i)) "\\n"
  printf "%s.\\n", out
  fflush()
}
`

/** One answer of the reader. */
export interface ReaderAnswer {
  /** The cpuN lines of the host's /proc/stat. */
  stat: string
  /** The root cgroup's per-CPU run time (v1 cpuacct.usage_percpu); null: none (cgroup v2). */
  percpu: string | null
  /** The reader's own container's CPU ns. */
  selfNs: number | null
  /** Each pid's cgroup CPU ns, in the order asked; null where it could not be read (the process gone). */
  ns: (number | null)[]
}

/** An answer's lines (without the closing `.`) for the pids asked. */
export function parseReaderAnswer(lines: readonly string[], pids: readonly number[]): ReaderAnswer {
  const byPid = new Map<string, number | null>()
  let selfNs: number | null = null
  let percpu: string | null = null
  const stat: string[] = []
  for (const line of lines) {
    if (line.startsWith('cpu')) stat.push(line)
    else if (line.startsWith('percpu ')) percpu = line.slice(7)
    else if (line.startsWith('self ')) selfNs = parseInContainerRead(line.slice(5))
    else if (line.startsWith('p ')) {
      const [, pid, ...rest] = line.split(' ')
      byPid.set(pid!, parseInContainerRead(rest.join(' ')))
    }
  }
  if (stat.length === 0) throw new Error(`no /proc/stat cpu lines in its answer (${JSON.stringify(lines.join('\n').slice(0, 200))})`)
  return { stat: stat.join('\n'), percpu, selfNs, ns: pids.map((p) => byPid.get(String(p)) ?? null) }
}

/** The reader's container: unprivileged, host pid and cgroup namespaces, the host's cgroups read-only, no network, no log. */
export function readerConfig(o: {
  name: string
  image: string
  labels: Record<string, string>
  user: { uid: number; gid: number }
  cpus?: string
}): Docker.ContainerCreateOptions {
  return {
    name: o.name,
    Image: o.image,
    // -W interactive: a line is answered when it comes (mawk reads stdin in blocks otherwise).
    Entrypoint: ['mawk', '-W', 'interactive', READER_AWK],
    Cmd: [],
    WorkingDir: '/',
    User: `${o.user.uid}:${o.user.gid}`,
    Labels: o.labels,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    // The harness's connection gone (killed): stdin closes, mawk ends, the engine removes it.
    StdinOnce: true,
    Tty: false,
    HostConfig: {
      NetworkMode: 'none',
      PidMode: 'host',
      CgroupnsMode: 'host',
      Binds: [`/sys/fs/cgroup:${CGROUP_ROOT}:ro`],
      ...(o.cpus ? { CpusetCpus: o.cpus } : {}),
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Privileged: false,
      AutoRemove: true,
      // Its answers go to the harness only: the engine writes no log of them.
      LogConfig: { Type: 'none', Config: {} },
    } as Docker.HostConfig,
  }
}

/** Seconds a request may wait for its answer before the reader is taken as gone. */
const ANSWER_S = 10

interface Pending {
  resolve: (a: string[]) => void
  reject: (e: Error) => void
}

/** A started reader: requests answered in order on its kept stream. */
export class HostReader {
  /** The host's boot id (hosts with the same one are one kernel). */
  boot = ''
  /** Its mawk's pid on the host (its requests' processes are its children). */
  pid = 0
  /** Why it no longer answers (it exited, its stream closed, an answer did not come); null while it answers. */
  broken: string | null = null
  /** Requests answered. */
  reads = 0
  private readonly pending: Pending[] = []
  private lines: string[] = []
  private readonly startedAt = process.hrtime.bigint()
  private firstNs: number | null = null
  private lastNs: number | null = null

  private constructor(
    private readonly container: Docker.Container,
    private readonly stream: NodeJS.ReadWriteStream,
    readonly engine: string,
  ) {}

  /** Creates, attaches and starts the reader, and waits for its greeting; one that does not greet within `timeoutS` is removed and the error says why. */
  static async start(docker: Docker, config: Docker.ContainerCreateOptions, engine: string, timeoutS = 30): Promise<HostReader> {
    const container = await docker.createContainer(config)
    try {
      const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as NodeJS.ReadWriteStream
      const reader = new HostReader(container, stream, engine)
      const greeting = reader.ask(null, timeoutS)
      reader.follow(docker)
      await container.start()
      const boot = /^boot (\S+)$/.exec((await greeting)[0] ?? '')?.[1]
      if (!boot) throw new Error('it did not say its boot id')
      reader.boot = boot
      reader.pid = (await container.inspect()).State.Pid
      return reader
    } catch (e) {
      await container.remove({ force: true }).catch(() => {})
      throw new Error(`the host reader on ${engine} did not start: ${errorLine(e)}`)
    }
  }

  /** Reads its output line by line, each `.` closing the oldest request's answer; its exit or its stream's end breaks it. */
  private follow(docker: Docker): void {
    let text = ''
    let stderr = ''
    const out = new Writable({
      write: (c: Buffer, _e, done) => {
        text += c.toString('utf8')
        let at = text.indexOf('\n')
        while (at >= 0) {
          const line = text.slice(0, at)
          text = text.slice(at + 1)
          if (line === '.') {
            const answered = this.lines
            this.lines = []
            this.pending.shift()?.resolve(answered)
          } else this.lines.push(line)
          at = text.indexOf('\n')
        }
        done()
      },
    })
    const err = new Writable({
      write: (c: Buffer, _e, done) => {
        stderr = (stderr + c.toString('utf8')).slice(-500)
        done()
      },
    })
    docker.modem.demuxStream(this.stream, out, err)
    const ended = (why: string) => () => this.fail(`${why}${stderr.trim() ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`)
    this.stream.once('end', ended('its stream ended'))
    this.stream.once('close', ended('its stream closed'))
    this.stream.once('error', (e: Error) => this.fail(`its stream failed (${errorLine(e)})`))
    // Asked before the start: `not-running` would answer at once for the created container.
    ;(this.container.wait({ condition: 'next-exit' }) as Promise<{ StatusCode: number }>).then(
      (r) => ended(`it exited (code ${r.StatusCode})`)(),
      () => {},
    )
  }

  private fail(why: string): void {
    if (this.broken) return
    this.broken = `the host reader on ${this.engine} stopped answering: ${why}`
    for (const p of this.pending.splice(0)) p.reject(new Error(this.broken))
  }

  /** Sends one request line (null: none, the greeting is awaited); resolves to its answer's lines. */
  private ask(line: string | null, timeoutS = ANSWER_S): Promise<string[]> {
    if (this.broken) return Promise.reject(new Error(this.broken))
    return new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(`no answer within ${timeoutS} s`), timeoutS * 1000)
      timer.unref()
      const done =
        <T>(f: (x: T) => void) =>
        (x: T) => {
          clearTimeout(timer)
          f(x)
        }
      this.pending.push({ resolve: done(resolve), reject: done(reject) })
      if (line !== null) this.stream.write(`${line}\n`)
    })
  }

  /** The host's cores and each pid's cgroup CPU, read at one instant on the host (no pids: the cores alone). */
  async read(pids: readonly number[]): Promise<ReaderAnswer> {
    const answer = parseReaderAnswer(await this.ask(pids.join(' ')), pids)
    this.reads++
    if (answer.selfNs !== null) {
      this.firstNs ??= answer.selfNs
      this.lastNs = answer.selfNs
    }
    return answer
  }

  /** Every process on the host now, by pid (one that exits while read is left out). */
  async processes(): Promise<Map<number, ProcessSample>> {
    const out = new Map<number, ProcessSample>()
    for (const line of await this.ask('procs')) {
      const p = line.startsWith('ps ') ? parsePidStat(line.slice(3)) : null
      if (p) out.set(p.pid, p)
    }
    return out
  }

  /**
   * Its own CPU from its first answer to its last (its container's cgroup: mawk, the files it
   * reads), over the seconds between, and the answers: what it cost its host. The engine's
   * side (the attach stream through dockerd and the container's shim, sshd for ssh://) is not
   * in it (docs/hosts.md#disturbance has both, measured).
   */
  get cost(): { ns: number; seconds: number; reads: number } | null {
    if (this.firstNs === null || this.lastNs === null) return null
    return { ns: this.lastNs - this.firstNs, seconds: Number(process.hrtime.bigint() - this.startedAt) / 1e9, reads: this.reads }
  }

  /** Ends it: its stdin closed (mawk ends), its container removed. */
  async stop(): Promise<void> {
    if (!this.broken) this.broken = `the host reader on ${this.engine} was stopped`
    for (const p of this.pending.splice(0)) p.reject(new Error(this.broken))
    try {
      this.stream.end()
    } catch {}
    await this.container.remove({ force: true }).catch(() => {})
  }
}
