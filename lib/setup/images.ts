import { chmodSync, copyFileSync, createReadStream, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import type Docker from 'dockerode'
import { debianVersions, isRoot } from './apt.ts'
import { binaryPath, loadStack, suiteOf, wheelDir, type ProxyName, type Stack, type StackVersion } from '../catalog/stack.ts'
import { ensureSuiteRoot } from './suites.ts'
import { dockerClient } from './docker-engine.ts'
import { writeFileAtomic } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import { exec, lastLine } from '../core/exec.ts'
import { ensureGoBuild, goBinaryPath, type GoProgram } from './gobuild.ts'
import { sha256FileCached, sha256Text } from '../core/hash.ts'
import type { Logger } from '../core/log.ts'
import { cacheDir, stacksDir } from '../core/paths.ts'

/**
 * Images of the Docker runtime.
 *
 * offline: a Debian bookworm base from `debootstrap --variant=minbase` + `docker import`,
 * then one image per catalog version from stacks/proxy.Dockerfile (proxies) or stacks/<program>/Dockerfile that installs the
 * Debian package or copies the cached binary. Every binary sits at the SAME absolute path
 * as on the host, so the command line the harness builds (lib/roles/proxy.ts) runs unchanged.
 *
 * official: the tags under `images:` of stacks/<proxy>/stack.yaml, pulled through the
 * engine; the binary is where that image keeps it (OFFICIAL_BINARY) and the runtime
 * rewrites argv[0]. backend and loadgen (our Go programs, with wrk) are always built.
 */

export const BASE_REPO = 'proxybench/base'
export const BASE_TAG = 'bookworm'
export const BASE_IMAGE = `${BASE_REPO}:${BASE_TAG}`
export const IMAGE_MODES = ['offline', 'official', 'auto'] as const
export type ImageMode = (typeof IMAGE_MODES)[number]

export const imagesDir = () => join(cacheDir(), 'images')
/** stacks/base/: what goes into the base rootfs besides debootstrap's packages. */
export const baseDir = join(stacksDir, 'base')
const BASE_FILES = { 'policy-rc.d': 'usr/sbin/policy-rc.d', '90proxybench': 'etc/apt/apt.conf.d/90proxybench' } as const
/** The cached rootfs tarball; its name carries a hash of stacks/base so an edit there rebuilds it. */
export const baseTarball = (suite = BASE_TAG) => {
  const h = sha256Text(Object.keys(BASE_FILES).map((f) => `${f}\0${readFileSync(join(baseDir, f), 'utf8')}`).join('\0')).slice(0, 8)
  return join(imagesDir(), `${suite}-minbase-${h}.tar`)
}
export const recordsFile = () => join(imagesDir(), 'images.json')

/** Where each official image keeps the proxy binary. */
export const OFFICIAL_BINARY: Record<ProxyName, string> = {
  nginx: '/usr/sbin/nginx',
  haproxy: '/usr/local/sbin/haproxy',
  envoy: '/usr/local/bin/envoy',
  traefik: '/usr/local/bin/traefik',
  caddy: '/usr/bin/caddy',
}

/** Environment the harness sets for a cached binary that an official image must not get. */
const HOST_ONLY_ENV = ['LD_LIBRARY_PATH']

/** One image per component version, as the runtime looks it up. */
export interface ImageRecord {
  component: string
  version: string
  mode: 'offline' | 'official'
  /** Tag (offline: proxybench/<component>:<version>) or pulled reference. */
  image: string
  /** Image id, `sha256:…`. */
  id: string
  /** Repository digest of a pulled image; null for a local build. */
  digest: string | null
  /** The argv[0] values (host paths, or `wrk`) this image serves. */
  binaries: string[]
  /** Where that binary is inside the image (offline: the host path). */
  image_binary: string
  /** Environment keys not passed into the container. */
  drop_env: string[]
  /** Hash of everything the build used; a change rebuilds. */
  input: string
  seconds: number | null
}

/** A build of one offline image: pure data, tested in test/setup/images.test.ts. */
export interface ImagePlan {
  component: string
  version: string
  tag: string
  dockerfile: string
  buildArgs: Record<string, string>
  /** Host files copied into the image at the same absolute path. */
  files: string[]
  binaries: string[]
  imageBinary: string
}

/** Docker tags allow [A-Za-z0-9_.-], at most 128 characters, not starting with . or -. */
export function imageTag(component: string, version: string): string {
  const clean = version.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^[.-]+/, '').slice(0, 128) || 'latest'
  return `proxybench/${component.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:${clean}`
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : d.isFile() ? [join(dir, d.name)] : []))
}

