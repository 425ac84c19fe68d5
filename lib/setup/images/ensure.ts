import type Docker from 'dockerode'
import { binaryPath, loadStack, suiteOf, versionKey, type ProxyName, type Stack, type StackVersion } from '../../catalog/stack.ts'
import type { Logger } from '../../core/log.ts'
import { debianVersions } from '../apt.ts'
import { dockerClient } from '../docker-engine.ts'
import { ensureGoBuild } from '../gobuild.ts'
import { ensureBaseImage } from './base.ts'
import { buildPlan, importSuiteImage, type MadeImage } from './build.ts'
import { HOST_ONLY_ENV, OFFICIAL_BINARY, type ImageMode } from './names.ts'
import { goImagePlan, officialRef, proxyImagePlan, type ImagePlan } from './plans.ts'
import { pullImage, registryAnswers } from './pull.ts'
import { writeImageRecords, type ImageRecord, type ImageRow } from './records.ts'

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

export interface EnsureImagesOptions {
  mode: ImageMode
  proxies: readonly ProxyName[]
  /** Only the newest catalog version of each proxy (tests). */
  newestOnly?: boolean
  /** `proxy version` keys with no build here (not runnable, lib/setup/builds.ts): no image is made for them. */
  exclude?: ReadonlySet<string>
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
  const versions = stacks.flatMap((s) =>
    (o.newestOnly ? [s.versions.at(-1)!] : s.versions).filter((v) => !o.exclude?.has(versionKey(s.proxy, v.version))).map((v) => ({ stack: s, v })),
  )
  const { mode, reason } = await imageMode(o, versions, docker)
  const rows: ImageRow[] = []
  const records: ImageRecord[] = []
  const base = await ensureBaseImage(o.log, docker)
  rows.push(base)

  const debian = await debianVersions([
    ...new Set([...stacks.flatMap((s) => s.versions.filter((v) => v.source === 'debian').map((v) => v.package)), 'wrk', 'nghttp2-client']),
  ])
  const plans = await goImagePlans(debian, rows)
  const { official, offline } = byImageSource(versions, mode)
  const total = plans.length + offline.length + official.length
  let i = 0
  const keep = ({ row, record }: MadeImage) => {
    rows.push(row)
    if (record) records.push(record)
  }
  const c: OfflineContext = { o, docker, debian, baseId: base.id }
  for (const plan of plans) keep(await buildPlan(plan, base.id, o.log, { force: o.force, docker, prefix: `[${++i}/${total}] ` }))
  for (const { stack, v } of offline) keep(await offlineImage(stack, v, c, `[${++i}/${total}] `))
  for (const { stack, v } of official) keep(await pullOfficial(stack, v, `[${++i}/${total}] `, c))
  writeImageRecords(records, o.recordsFile)
  return { mode, reason, rows, records }
}

/** The plans of the backend and generator images; a Go program that does not build is a failed row instead. */
async function goImagePlans(debian: Map<string, string | null>, rows: ImageRow[]): Promise<ImagePlan[]> {
  const plans: ImagePlan[] = []
  for (const name of ['backend', 'loadgen'] as const) {
    const g = await ensureGoBuild(name)
    if (g.error) {
      rows.push({ component: name, version: '-', image: '', id: '', status: 'failed', seconds: 0, note: `${name}: ${g.error}` })
      continue
    }
    plans.push(goImagePlan(name, debian.get('wrk'), debian.get('nghttp2-client')))
  }
  return plans
}

type Versioned = { stack: Stack; v: StackVersion }

/** Where each version's image comes from: pulled (official mode, an official tag), or made here (imported from another suite, else built), suites after the builds. */
function byImageSource(versions: readonly Versioned[], mode: 'offline' | 'official'): { official: Versioned[]; offline: Versioned[] } {
  const official = versions.filter((x) => mode === 'official' && officialRef(x.stack, x.v.version))
  const offline = versions.filter((x) => !official.includes(x))
  return { official, offline: [...offline.filter((x) => !suiteOf(x.v)), ...offline.filter((x) => suiteOf(x.v))] }
}

type OfflineContext = { o: EnsureImagesOptions; docker: Docker; debian: Map<string, string | null>; baseId: string }

/** A version's offline image: its suite's root imported, or built from the proxy plan. */
function offlineImage(stack: Stack, v: StackVersion, c: OfflineContext, prefix?: string): Promise<MadeImage> {
  const opts = { force: c.o.force, docker: c.docker, ...(prefix ? { prefix } : {}) }
  return suiteOf(v)
    ? importSuiteImage(stack, v, c.o.log, opts)
    : buildPlan(proxyImagePlan(stack, v, v.source === 'debian' ? c.debian.get(v.package) : undefined), c.baseId, c.o.log, opts)
}

/** --images auto: official images when the registry answers a probe of the first official tag, offline images when not. */
async function imageMode(
  o: EnsureImagesOptions,
  versions: readonly { stack: Stack; v: StackVersion }[],
  docker: Docker,
): Promise<{ mode: 'offline' | 'official'; reason: string }> {
  if (o.mode !== 'auto') return { mode: o.mode === 'official' ? 'official' : 'offline', reason: `--images ${o.mode}` }
  const probe = versions.map(({ stack, v }) => officialRef(stack, v.version)).find(Boolean)
  const r = probe ? await registryAnswers(probe, 5000, docker) : { answers: false, reason: 'no official tag in the catalog' }
  const reason = r.answers
    ? `auto: the registry answers (${probe})`
    : `auto: offline, the registry of ${probe ?? 'the official tags'} does not answer (${r.reason})`
  o.log.info(`images: ${reason}`)
  return { mode: r.answers ? 'official' : 'offline', reason }
}

/** Pulls one official image; under --images auto a failed pull builds that version offline instead. */
async function pullOfficial(stack: Stack, v: StackVersion, prefix: string, c: OfflineContext): Promise<MadeImage> {
  const { o, docker } = c
  const ref = officialRef(stack, v.version)!
  const t0 = Date.now()
  o.log.progress(`${prefix}pulling ${ref}`)
  try {
    const { id, digest } = await pullImage(ref, o.log, { docker })
    const row: ImageRow = { component: stack.proxy, version: v.version, image: ref, id, digest, status: 'pulled', seconds: (Date.now() - t0) / 1000 }
    const record: ImageRecord = {
      component: stack.proxy,
      version: v.version,
      mode: 'official',
      image: ref,
      id,
      digest,
      binaries: [binaryPath(stack.proxy, v)],
      image_binary: OFFICIAL_BINARY[stack.proxy],
      drop_env: HOST_ONLY_ENV,
      input: digest ?? id,
      seconds: (Date.now() - t0) / 1000,
    }
    return { row, record }
  } catch (e) {
    const note = (e as Error).message
    if (o.mode !== 'auto')
      return { row: { component: stack.proxy, version: v.version, image: ref, id: '', status: 'failed', seconds: (Date.now() - t0) / 1000, note } }
    // auto falls back to the offline image of that version.
    const { row, record } = await offlineImage(stack, v, c)
    return { row: { ...row, note: `${note}; built offline instead` }, ...(record ? { record } : {}) }
  }
}
