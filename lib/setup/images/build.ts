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

/** Builds one offline image unless an image with the same inputs exists. */
export async function buildPlan(
  plan: ImagePlan,
  baseId: string,
  log: Logger,
  opts: { force?: boolean; docker?: Docker; prefix?: string } = {},
): Promise<{ row: ImageRow; record?: ImageRecord }> {
  const docker = opts.docker ?? dockerClient()
  const t0 = Date.now()
  const fail = (note: string) => ({
    row: { component: plan.component, version: plan.version, image: plan.tag, id: '', status: 'failed' as const, seconds: (Date.now() - t0) / 1000, note },
  })
  const absent = plan.files.find((f) => !existsSync(f))
  if (absent) return fail(`${absent} is missing; run: npx zx notebooks/00-setup.mjs`)
  if (!existsSync(plan.dockerfile)) return fail(`${plan.dockerfile} is missing`)
  const input = await planInput(plan, baseId)
  const record = (id: string, seconds: number | null): ImageRecord => ({
    component: plan.component,
    version: plan.version,
    mode: 'offline',
    image: plan.tag,
    id,
    digest: null,
    binaries: plan.binaries,
    image_binary: plan.imageBinary,
    drop_env: [],
    input,
    seconds,
  })
  const existing = await imageInspect(docker, plan.tag)
  if (!opts.force && existing?.Config?.Labels?.['proxybench.input'] === input) {
    return {
      row: { component: plan.component, version: plan.version, image: plan.tag, id: existing.Id, status: 'cached', seconds: (Date.now() - t0) / 1000 },
      record: record(existing.Id, null),
    }
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
export async function importSuiteImage(
  stack: Stack,
  v: StackVersion,
  log: Logger,
  opts: { force?: boolean; docker?: Docker; prefix?: string } = {},
): Promise<{ row: ImageRow; record?: ImageRecord }> {
  const docker = opts.docker ?? dockerClient()
  const t0 = Date.now()
  const tag = imageTag(stack.proxy, v.version)
  const fail = (note: string) => ({
    row: { component: stack.proxy, version: v.version, image: tag, id: '', status: 'failed' as const, seconds: (Date.now() - t0) / 1000, note },
  })
  const suite = suiteOf(v)!
  // The build setup took: the pinned one, or its recorded substitute (lib/setup/builds.ts).
  const build = suiteBuild(stack.proxy, v).build
  const built = await ensureSuiteRoot(suite, v.package, build, log)
  if (built.error) return fail(built.error)
  const bin = binaryPath(stack.proxy, v)
  if (!existsSync(bin)) return fail(`${bin} is missing in the ${suite} root; check binary: in stacks/${stack.proxy}/stack.yaml`)
  const input = sha256Text(JSON.stringify({ source: v.source, package: v.package, deb_version: build, binary: await sha256FileCached(bin) })).slice(0, 32)
  const record = (id: string, seconds: number | null): ImageRecord => ({
    component: stack.proxy,
    version: v.version,
    mode: 'offline',
    image: tag,
    id,
    digest: null,
    binaries: [bin],
    image_binary: v.binary,
    drop_env: [],
    input,
    seconds,
  })
  const existing = await imageInspect(docker, tag)
  if (!opts.force && existing?.Config?.Labels?.['proxybench.input'] === input) {
    return {
      row: { component: stack.proxy, version: v.version, image: tag, id: existing.Id, status: 'cached', seconds: (Date.now() - t0) / 1000 },
      record: record(existing.Id, null),
    }
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
      changes: [
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        `LABEL proxybench.input=${input} proxybench.component=${stack.proxy} proxybench.version=${v.version} proxybench.binary=${v.binary}`,
      ],
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