/** One Dockerfile for every proxy: they differ only in the arguments that print the version. */
export const PROXY_DOCKERFILE = join(stacksDir, 'proxy.Dockerfile')
const VERSION_ARGS: Record<ProxyName, string> = { haproxy: '-v', nginx: '-v', envoy: '--version', traefik: 'version', caddy: 'version' }

/**
 * The offline image of one catalog version. `debianVersion` is the host's installed
 * version of the package, so the image gets the very same build (`apt-get install
 * nginx=1.22.1-9+deb12u11`); unknown: the mirror's candidate.
 */
export function proxyImagePlan(stack: Stack, v: StackVersion, debianVersion?: string | null, list: (dir: string) => string[] = filesUnder): ImagePlan {
  const bin = binaryPath(stack.proxy, v)
  const files = v.source === 'debian' ? [] : [bin, ...(v.lib_dir ? list(join(wheelDir(stack.proxy, v.version), v.lib_dir)) : [])]
  return {
    component: stack.proxy,
    version: v.version,
    tag: imageTag(stack.proxy, v.version),
    dockerfile: PROXY_DOCKERFILE,
    buildArgs: {
      BASE: BASE_IMAGE,
      PACKAGES: v.source === 'debian' ? (debianVersion ? `${v.package}=${debianVersion}` : v.package) : '',
      BINARY: bin,
      VERSION_ARGS: VERSION_ARGS[stack.proxy],
    },
    files: [...new Set(files)],
    binaries: [bin],
    imageBinary: bin,
  }
}

/** The backend image (its Go build) or the generator image (loadgen's Go build + Debian wrk and h2load, at the host's versions). */
export function goImagePlan(name: GoProgram, wrkVersion?: string | null, nghttp2Version?: string | null): ImagePlan {
  const pin = (pkg: string, v?: string | null) => (v ? `${pkg}=${v}` : pkg)
  const bin = goBinaryPath(name)
  const version = basename(dirname(bin)).slice(name.length + 1)
  return {
    component: name,
    version,
    tag: imageTag(name, version),
    dockerfile: join(stacksDir, name, 'Dockerfile'),
    buildArgs: { BASE: BASE_IMAGE, PACKAGES: name === 'loadgen' ? `${pin('wrk', wrkVersion)} ${pin('nghttp2-client', nghttp2Version)}` : '', BINARY: bin },
    files: [bin],
    binaries: name === 'loadgen' ? [bin, 'wrk', '/usr/bin/wrk', 'h2load', '/usr/bin/h2load'] : [bin],
    imageBinary: bin,
  }
}

/** The official image a user online pulls for a catalog version, if stack.yaml lists one. */
export function officialRef(stack: Stack, version: string): string | undefined {
  return stack.images.find((i) => i.version === version)?.tag
}

/** A record keyed by component and version; the newest wins. */
export function readImageRecords(file = recordsFile()): ImageRecord[] {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ImageRecord[]
  } catch {
    return []
  }
}

/** Newest wins, per component and version and per binary (`wrk` moves to the newest generator image). */
export function mergeRecords(old: ImageRecord[], add: ImageRecord[]): ImageRecord[] {
  const key = (r: ImageRecord) => `${r.component}@${r.version}`
  const map = new Map(old.map((r) => [key(r), r]))
  for (const r of add) {
    for (const [k, o] of map) if (o.binaries.some((b) => r.binaries.includes(b))) map.delete(k)
    map.set(key(r), r)
  }
  return [...map.values()].sort((a, b) => key(a).localeCompare(key(b)))
}

function writeImageRecords(add: ImageRecord[], file = recordsFile()): void {
  writeFileAtomic(file, JSON.stringify(mergeRecords(readImageRecords(file), add), null, 2) + '\n')
}

/** The record whose image serves this argv[0] (a host path, or `wrk`). */
export function imageFor(records: readonly ImageRecord[], argv0: string): ImageRecord | undefined {
  return records.find((r) => r.binaries.includes(argv0))
}

