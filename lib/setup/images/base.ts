import { chmodSync, copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { userError } from '../../core/errors.ts'
import { exec, lastLine } from '../../core/exec.ts'
import { sha256FileCached, sha256Text } from '../../core/hash.ts'
import type { Logger } from '../../core/log.ts'
import { stacksDir } from '../../core/paths.ts'
import { isRoot } from '../apt.ts'
import { dockerClient } from '../docker-engine.ts'
import { debianSources, hostAptSources, mirrorOf, suiteSources } from './apt-sources.ts'
import { follow, imageInspect } from './engine-calls.ts'
import { BASE_IMAGE, BASE_REPO, BASE_TAG, imagesDir } from './names.ts'
import type { ImageRow } from './records.ts'

/** stacks/base/: what goes into the base rootfs besides debootstrap's packages. */
export const baseDir = join(stacksDir, 'base')
const BASE_FILES = { 'policy-rc.d': 'usr/sbin/policy-rc.d', '90proxybench': 'etc/apt/apt.conf.d/90proxybench' } as const
/** The cached rootfs tarball; its name carries a hash of stacks/base so an edit there rebuilds it. */
export const baseTarball = (suite = BASE_TAG) => {
  const h = sha256Text(
    Object.keys(BASE_FILES)
      .map((f) => `${f}\0${readFileSync(join(baseDir, f), 'utf8')}`)
      .join('\0'),
  ).slice(0, 8)
  return join(imagesDir(), `${suite}-minbase-${h}.tar`)
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
  if (!isRoot())
    throw userError(
      'debootstrap',
      'building the base image needs root',
      'Run: sudo npx zx notebooks/02-stacks.mjs, or --images official on a machine that reaches a registry',
    )
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
    finishRootfs(root, sources)
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

/** A debootstrapped rootfs made the base: its files (BASE_FILES), the suite's apt sources (null: debootstrap's), no apt caches. */
function finishRootfs(root: string, sources: { name: string; text: string } | null): void {
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
    changes: [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `LABEL proxybench.input=${input} proxybench.component=base`,
      'CMD ["/bin/bash"]',
    ],
  } as object)
  await follow(docker, stream, () => {})
  const img = await imageInspect(docker, BASE_IMAGE)
  if (!img) throw new Error(`docker import did not create ${BASE_IMAGE}`)
  return { component: 'base', version: BASE_TAG, image: BASE_IMAGE, id: img.Id, status: tar.built ? 'built' : 'imported', seconds: (Date.now() - t0) / 1000 }
}
