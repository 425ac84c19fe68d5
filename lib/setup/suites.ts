import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { binaryPath, suiteBuild, suiteOf, suiteRoot, type ProxyName, type StackVersion } from '../catalog/stack.ts'
import { exec, lastLine } from '../core/exec.ts'
import type { Logger } from '../core/log.ts'
import { ensureBaseTarball } from './images/base.ts'

/**
 * Versions from other Debian suites (`source: debian:<suite>`): a debootstrap minbase root
 * of the suite (cached as a tarball, like the bookworm base) with the one package installed
 * at its pinned Debian version, kept unpacked in ~/.cache/proxybench/suites/.
 *
 * Native runtime: the suite's binary runs with the suite's own dynamic loader and library
 * path (`<root>/…/ld-linux-x86-64.so.2 --inhibit-cache --library-path <root libs> <binary>`):
 * every byte of code is the suite's, yet config, certificates and run_dir keep their host
 * paths and the process is the proxy itself, in the same cgroup and under the same taskset
 * (a chroot would need every one of those bind-mounted in, and root).
 * Docker runtime: the same root, packed and `docker import`ed (lib/setup/images/build.ts).
 */

/* ---------------------------------------------------------------- the suite's loader */

/** The ELF program interpreter (PT_INTERP) of a 64-bit little-endian binary; null for a static one. */
export function elfInterpreter(file: string): string | null {
  const fd = openSync(file, 'r')
  try {
    const read = (pos: number, len: number) => {
      const b = Buffer.alloc(len)
      readSync(fd, b, 0, len, pos)
      return b
    }
    const h = read(0, 64)
    if (h.readUInt32BE(0) !== 0x7f454c46 || h[4] !== 2 || h[5] !== 1) return null
    const phoff = Number(h.readBigUInt64LE(32))
    const phentsize = h.readUInt16LE(54)
    const phnum = h.readUInt16LE(56)
    for (let i = 0; i < phnum; i++) {
      const ph = read(phoff + i * phentsize, phentsize)
      if (ph.readUInt32LE(0) !== 3) continue // PT_INTERP
      const off = Number(ph.readBigUInt64LE(8))
      const size = Number(ph.readBigUInt64LE(32))
      return read(off, size).toString('latin1').replace(/\0+$/, '')
    }
    return null
  } finally {
    closeSync(fd)
  }
}

/**
 * A path inside `root` with every symlink followed as the suite sees it: an absolute link
 * target is under `root`, not the host's (merged /usr: /lib64 → usr/lib64, and the loader
 * there → /lib/x86_64-linux-gnu/…).
 */
export function resolveInRoot(root: string, path: string): string {
  const parts = path.split('/').filter(Boolean)
  const done: string[] = []
  for (let hops = 0; parts.length > 0; ) {
    const part = parts.shift()!
    if (part === '.') continue
    if (part === '..') {
      done.pop()
      continue
    }
    const host = join(root, ...done, part)
    let link: string | null = null
    try {
      if (lstatSync(host).isSymbolicLink()) link = readlinkSync(host)
    } catch {}
    if (link === null) {
      done.push(part)
      continue
    }
    if (++hops > 40) throw new Error(`${path} in ${root}: too many symbolic links`)
    if (link.startsWith('/')) done.length = 0
    parts.unshift(...link.split('/').filter(Boolean))
  }
  return join(root, ...done)
}

/** argv before the binary for the native runtime (and the checker): the suite's loader and libraries; [] for a static binary. */
export function suiteLauncher(root: string, binary: string): string[] {
  const interp = elfInterpreter(binary)
  if (!interp) return []
  const loader = resolveInRoot(root, interp)
  // The loader lives in the multiarch directory (…/lib/x86_64-linux-gnu); libraries are there and under usr/.
  const triplet = posix.basename(dirname(loader))
  const dirs = [`lib/${triplet}`, `usr/lib/${triplet}`, 'lib', 'usr/lib']
    .map((d) => resolveInRoot(root, d))
    .filter((d, i, all) => existsSync(d) && all.indexOf(d) === i)
  return [loader, '--inhibit-cache', '--library-path', dirs.join(':')]
}

/** The launcher of a catalog version: the suite's loader for `debian:<suite>`, else nothing. */
export function launchPrefix(proxy: ProxyName, v: StackVersion): string[] {
  const suite = suiteOf(v)
  if (!suite) return []
  const bin = binaryPath(proxy, v)
  return existsSync(bin) ? suiteLauncher(suiteRoot(suite, v.package, suiteBuild(proxy, v).build), bin) : []
}

/* ---------------------------------------------------------------- building a root */

// The mirror's sid snapshot may carry an expired Release date (Valid-Until); signatures are still checked.
const APT_OPTS = '-o Acquire::Check-Valid-Until=false'

/** Suites that are not a whole distribution: packages on top of another suite's root (experimental needs sid). */
const OVERLAYS: Record<string, string> = { experimental: 'sid' }

/** The suite whose debootstrap base a suite's roots start from. */
export const baseSuite = (suite: string): string => OVERLAYS[suite] ?? suite

/**
 * A fresh copy of the suite's cached base in `dest`, ready for apt in a chroot: the host's
 * resolv.conf, and for an overlay suite its own line beside the base suite's sources.
 */