/** Input hash of a plan: Dockerfile, build args, base image and every copied file's sha256. */
export async function planInput(plan: ImagePlan, baseId: string): Promise<string> {
  const files = await Promise.all(plan.files.map(async (f) => `${f}\0${await sha256FileCached(f)}`))
  return sha256Text(JSON.stringify({ dockerfile: readFileSync(plan.dockerfile, 'utf8'), args: plan.buildArgs, baseId, files })).slice(0, 32)
}

/* ---------------------------------------------------------------- base image */

/** Debian entries of the host's apt sources, so the image installs the host's exact package versions. */
export function debianSources(files: Record<string, string>): { name: string; text: string } | null {
  for (const [name, text] of Object.entries(files)) {
    if (name.endsWith('.sources')) {
      const stanzas = text.split(/\n\s*\n/).filter((s) => /^URIs:.*\/debian(-security)?\/?\s*$/m.test(s) && !/^Enabled:\s*no/im.test(s))
      if (stanzas.length) return { name: 'debian.sources', text: stanzas.map((s) => s.trim()).join('\n\n') + '\n' }
    }
  }
  const lines = Object.entries(files)
    .filter(([n]) => n.endsWith('.list'))
    .flatMap(([, t]) => t.split('\n'))
    .filter((l) => /^deb\s+(\[[^\]]*\]\s+)?\S+\/debian(-security)?\/?\s/.test(l.trim()))
  return lines.length ? { name: 'sources.list', text: lines.join('\n') + '\n' } : null
}

function hostAptSources(): Record<string, string> {
  const files: Record<string, string> = {}
  const read = (f: string) => {
    try {
      files[f] = readFileSync(f, 'utf8')
    } catch {}
  }
  read('/etc/apt/sources.list')
  if (existsSync('/etc/apt/sources.list.d')) for (const f of readdirSync('/etc/apt/sources.list.d')) read(join('/etc/apt/sources.list.d', f))
  // sources.list has no .list suffix of its own; give it one for debianSources().
  if (files['/etc/apt/sources.list'] !== undefined) {
    files['/etc/apt/sources.list.list'] = files['/etc/apt/sources.list']!
    delete files['/etc/apt/sources.list']
  }
  return files
}

/** The first Debian mirror of the host's apt sources, for debootstrap (undefined: its default). */
export function mirrorOf(sources: { name: string; text: string } | null): string | undefined {
  if (!sources) return undefined
  const uris = sources.name.endsWith('.sources')
    ? [...sources.text.matchAll(/^URIs:\s*(.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/))
    : [...sources.text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)].map((m) => m[1]!)
  return uris.find((u) => /\/debian\/?$/.test(u))
}

/** Suites without -updates and -security pockets. */
const ROLLING = new Set(['sid', 'unstable', 'experimental'])

/** apt sources of another suite's root (lib/setup/suites.ts): the suite, and for a release its -updates and -security pockets. */
export function suiteSources(suite: string, mirror: string): { name: string; text: string } {
  const m = mirror.replace(/\/+$/, '')
  const lines = [`deb ${m} ${suite} main`]
  if (!ROLLING.has(suite)) lines.push(`deb ${m} ${suite}-updates main`, `deb ${m.replace(/\/debian$/, '/debian-security')} ${suite}-security main`)
  return { name: 'sources.list', text: lines.join('\n') + '\n' }
}

/**
 * The base rootfs tarball: debootstrap minbase bookworm, the host's Debian sources,
 * a policy-rc.d that keeps package services from starting, no apt caches. Cached in
 * ~/.cache/proxybench/images/; about 30 s once. Another suite (`debian:<suite>` versions)
 * gets the same files and that suite's sources from the same mirror.
 */
