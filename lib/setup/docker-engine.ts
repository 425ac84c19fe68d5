import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Docker from 'dockerode'
import { isRoot } from './apt.ts'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import { cacheDir } from '../core/paths.ts'

/** The engine's socket; DOCKER_HOST overrides it (dockerode reads it too). */
export const DOCKER_SOCKET = '/var/run/docker.sock'

/** What doctor shows and the manifest records about the engine. */
export interface EngineInfo {
  version: string
  apiVersion: string
  /** `1` or `2`. */
  cgroupVersion: string
  cgroupDriver: string
  storageDriver: string
  kernel: string
  /** e.g. `seccomp`, `no-new-privileges` capable options the engine reports; empty: none. */
  securityOptions: string[]
  /** Whether `Init: true` (docker-init, a tini) is available for containers. */
  init: boolean
  /** dockerd was started by this process (ensureDockerEngine). */
  started: boolean
  /** Flags it was started with, when started here. */
  flags: string[]
}

export const dockerdLog = () => join(cacheDir(), 'dockerd.log')
export const dockerdPidFile = () => join(cacheDir(), 'dockerd.pid')

let client: Docker | undefined
/** One dockerode client per process (DOCKER_HOST or the default socket). */
export function dockerClient(): Docker {
  client ??= process.env.DOCKER_HOST ? new Docker() : new Docker({ socketPath: DOCKER_SOCKET })
  return client
}