async function unpackBase(suite: string, dest: string, log: Logger, sources: readonly string[] = extraAptSources()): Promise<string | undefined> {
  let base: string
  try {
    base = (await ensureBaseTarball(log, baseSuite(suite))).path
  } catch (e) {
    return (e as Error).message
  }
  rmSync(dest, { recursive: true, force: true })
  mkdirSync(dest, { recursive: true })
  const x = await exec('tar', ['--numeric-owner', '-C', dest, '-xf', base], { timeoutMs: 10 * 60_000 })
  if (x.code !== 0) return `unpacking ${base} failed: ${lastLine(x.stderr)}`
  if (existsSync('/etc/resolv.conf')) copyFileSync('/etc/resolv.conf', join(dest, 'etc/resolv.conf'))
  if (OVERLAYS[suite]) {
    const list = join(dest, 'etc/apt/sources.list.d/sources.list')
    const first = readFileSync(existsSync(list) ? list : join(dest, 'etc/apt/sources.list'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('deb '))
    if (!first) return `${suite}: no apt source in the ${OVERLAYS[suite]} base to add ${suite} to`
    writeFileSync(join(dest, `etc/apt/sources.list.d/${suite}.list`), first.replace(/^(deb\s+(?:\[[^\]]*\]\s+)?\S+)\s+\S+/, `$1 ${suite}`) + '\n')
  }
  return addAptSources(dest, sources)
}

/**
 * Extra apt sources for every suite root (PROXYBENCH_APT_SOURCES, one `deb …` line per line):
 * a snapshot or a local mirror that still serves the pinned builds a year later
 * (docs/catalog.md#when-a-pin-moves). Empty when unset.
 */
export function extraAptSources(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.PROXYBENCH_APT_SOURCES ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
}

/** Writes the extra sources into a root; a `file:` repository is copied in at its own path so the line means the same inside. */
function addAptSources(root: string, sources: readonly string[]): string | undefined {
  if (sources.length === 0) return undefined
  for (const line of sources) {
    if (!/^deb\s/.test(line)) return `PROXYBENCH_APT_SOURCES: "${line}" is not a "deb …" source line`
    const dir = /\sfile:(\/\S*)/.exec(line)?.[1]
    if (dir) cpSync(dir, join(root, dir), { recursive: true })
  }
  writeFileSync(join(root, 'etc/apt/sources.list.d/proxybench-extra.list'), sources.join('\n') + '\n')
  return undefined
}

const CHROOT_ENV = { DEBIAN_FRONTEND: 'noninteractive', PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' }

/**
 * The unpacked suite root with `package=debVersion` installed. Built in a temp dir renamed
 * on success (an interrupted setup never leaves a root that looks complete); about a
 * minute the first time for a suite (debootstrap), seconds per package after that.
 */
export async function ensureSuiteRoot(suite: string, pkg: string, debVersion: string, log: Logger): Promise<{ root: string; built: boolean; error?: string }> {
  const root = suiteRoot(suite, pkg, debVersion)
  if (existsSync(root)) return { root, built: false }
  const tmp = `${root}.tmp-${process.pid}`
  try {
    const error = await unpackBase(suite, tmp, log)
    if (error) return { root, built: false, error }
    log.progress(`${suite}: apt-get install ${pkg}=${debVersion}`)
    const script = `apt-get ${APT_OPTS} update -q && apt-get install -y -q --no-install-recommends ${pkg}=${debVersion} && apt-get clean && rm -rf /var/lib/apt/lists/*`
    const r = await exec('chroot', [tmp, '/bin/sh', '-c', script], { env: CHROOT_ENV, timeoutMs: 15 * 60_000 })
    if (r.code !== 0)
      return {
        root,
        built: false,
        error: `${suite}: apt-get install ${pkg}=${debVersion} failed: ${lastLine(r.stderr) || lastLine(r.stdout)} (is it still served? npm run catalog -- --check)`,
      }
    mkdirSync(dirname(root), { recursive: true })
    renameSync(tmp, root)
    return { root, built: true }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** Debian versions of each package a suite offers now, as apt in a fresh copy of its cached base sees them (`apt-cache madison`). */
export async function suiteOffers(suite: string, pkgs: readonly string[], log: Logger): Promise<{ versions: Map<string, string[]>; error?: string }> {
  const tmp = join(dirname(suiteRoot(suite, 'x', 'x')), `madison.tmp-${process.pid}`)
  try {
    const error = await unpackBase(suite, tmp, log)
    if (error) return { versions: new Map(), error }
    log.progress(`${suite}: apt-get update, apt-cache madison ${pkgs.join(' ')}`)
    const r = await exec('chroot', [tmp, '/bin/sh', '-c', `apt-get ${APT_OPTS} update -q >/dev/null && apt-cache madison ${pkgs.join(' ')}`], {
      env: CHROOT_ENV,
      timeoutMs: 10 * 60_000,
    })
    if (r.code !== 0) return { versions: new Map(), error: `${suite}: apt-get update failed: ${lastLine(r.stderr)}` }
    // An overlay suite's root also lists its base suite: only the overlay's own builds count.
    return {
      versions: parseMadison(
        r.stdout
          .split('\n')
          .filter((l) => !OVERLAYS[suite] || l.includes(` ${suite}/`))
          .join('\n'),
      ),
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** `apt-cache madison` output: each package's Debian versions, once each, in its order. */
export function parseMadison(out: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  for (const line of out.split('\n')) {
    const [pkg, version] = line.split('|').map((c) => c.trim())
    if (!pkg || !version || line.split('|').length < 3) continue
    const list = found.get(pkg) ?? []
    if (!list.includes(version)) list.push(version)
    found.set(pkg, list)
  }
  return found
}