export async function ensureBaseTarball(log: Logger, suite = BASE_TAG): Promise<{ path: string; built: boolean; seconds: number }> {
  const path = baseTarball(suite)
  if (existsSync(path)) return { path, built: false, seconds: 0 }
  if (!isRoot()) throw userError('debootstrap', 'building the base image needs root', 'Run: sudo npx zx notebooks/02-stacks.mjs, or --images official on a machine that reaches a registry')
  if (!existsSync('/usr/sbin/debootstrap')) throw userError('debootstrap', 'not installed', 'Run: npx zx notebooks/00-setup.mjs (installs Debian debootstrap)')
  const t0 = Date.now()
  mkdirSync(imagesDir(), { recursive: true })
  const root = join(imagesDir(), `rootfs.tmp-${suite}-${process.pid}`)
  rmSync(root, { recursive: true, force: true })
  const hostSources = debianSources(hostAptSources())
  const mirror = mirrorOf(hostSources)
  const sources = suite === BASE_TAG ? hostSources : mirror ? suiteSources(suite, mirror) : null
  log.progress(`debootstrap --variant=minbase ${suite}${mirror ? ` (${mirror})` : ''}: about 30 s`)
  try {
    const r = await exec('/usr/sbin/debootstrap', ['--variant=minbase', suite, root, ...(mirror ? [mirror] : [])], { timeoutMs: 15 * 60_000 })
    if (r.code !== 0) throw new Error(`debootstrap failed (exit ${r.code}): ${lastLine(r.stderr) || lastLine(r.stdout)}`)
    for (const [file, dest] of Object.entries(BASE_FILES)) {
      copyFileSync(join(baseDir, file), join(root, dest))
      chmodSync(join(root, dest), file === 'policy-rc.d' ? 0o755 : 0o644)
    }
    if (sources) {
      writeFileSync(join(root, 'etc/apt/sources.list'), '')
      writeFileSync(join(root, 'etc/apt/sources.list.d', sources.name), sources.text)
    }
    for (const d of ['var/cache/apt/archives', 'var/lib/apt/lists']) {
      for (const f of readdirSync(join(root, d))) if (f !== 'partial' && f !== 'lock') rmSync(join(root, d, f), { recursive: true, force: true })
    }
    log.progress('packing the base rootfs')
    const tmp = `${path}.tmp-${process.pid}`
    const t = await exec('tar', ['--numeric-owner', '-C', root, '-cf', tmp, '.'], { timeoutMs: 10 * 60_000 })
    if (t.code !== 0) throw new Error(`tar of the base rootfs failed: ${lastLine(t.stderr)}`)
    renameSync(tmp, path)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
  return { path, built: true, seconds: (Date.now() - t0) / 1000 }
}

async function imageInspect(docker: Docker, ref: string): Promise<Docker.ImageInspectInfo | null> {
  try {
    return await docker.getImage(ref).inspect()
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return null
    throw e
  }
}

/** Reads a JSON-lines progress stream of the engine; rejects on its first error. */
function follow(docker: Docker, stream: NodeJS.ReadableStream, onEvent: (e: Record<string, any>) => void): Promise<Record<string, any>[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, out: Record<string, any>[]) => {
        if (err) return reject(err)
        const bad = out.find((e) => e.error || e.errorDetail)
        if (bad) return reject(new Error(String(bad.error ?? bad.errorDetail?.message).trim()))
        resolve(out)
      },
      onEvent,
    )
  })
}

/** `docker import` of the base tarball as proxybench/base:bookworm; re-imported when the tarball changes. */
export async function ensureBaseImage(log: Logger, docker = dockerClient()): Promise<ImageRow & { id: string }> {
  const t0 = Date.now()
  const tar = await ensureBaseTarball(log)
  const input = (await sha256FileCached(tar.path)).slice(0, 32)
  const existing = await imageInspect(docker, BASE_IMAGE)
  if (existing && existing.Config?.Labels?.['proxybench.input'] === input) {
    return { component: 'base', version: BASE_TAG, image: BASE_IMAGE, id: existing.Id, status: 'cached', seconds: (Date.now() - t0) / 1000 }
  }
  log.progress(`docker import ${basename(tar.path)} as ${BASE_IMAGE}`)
  const stream = await docker.importImage(createReadStream(tar.path), {
    repo: BASE_REPO,
    tag: BASE_TAG,
    changes: ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `LABEL proxybench.input=${input} proxybench.component=base`, 'CMD ["/bin/bash"]'],
  } as object)
  await follow(docker, stream, () => {})
  const img = await imageInspect(docker, BASE_IMAGE)
  if (!img) throw new Error(`docker import did not create ${BASE_IMAGE}`)
  return { component: 'base', version: BASE_TAG, image: BASE_IMAGE, id: img.Id, status: tar.built ? 'built' : 'imported', seconds: (Date.now() - t0) / 1000 }
}

