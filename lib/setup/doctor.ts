import { existsSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { aptInstall, DEBIAN_PACKAGES, debianVersions, installCommand, isRoot } from './apt.ts'
import { loadStack, suiteOf, type ProxyName, type Stack, type StackVersion } from '../catalog/stack.ts'
import { hostDebianRow, suiteRow, wheelRow } from './builds.ts'
import type { ComponentRow } from './component.ts'
import { DOCKER_SOCKET, engineInfo, ensureDockerEngine } from './docker-engine.ts'
import { exec } from '../core/exec.ts'
import { ensureGoBuild, GO_PROGRAMS, goBinaryPath, type GoProgram } from './gobuild.ts'
import { h3Label, h3Support } from './h3-support.ts'
import { sha256FileCached } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'

export interface SetupOptions {
  proxies: readonly ProxyName[]
  /** false: only look, install nothing (doctor --check). */
  install: boolean
  /** --strict-builds: refuse a substitute for a pinned build that is gone (lib/setup/builds.ts). */
  strict?: boolean
  log: Logger
  /**
   * Also the Docker engine row, starting dockerd when `install` (default true). Runs leave
   * the engine to --runtime, so `auto` keeps meaning "docker when one already answers".
   */
  engine?: boolean
}

/**
 * Finds or installs every component and returns one row each. A missing piece
 * becomes a row with a one-line note and the fix; the others are still set up.
 */
export async function setup(opts: SetupOptions): Promise<ComponentRow[]> {
  const { log } = opts
  const stacks = opts.proxies.map((p) => loadStack(p))
  const rows: ComponentRow[] = []

  const debianWanted = Object.keys(DEBIAN_PACKAGES)
  const { debian, aptHint } = await debianPackages(debianWanted, opts)

  for (const stack of stacks) {
    for (const v of stack.versions) {
      log.progress(`checking ${stack.proxy} ${v.version} (${v.source})`)
      const row = await versionRow(stack, v, debian, aptHint, opts)
      // Asked after the install: the probe runs the binary (docs/series/h3.md#which-builds-can).
      rows.push({ ...row, h3: h3Label(h3Support(stack.proxy, v)) })
    }
  }
  for (const name of GO_PROGRAMS) {
    log.progress(`building stacks/${name} (cached by source hash)`)
    rows.push(await goRow(name, opts.install))
  }
  // Packages that are proxy versions already have their row above.
  const proxyPackages = new Set(stacks.flatMap((st) => st.versions.filter((v) => v.source === 'debian').map((v) => v.package)))
  for (const pkg of debianWanted) {
    if (proxyPackages.has(pkg)) continue
    rows.push(await fileRow(pkg, `debian ${pkg}`, debian.get(pkg) ?? '', DEBIAN_PACKAGES[pkg]!, aptHint))
  }
  rows.push(await pythonRow())
  if (opts.engine !== false) rows.push(await engineRow(opts.install, ['/usr/sbin/dockerd', '/usr/bin/dockerd'].some(existsSync), log))
  return rows
}

/**
 * The host's Debian packages the harness uses, those missing installed first when asked and
 * root; with the fix a row names for one still missing (the install's error, or the command).
 */
async function debianPackages(wanted: string[], opts: SetupOptions): Promise<{ debian: Map<string, string | null>; aptHint: string }> {
  const before = await debianVersions(wanted)
  const missing = wanted.filter((p) => !before.get(p))
  const installed = missing.length > 0 && opts.install && isRoot() ? await aptInstall(missing, opts.log) : null
  const debian = installed ? await debianVersions(wanted) : before
  const aptFix = isRoot() ? installCommand(missing) : `sudo ${installCommand(missing)}`
  return { debian, aptHint: installed?.error ?? `run: ${aptFix}` }
}

/** The row of one catalog version, by its source: the host's Debian, another suite, or a wheel. */
function versionRow(stack: Stack, v: StackVersion, debian: Map<string, string | null>, aptHint: string, opts: SetupOptions): Promise<ComponentRow> {
  if (v.source === 'debian') return hostDebianRow(stack, v, debian.get(v.package), aptHint, opts)
  return suiteOf(v) ? suiteRow(stack, v, opts) : wheelRow(stack, v, opts)
}

/** The doctor row's component name for the running Docker engine. */
export const ENGINE_COMPONENT = 'docker engine'

/**
 * The running engine: version, cgroup version, storage driver. When it does not answer
 * and `install`: started in the background as root (ensureDockerEngine), otherwise a
 * missing row with the one-line fix. Without `install` it only asks.
 */
async function engineRow(install: boolean, installed: boolean, log: Logger): Promise<ComponentRow> {
  const where = process.env.DOCKER_HOST ?? DOCKER_SOCKET
  let info = await engineInfo()
  let problem = ''
  if (!info && install && isRoot() && installed) {
    log.progress('docker engine: not answering, starting dockerd')
    try {
      info = await ensureDockerEngine(log)
    } catch (e) {
      problem = (e as Error).message
    }
  }
  if (info)
    return {
      component: ENGINE_COMPONENT,
      version: info.version,
      source: `dockerd, cgroup v${info.cgroupVersion}${info.cgroupDriver ? ` (${info.cgroupDriver})` : ''}, storage ${info.storageDriver}`,
      path: where,
      sha256: '',
      status: 'ok',
    }
  const fix = !installed
    ? 'dockerd is not installed (see the docker.io row)'
    : !isRoot()
      ? 'start it with: sudo dockerd & (or sudo systemctl start docker); the native runtime works without it'
      : install
        ? problem
        : 'run: npx zx notebooks/00-setup.mjs (as root it starts dockerd), or start dockerd yourself'
  return {
    component: ENGINE_COMPONENT,
    version: '-',
    source: 'dockerd',
    path: where,
    sha256: '',
    status: 'missing',
    note: `docker engine: no engine answers on ${where}; ${fix}`,
  }
}

async function fileRow(component: string, source: string, version: string, path: string, fix: string): Promise<ComponentRow> {
  if (!version || !existsSync(path))
    return { component, version: version || '-', source, path, sha256: '', status: 'missing', note: `${component} is not installed; ${fix}` }
  return { component, version, source, path, sha256: await sha256FileCached(path), status: 'ok' }
}

async function goRow(name: GoProgram, install: boolean): Promise<ComponentRow> {
  const path = goBinaryPath(name)
  // The version of our own programs is the hash of their sources.
  const row = { component: name, version: basename(dirname(path)).slice(name.length + 1), source: `go build stacks/${name}`, path }
  if (!install && !existsSync(path))
    return { ...row, sha256: '', status: 'missing', note: `${name} is not built for the current sources; run: npx zx notebooks/00-setup.mjs` }
  const r = await ensureGoBuild(name)
  if (r.error) return { ...row, sha256: '', status: 'failed', note: `${name}: ${r.error}; install Go (https://go.dev/doc/install) and re-run setup` }
  return { ...row, sha256: await sha256FileCached(path), status: r.built ? 'built' : 'ok' }
}

async function pythonRow(): Promise<ComponentRow> {
  const r = await exec('python3', ['-m', 'pip', '--version'])
  const ok = r.code === 0
  return {
    component: 'pip',
    version: ok ? (r.stdout.split(' ')[1] ?? '') : '-',
    source: 'python3 -m pip',
    path: 'python3',
    sha256: '',
    status: ok ? 'ok' : 'missing',
    ...(ok ? {} : { note: 'pip is needed to fetch proxy wheels; run: apt-get install -y python3-pip' }),
  }
}