/** The engine's info, or null when nothing answers within the timeout. */
export async function engineInfo(docker = dockerClient(), timeoutMs = 3000): Promise<EngineInfo | null> {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    // dockerode passes abortSignal through; its types do not list it.
    const call = docker as unknown as { info(o: object): Promise<Record<string, any>>; version(o: object): Promise<Record<string, any>> }
    const [info, version] = await Promise.all([call.info({ abortSignal: abort.signal }), call.version({ abortSignal: abort.signal })])
    return {
      version: String(info.ServerVersion ?? version.Version),
      apiVersion: String(version.ApiVersion),
      cgroupVersion: String(info.CgroupVersion ?? '1'),
      cgroupDriver: String(info.CgroupDriver ?? ''),
      storageDriver: String(info.Driver ?? ''),
      kernel: String(info.KernelVersion ?? ''),
      securityOptions: ((info.SecurityOptions ?? []) as string[]).map((s) => s.replace(/^name=/, '').split(',')[0]!),
      init: Boolean(info.InitBinary),
      started: false,
      flags: [],
    }
  } catch {
    return null
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Flags dockerd needs on this machine. On the development machine (Debian 12, dockerd
 * 20.10.24 from Debian, cgroup v1, iptables-nft present, overlay in /proc/filesystems):
 * none, overlay2 works. Not seen there, handled anyway: without an iptables binary dockerd
 * cannot set up its bridge, so bridging is turned off (host networking, the runtime's
 * default, needs none); without overlay in the kernel, the vfs driver.
 */
export function dockerdFlags(host: { iptables: boolean; overlay: boolean }): string[] {
  const flags: string[] = []
  if (!host.iptables) flags.push('--iptables=false', '--ip6tables=false', '--bridge=none')
  if (!host.overlay) flags.push('--storage-driver=vfs')
  return flags
}

function hostFacts(): { iptables: boolean; overlay: boolean } {
  const onPath = (bin: string) => ['/usr/sbin', '/sbin', '/usr/bin', '/bin', ...(process.env.PATH ?? '').split(':')].some((d) => d && existsSync(join(d, bin)))
  let overlay = true
  try {
    overlay = /\boverlay\b/.test(readFileSync('/proc/filesystems', 'utf8'))
  } catch {}
  return { iptables: onPath('iptables'), overlay }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The dockerd this process may start (root, the local socket, `start` allowed), or a one-line error saying how to start one. */
function dockerdToStart(start: boolean): string {
  const fix = 'Start it with: sudo dockerd (or sudo systemctl start docker), or run as root and proxybench starts it'
  if (!start) throw userError('docker', `no engine answers on ${process.env.DOCKER_HOST ?? DOCKER_SOCKET}`, fix)
  if (process.env.DOCKER_HOST)
    throw userError('docker', `no engine answers on DOCKER_HOST=${process.env.DOCKER_HOST}`, 'Start that engine or unset DOCKER_HOST')
  if (!isRoot()) throw userError('docker', `no engine answers on ${DOCKER_SOCKET}`, fix)
  const dockerd = ['/usr/sbin/dockerd', '/usr/bin/dockerd'].find(existsSync)
  if (!dockerd) throw userError('docker', 'dockerd is not installed', 'Run: npx zx notebooks/00-setup.mjs (installs the Debian engine package), then re-run')
  return dockerd
}

/**
 * Returns the engine's info when the socket answers. Otherwise, as root, starts
 * `dockerd` detached in its own session (log: ~/.cache/proxybench/dockerd.log, pid in
 * dockerd.pid) and waits up to `timeoutMs`; not root, a one-line instruction.
 */
export async function ensureDockerEngine(log: Logger, opts: { start?: boolean; timeoutMs?: number } = {}): Promise<EngineInfo> {
  const found = await engineInfo()
  if (found) return found
  const dockerd = dockerdToStart(opts.start !== false)

  const flags = dockerdFlags(hostFacts())
  mkdirSync(cacheDir(), { recursive: true })
  const out = openSync(dockerdLog(), 'a')
  log.progress(`starting dockerd${flags.length ? ' ' + flags.join(' ') : ''} (log: ${dockerdLog()})`)
  // Its own session: a Ctrl-C of the harness does not reach it; it outlives the run on
  // purpose (the next run reuses it). stopStartedEngine() ends it.
  const child = spawn(dockerd, flags, {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, PATH: `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${process.env.PATH ?? ''}` },
  })
  closeSync(out)
  let exited: number | null | undefined
  child.once('exit', (code) => (exited = code))
  child.once('error', () => (exited = 127))
  child.unref()
  if (child.pid) writeFileSync(dockerdPidFile(), String(child.pid))

  const deadline = Date.now() + (opts.timeoutMs ?? 60_000)
  while (Date.now() < deadline) {
    if (exited !== undefined) break
    const info = await engineInfo(dockerClient(), 2000)
    if (info) {
      log.info(`docker: started dockerd ${info.version} (pid ${child.pid}, storage ${info.storageDriver}, cgroup v${info.cgroupVersion})`)
      return { ...info, started: true, flags }
    }
    await sleep(500)
  }
  const tail = existsSync(dockerdLog())
    ? (readFileSync(dockerdLog(), 'utf8')
        .trim()
        .split('\n')
        .filter((l) => /level=(error|fatal)|failed/i.test(l))
        .slice(-1)[0] ?? '')
    : ''
  throw userError(
    'dockerd',
    exited !== undefined
      ? `exited with code ${exited} while starting${tail ? `: ${tail.slice(0, 200)}` : ''}`
      : `did not answer on ${DOCKER_SOCKET} within ${(opts.timeoutMs ?? 60_000) / 1000} s`,
    `See ${dockerdLog()}`,
  )
}

/**
 * Stops a dockerd that ensureDockerEngine started (pid file), and only that one.
 * Returns whether one was stopped.
 */
export async function stopStartedEngine(log?: Logger, timeoutMs = 20_000): Promise<boolean> {
  if (!existsSync(dockerdPidFile())) return false
  const pid = Number(readFileSync(dockerdPidFile(), 'utf8').trim())
  rmSync(dockerdPidFile(), { force: true })
  let comm = ''
  try {
    comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return false
  }
  if (comm !== 'dockerd') return false
  process.kill(pid, 'SIGTERM')
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline && existsSync(`/proc/${pid}`)) await sleep(200)
  log?.info(`docker: stopped dockerd (pid ${pid})`)
  return true
}