/* ---------------------------------------------------------------- builds */

/** One row of 02-stacks' table. */
export interface ImageRow {
  component: string
  version: string
  image: string
  id: string
  status: 'cached' | 'built' | 'imported' | 'pulled' | 'failed' | 'skipped'
  seconds: number
  digest?: string | null
  note?: string
}

/** Hard links (copies across file systems) of the plan's files under ctx/rootfs at their absolute paths. */
function assembleContext(plan: ImagePlan): string {
  const ctx = mkdtempSync(join(tmpdir(), `proxybench-build-${plan.component}-`))
  copyFileSync(plan.dockerfile, join(ctx, 'Dockerfile'))
  mkdirSync(join(ctx, 'rootfs'))
  for (const f of plan.files) {
    const dest = join(ctx, 'rootfs', f)
    mkdirSync(dirname(dest), { recursive: true })
    try {
      linkSync(f, dest)
    } catch {
      copyFileSync(f, dest)
    }
  }
  return ctx
}

/** Builds one offline image unless an image with the same inputs exists. */
export async function buildPlan(plan: ImagePlan, baseId: string, log: Logger, opts: { force?: boolean; docker?: Docker; prefix?: string } = {}): Promise<{ row: ImageRow; record?: ImageRecord }> {
  const docker = opts.docker ?? dockerClient()
  const t0 = Date.now()
  const fail = (note: string) => ({ row: { component: plan.component, version: plan.version, image: plan.tag, id: '', status: 'failed' as const, seconds: (Date.now() - t0) / 1000, note } })
  const absent = plan.files.find((f) => !existsSync(f))
  if (absent) return fail(`${absent} is missing; run: npx zx notebooks/00-setup.mjs`)
  if (!existsSync(plan.dockerfile)) return fail(`${plan.dockerfile} is missing`)
  const input = await planInput(plan, baseId)
  const record = (id: string, seconds: number | null): ImageRecord => ({
    component: plan.component, version: plan.version, mode: 'offline', image: plan.tag, id, digest: null,
    binaries: plan.binaries, image_binary: plan.imageBinary, drop_env: [], input, seconds,
  })
  const existing = await imageInspect(docker, plan.tag)
  if (!opts.force && existing?.Config?.Labels?.['proxybench.input'] === input) {
    return { row: { component: plan.component, version: plan.version, image: plan.tag, id: existing.Id, status: 'cached', seconds: (Date.now() - t0) / 1000 }, record: record(existing.Id, null) }
  }
  const ctx = assembleContext(plan)
  try {
    const stream = await docker.buildImage({ context: ctx, src: ['Dockerfile', 'rootfs'] }, {
      t: plan.tag,
      buildargs: plan.buildArgs,
      labels: { 'proxybench.input': input, 'proxybench.component': plan.component, 'proxybench.version': plan.version, 'proxybench.binary': plan.imageBinary },
      // apt-get inside the build reaches the mirror without depending on bridge NAT.
      networkmode: 'host',
      rm: true,
      forcerm: true,
      pull: false,
    } as object)
    let step = ''
    await follow(docker, stream, (e) => {
      const m = typeof e.stream === 'string' ? /^Step (\d+\/\d+) : (.*)/.exec(e.stream) : null
      if (m) {
        step = m[1]!
        log.progress(`${opts.prefix ?? ''}building ${plan.tag} · step ${step}: ${m[2]!.slice(0, 60)}`)
      }
    })
    const img = await imageInspect(docker, plan.tag)
    if (!img || img.Config?.Labels?.['proxybench.input'] !== input) return fail(`the build finished but ${plan.tag} is not the new image`)
    const seconds = (Date.now() - t0) / 1000
    return { row: { component: plan.component, version: plan.version, image: plan.tag, id: img.Id, status: 'built', seconds }, record: record(img.Id, seconds) }
  } catch (e) {
    return fail(`docker build of ${plan.tag} failed: ${(e as Error).message.split('\n').filter(Boolean).at(-1)}`)
  } finally {
    rmSync(ctx, { recursive: true, force: true })
  }
}

