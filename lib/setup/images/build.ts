import { copyFileSync, createReadStream, existsSync, linkSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type Docker from 'dockerode'
import { binaryPath, suiteBuild, suiteOf, type Stack, type StackVersion } from '../../catalog/stack.ts'
import { exec, lastLine } from '../../core/exec.ts'
import { sha256FileCached, sha256Text } from '../../core/hash.ts'
import type { Logger } from '../../core/log.ts'
import { dockerClient } from '../docker-engine.ts'
import { ensureSuiteRoot } from '../suites.ts'
import { errorLine, follow, imageInspect } from './engine-calls.ts'
import { imagesDir, imageTag } from './names.ts'
import { planInput, type ImagePlan } from './plans.ts'
import type { ImageRecord, ImageRow } from './records.ts'

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

/** An image step's table row, and the record of the image it left (none when it failed). */
export type MadeImage = { row: ImageRow; record?: ImageRecord }

/**
 * One offline image (a build or an import): `cached` when an image labelled with the same
 * input exists, else made by `make` (a failure note, or null) and checked by its label.
 */
async function offlineImage(
  img: Pick<ImageRecord, 'component' | 'version' | 'image' | 'binaries' | 'image_binary'>,
  o: { force?: boolean; docker: Docker },
  input: () => Promise<string | { error: string }>,
  make: (input: string) => Promise<string | null>,
  say: { made: string; failed: (e: unknown) => string },
): Promise<MadeImage> {
  const t0 = Date.now()
  const at = { component: img.component, version: img.version, image: img.image }
  const row = (status: ImageRow['status'], id: string, note?: string) => ({ ...at, id, status, seconds: (Date.now() - t0) / 1000, ...(note ? { note } : {}) })
  const record = (id: string, seconds: number | null, input: string) => ({ ...img, mode: 'offline' as const, id, digest: null, drop_env: [], input, seconds })
  const ready = await input()
  if (typeof ready !== 'string') return { row: row('failed', '', ready.error) }
  const existing = await imageInspect(o.docker, img.image)
  if (!o.force && existing?.Config?.Labels?.['proxybench.input'] === ready) return { row: row('cached', existing.Id), record: record(existing.Id, null, ready) }
  try {
    const failed = await make(ready)
    if (failed) return { row: row('failed', '', failed) }
    const made = await imageInspect(o.docker, img.image)
    if (!made || made.Config?.Labels?.['proxybench.input'] !== ready)
      return { row: row('failed', '', `${say.made} finished but ${img.image} is not the new image`) }
    const built = row('built', made.Id)
    return { row: built, record: record(made.Id, built.seconds, ready) }
  } catch (e) {
    return { row: row('failed', '', say.failed(e)) }
  }
}

/** Builds one offline image unless an image with the same inputs exists. */
export function buildPlan(plan: ImagePlan, baseId: string, log: Logger, opts: { force?: boolean; docker?: Docker; prefix?: string } = {}): Promise<MadeImage> {
  const docker = opts.docker ?? dockerClient()
  const img = { component: plan.component, version: plan.version, image: plan.tag, binaries: plan.binaries, image_binary: plan.imageBinary }
  const input = async () => {
    const absent = plan.files.find((f) => !existsSync(f))
    if (absent) return { error: `${absent} is missing; run: npx zx notebooks/00-setup.mjs` }
    if (!existsSync(plan.dockerfile)) return { error: `${plan.dockerfile} is missing` }
    return planInput(plan, baseId)
  }
  const build = async (input: string) => {
    const ctx = assembleContext(plan)
    try {
      const stream = await docker.buildImage({ context: ctx, src: ['Dockerfile', 'rootfs'] }, {
        t: plan.tag,
        buildargs: plan.buildArgs,
        labels: {
          'proxybench.input': input,
          'proxybench.component': plan.component,
          'proxybench.version': plan.version,
          'proxybench.binary': plan.imageBinary,
        },
        // apt-get inside the build reaches the mirror without depending on bridge NAT.
        networkmode: 'host',
        rm: true,
        forcerm: true,
        pull: false,
      } as object)
      await follow(docker, stream, (e) => {
        const m = typeof e.stream === 'string' ? /^Step (\d+\/\d+) : (.*)/.exec(e.stream) : null
        if (m) log.progress(`${opts.prefix ?? ''}building ${plan.tag} · step ${m[1]!}: ${m[2]!.slice(0, 60)}`)
      })
      return null
    } finally {
      rmSync(ctx, { recursive: true, force: true })
    }
  }
  return offlineImage(img, { force: opts.force, docker }, input, build, {
    made: 'the build',
    failed: (e) => `docker build of ${plan.tag} failed: ${(e as Error).message.split('\n').filter(Boolean).at(-1)}`,
  })
}

/**
 * The image of a `debian:<suite>` version: its suite root (lib/setup/suites.ts, the very
 * files the native runtime runs) packed and `docker import`ed; the binary stays at the
 * suite's own path (`image_binary`), which the runtime puts in argv[0].
 */
export function importSuiteImage(
  stack: Stack,
  v: StackVersion,
  log: Logger,
  opts: { force?: boolean; docker?: Docker; prefix?: string } = {},
): Promise<MadeImage> {
  const docker = opts.docker ?? dockerClient()
  const tag = imageTag(stack.proxy, v.version)
  const suite = suiteOf(v)!
  // The build setup took: the pinned one, or its recorded substitute (lib/setup/builds.ts).
  const build = suiteBuild(stack.proxy, v).build
  const bin = binaryPath(stack.proxy, v)
  let root = ''
  const input = async () => {
    const built = await ensureSuiteRoot(suite, v.package, build, log)
    if (built.error) return { error: built.error }
    root = built.root
    if (!existsSync(bin)) return { error: `${bin} is missing in the ${suite} root; check binary: in stacks/${stack.proxy}/stack.yaml` }
    return sha256Text(JSON.stringify({ source: v.source, package: v.package, deb_version: build, binary: await sha256FileCached(bin) })).slice(0, 32)
  }
  const importRoot = async (input: string) => {
    mkdirSync(imagesDir(), { recursive: true })
    const tar = join(imagesDir(), `${suite}-${stack.proxy}-${v.version}.tar.tmp-${process.pid}`)
    try {
      log.progress(`${opts.prefix ?? ''}docker import of the ${suite} root with ${v.package}=${v.deb_version} as ${tag}`)
      const t = await exec('tar', ['--numeric-owner', '-C', root, '-cf', tar, '.'], { timeoutMs: 10 * 60_000 })
      if (t.code !== 0) return `tar of the ${suite} root failed: ${lastLine(t.stderr)}`
      const [repo, imgTag] = tag.split(':') as [string, string]
      const stream = await docker.importImage(createReadStream(tar), {
        repo,
        tag: imgTag,
        changes: [
          'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
          `LABEL proxybench.input=${input} proxybench.component=${stack.proxy} proxybench.version=${v.version} proxybench.binary=${v.binary}`,
        ],
      } as object)
      await follow(docker, stream, () => {})
      return null
    } finally {
      rmSync(tar, { force: true })
    }
  }
  const img = { component: stack.proxy, version: v.version, image: tag, binaries: [bin], image_binary: v.binary }
  return offlineImage(img, { force: opts.force, docker }, input, importRoot, {
    made: 'docker import',
    failed: (e) => `docker import of ${tag} failed: ${errorLine(e)}`,
  })
}