/**
 * The image of a `debian:<suite>` version: its suite root (lib/setup/suites.ts, the very
 * files the native runtime runs) packed and `docker import`ed; the binary stays at the
 * suite's own path (`image_binary`), which the runtime puts in argv[0].
 */
export async function importSuiteImage(stack: Stack, v: StackVersion, log: Logger, opts: { force?: boolean; docker?: Docker; prefix?: string } = {}): Promise<{ row: ImageRow; record?: ImageRecord }> {
  const docker = opts.docker ?? dockerClient()
  const t0 = Date.now()
  const tag = imageTag(stack.proxy, v.version)
  const fail = (note: string) => ({ row: { component: stack.proxy, version: v.version, image: tag, id: '', status: 'failed' as const, seconds: (Date.now() - t0) / 1000, note } })
  const suite = suiteOf(v)!
  const built = await ensureSuiteRoot(suite, v.package, v.deb_version!, log)
  if (built.error) return fail(built.error)
  const bin = binaryPath(stack.proxy, v)
  if (!existsSync(bin)) return fail(`${bin} is missing in the ${suite} root; check binary: in stacks/${stack.proxy}/stack.yaml`)
  const input = sha256Text(JSON.stringify({ source: v.source, package: v.package, deb_version: v.deb_version, binary: await sha256FileCached(bin) })).slice(0, 32)
  const record = (id: string, seconds: number | null): ImageRecord => ({
    component: stack.proxy, version: v.version, mode: 'offline', image: tag, id, digest: null, binaries: [bin], image_binary: v.binary, drop_env: [], input, seconds,
  })
  const existing = await imageInspect(docker, tag)
  if (!opts.force && existing?.Config?.Labels?.['proxybench.input'] === input) {
    return { row: { component: stack.proxy, version: v.version, image: tag, id: existing.Id, status: 'cached', seconds: (Date.now() - t0) / 1000 }, record: record(existing.Id, null) }
  }
  mkdirSync(imagesDir(), { recursive: true })
  const tar = join(imagesDir(), `${suite}-${stack.proxy}-${v.version}.tar.tmp-${process.pid}`)
  try {
    log.progress(`${opts.prefix ?? ''}docker import of the ${suite} root with ${v.package}=${v.deb_version} as ${tag}`)
    const t = await exec('tar', ['--numeric-owner', '-C', built.root, '-cf', tar, '.'], { timeoutMs: 10 * 60_000 })
    if (t.code !== 0) return fail(`tar of the ${suite} root failed: ${lastLine(t.stderr)}`)
    const [repo, imgTag] = tag.split(':') as [string, string]
    const stream = await docker.importImage(createReadStream(tar), {
      repo,
      tag: imgTag,
      changes: ['ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `LABEL proxybench.input=${input} proxybench.component=${stack.proxy} proxybench.version=${v.version} proxybench.binary=${v.binary}`],
    } as object)
    await follow(docker, stream, () => {})
    const img = await imageInspect(docker, tag)
    if (!img || img.Config?.Labels?.['proxybench.input'] !== input) return fail(`docker import finished but ${tag} is not the new image`)
    const seconds = (Date.now() - t0) / 1000
    return { row: { component: stack.proxy, version: v.version, image: tag, id: img.Id, status: 'built', seconds }, record: record(img.Id, seconds) }
  } catch (e) {
    return fail(`docker import of ${tag} failed: ${errorLine(e)}`)
  } finally {
    rmSync(tar, { force: true })
  }
}

/* ---------------------------------------------------------------- pulls */

/**
 * Whether the registry of `ref` answers within the timeout: the engine asks the
 * registry for the manifest (GET /distribution/<ref>/json) without pulling. Any HTTP
 * answer from the engine that is not a network failure counts as "answers".
 */
export async function registryAnswers(ref: string, timeoutMs = 5000, docker = dockerClient()): Promise<{ answers: boolean; reason: string }> {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), timeoutMs)
  try {
    await (docker.getImage(ref) as unknown as { distribution(o: object): Promise<unknown> }).distribution({ abortSignal: abort.signal })
    return { answers: true, reason: `${ref} found` }
  } catch (e) {
    if (abort.signal.aborted) return { answers: false, reason: `no answer within ${timeoutMs / 1000} s` }
    const msg = errorLine(e)
    // 401/404: the registry answered (unknown repository or tag); 500 from the engine wraps network errors.
    const status = (e as { statusCode?: number }).statusCode
    if ((status === 401 || status === 403 || status === 404) && !/dial|lookup|timeout|connection refused|no such host/i.test(msg)) return { answers: true, reason: msg }
    return { answers: false, reason: msg }
  } finally {
    clearTimeout(timer)
  }
}

function errorLine(e: unknown): string {
  const err = e as { json?: { message?: string }; reason?: string; message?: string }
  return String(err.json?.message ?? err.message ?? err.reason ?? e).split('\n').filter(Boolean)[0]!.replace(/^\(HTTP code \d+\) [\w ]+ - /, '').trim()
}

/**
 * Pulls `ref` through the engine with a progress line (bytes of all layers). A missing
 * tag or an unreachable registry is one line; a pull that stalls (no progress for
 * `idleMs`) is aborted rather than left hanging.
 */
export async function pullImage(ref: string, log: Logger, opts: { idleMs?: number; docker?: Docker } = {}): Promise<{ id: string; digest: string | null }> {
  const docker = opts.docker ?? dockerClient()
  const idleMs = opts.idleMs ?? 60_000
  const abort = new AbortController()
  let timer = setTimeout(() => abort.abort(), idleMs)
  const touch = () => {
    clearTimeout(timer)
    timer = setTimeout(() => abort.abort(), idleMs)
  }
  const layers = new Map<string, { current: number; total: number }>()
  let digest: string | null = null
  try {
    const stream = await docker.pull(ref, { abortSignal: abort.signal } as object)
    await follow(docker, stream, (e) => {
      touch()
      if (typeof e.status === 'string' && e.status.startsWith('Digest: ')) digest = e.status.slice('Digest: '.length).trim()
      // Bytes downloaded per layer (extraction reports its own progress; not counted).
      if (e.id && e.status === 'Downloading' && e.progressDetail?.total) layers.set(e.id, { current: e.progressDetail.current ?? 0, total: e.progressDetail.total })
      if (e.id && /^(Download complete|Pull complete|Already exists)$/.test(e.status ?? '')) {
        const l = layers.get(e.id)
        if (l) l.current = l.total
      }
      const cur = [...layers.values()].reduce((s, l) => s + l.current, 0)
      const tot = [...layers.values()].reduce((s, l) => s + l.total, 0)
      const pct = tot > 0 ? Math.min(100, Math.round((cur / tot) * 100)) : 0
      const bar = '#'.repeat(Math.round(pct / 5)).padEnd(20, '.')
      log.progress(`pulling ${ref} [${bar}] ${pct}% ${(cur / 1e6).toFixed(1)}/${(tot / 1e6).toFixed(1)} MB`)
    })
  } catch (e) {
    if (abort.signal.aborted) throw new Error(`pull of ${ref} stalled: no progress for ${idleMs / 1000} s`)
    throw new Error(`pull of ${ref} failed: ${errorLine(e)}`)
  } finally {
    clearTimeout(timer)
  }
  const img = await imageInspect(docker, ref)
  if (!img) throw new Error(`pull of ${ref} finished but the engine has no such image`)
  const repo = ref.replace(/@.*$/, '').replace(/:[^:/]+$/, '')
  digest ??= (img.RepoDigests ?? []).find((d) => d.startsWith(`${repo}@`))?.split('@')[1] ?? null
  return { id: img.Id, digest }
}

/* ---------------------------------------------------------------- all images */

export interface EnsureImagesOptions {
  mode: ImageMode
  proxies: readonly ProxyName[]
  /** Only the newest catalog version of each proxy (tests). */
  newestOnly?: boolean
  log: Logger
  force?: boolean
  docker?: Docker
  /** For tests: where records go. */
  recordsFile?: string
}

export interface EnsureImagesResult {
  mode: 'offline' | 'official'
  /** Why auto chose what it chose. */
  reason: string
  rows: ImageRow[]
  records: ImageRecord[]
}

/**
 * Builds (offline) or pulls (official) one image per catalog version of each proxy, and
 * builds the backend and generator images; records the ids in
 * ~/.cache/proxybench/images/images.json for the Docker runtime.
 */
export async function ensureImages(o: EnsureImagesOptions): Promise<EnsureImagesResult> {
  const docker = o.docker ?? dockerClient()
  const stacks = o.proxies.map((p) => loadStack(p))
  const versions = stacks.flatMap((s) => (o.newestOnly ? [s.versions.at(-1)!] : s.versions).map((v) => ({ stack: s, v })))
  let mode: 'offline' | 'official' = o.mode === 'official' ? 'official' : 'offline'
  let reason = o.mode === 'auto' ? '' : `--images ${o.mode}`
  if (o.mode === 'auto') {
    const probe = versions.map(({ stack, v }) => officialRef(stack, v.version)).find(Boolean)
    const r = probe ? await registryAnswers(probe, 5000, docker) : { answers: false, reason: 'no official tag in the catalog' }
    mode = r.answers ? 'official' : 'offline'
    reason = r.answers ? `auto: the registry answers (${probe})` : `auto: offline, the registry of ${probe ?? 'the official tags'} does not answer (${r.reason})`
    o.log.info(`images: ${reason}`)
  }
  const rows: ImageRow[] = []
  const records: ImageRecord[] = []
  const base = await ensureBaseImage(o.log, docker)
  rows.push(base)

  const debian = await debianVersions([...new Set([...stacks.flatMap((s) => s.versions.filter((v) => v.source === 'debian').map((v) => v.package)), 'wrk', 'nghttp2-client'])])
  const plans: ImagePlan[] = []
  for (const name of ['backend', 'loadgen'] as const) {
    const g = await ensureGoBuild(name)
    if (g.error) {
      rows.push({ component: name, version: '-', image: '', id: '', status: 'failed', seconds: 0, note: `${name}: ${g.error}` })
      continue
    }
    plans.push(goImagePlan(name, debian.get('wrk'), debian.get('nghttp2-client')))
  }
  const official: { stack: Stack; v: StackVersion }[] = []
  const suites: { stack: Stack; v: StackVersion }[] = []
  for (const { stack, v } of versions) {
    if (mode === 'official' && officialRef(stack, v.version)) official.push({ stack, v })
    else if (suiteOf(v)) suites.push({ stack, v })
    else plans.push(proxyImagePlan(stack, v, v.source === 'debian' ? debian.get(v.package) : undefined))
  }
  const total = plans.length + suites.length + official.length
  let i = 0
  for (const plan of plans) {
    const { row, record } = await buildPlan(plan, base.id, o.log, { force: o.force, docker, prefix: `[${++i}/${total}] ` })
    rows.push(row)
    if (record) records.push(record)
  }
  for (const { stack, v } of suites) {
    const { row, record } = await importSuiteImage(stack, v, o.log, { force: o.force, docker, prefix: `[${++i}/${total}] ` })
    rows.push(row)
    if (record) records.push(record)
  }
  for (const { stack, v } of official) {
    const ref = officialRef(stack, v.version)!
    const t0 = Date.now()
    o.log.progress(`[${++i}/${total}] pulling ${ref}`)
    try {
      const { id, digest } = await pullImage(ref, o.log, { docker })
      rows.push({ component: stack.proxy, version: v.version, image: ref, id, digest, status: 'pulled', seconds: (Date.now() - t0) / 1000 })
      records.push({
        component: stack.proxy, version: v.version, mode: 'official', image: ref, id, digest, binaries: [binaryPath(stack.proxy, v)],
        image_binary: OFFICIAL_BINARY[stack.proxy], drop_env: HOST_ONLY_ENV, input: digest ?? id, seconds: (Date.now() - t0) / 1000,
      })
    } catch (e) {
      const note = (e as Error).message
      if (o.mode === 'auto') {
        // auto falls back to the offline image of that version.
        const { row, record } = suiteOf(v)
          ? await importSuiteImage(stack, v, o.log, { force: o.force, docker })
          : await buildPlan(proxyImagePlan(stack, v, v.source === 'debian' ? debian.get(v.package) : undefined), base.id, o.log, { force: o.force, docker })
        rows.push({ ...row, note: `${note}; built offline instead` })
        if (record) records.push(record)
      } else rows.push({ component: stack.proxy, version: v.version, image: ref, id: '', status: 'failed', seconds: (Date.now() - t0) / 1000, note })
    }
  }
  writeImageRecords(records, o.recordsFile)
  return { mode, reason, rows, records }
}
