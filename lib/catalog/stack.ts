import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { userError } from '../core/errors.ts'
import { parseNames } from '../core/names.ts'
import { cacheDir, stacksDir } from '../core/paths.ts'
import { readYamlFile } from '../core/yaml-file.ts'
import { isVariant, type Variant } from './variants.ts'

export const PROXIES = ['haproxy', 'nginx', 'envoy', 'traefik', 'caddy'] as const
export type ProxyName = (typeof PROXIES)[number]

const versionSchema = z
  .object({
    version: z.string().regex(/^\d+\.\d+\.\d+/, 'expected a version like 1.2.3'),
    /** debian: the host's package; debian:<suite>: that suite's package in a root of its own (lib/setup/suites.ts); pypi: a wheel. */
    source: z.union([z.enum(['debian', 'pypi']), z.string().regex(/^debian:[a-z][a-z0-9-]*$/, 'expected debian, pypi or debian:<suite>')]),
    package: z.string().min(1),
    /** The exact Debian version a `debian:<suite>` root installs (apt-get install pkg=deb_version). */
    deb_version: z
      .string()
      .regex(/^[0-9][A-Za-z0-9.+~:-]*$/, 'expected a Debian version like 1.26.3-3+deb13u11')
      .optional(),
    binary: z.string().min(1),
    lib_dir: z.string().nullish(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected the binary sha256 (64 hex digits)'),
    april_2025: z.boolean().default(false),
  })
  .strict()
  .refine((v) => !v.source.startsWith('debian:') || (v.deb_version !== undefined && v.binary.startsWith('/')), {
    message: "a debian:<suite> version needs deb_version (the exact Debian version) and the binary's absolute path in the suite",
  })

/** What the documentation predicts for backend connection reuse: `from X.Y.Z` = reused on versions >= X.Y.Z. */
const reuseSchema = z.union([z.enum(['always', 'never']), z.string().regex(/^from \d+\.\d+\.\d+$/, 'expected always, never or "from X.Y.Z"')])

export const stackSchema = z
  .object({
    proxy: z.enum(PROXIES),
    tls_library: z.string(),
    config_ext: z.string().min(1),
    start: z.array(z.string()).min(1),
    validate: z.array(z.string()).min(1).optional(),
    env: z.record(z.string()).default({}),
    versions: z.array(versionSchema).min(1),
    unavailable: z.array(z.object({ version: z.string(), why: z.string() }).strict()).default([]),
    images: z.array(z.object({ version: z.string(), tag: z.string() }).strict()).default([]),
    variants: z.record(
      z
        .object({
          description: z.string(),
          reuse: reuseSchema,
          /** The first version whose checker accepts the variant (a directive added then); older versions never run it. */
          since: z.string().optional(),
          /** The listener's scheme: http for the plain-HTTP variants (docs/series/scenarios.md); default https. */
          scheme: z.enum(['http', 'https']).optional(),
          /** File (in the proxy's run_dir) its access log goes to: checked to hold a line per request after the window. */
          access_log: z.string().optional(),
          /** The variant listens for HTTP/3 too (QUIC on UDP): it runs only on builds that speak it (lib/setup/h3-support.ts). */
          http3: z.boolean().optional(),
          /** An http3 variant that accepts 0-RTT early data as configured: the h3 series measures 0-RTT handshakes on it (docs/series/h3.md#handshakes). */
          early_data: z.boolean().optional(),
          /** Arguments appended to `start` for this variant (settings a proxy only takes on its command line). */
          args: z.array(z.string()).optional(),
          /** An L4 variant (lib/measure/tcp.ts): what the client speaks to the proxy and the proxy to the backend's echo. */
          l4: z
            .object({ client: z.enum(['tcp', 'tls']), backend: z.enum(['tcp', 'tls']) })
            .strict()
            .optional(),
        })
        .strict(),
    ),
    defaults: z.array(z.object({ setting: z.string(), documented: z.string(), source: z.string(), measured: z.string().nullish() }).strict()).default([]),
    /** How the proxy runs under callgrind (series work, docs/method/work.md): extra environment and literal config edits (`since`: from that version on). */
    work: z
      .object({
        env: z.record(z.string()).default({}),
        config_edits: z.array(z.object({ from: z.string().min(1), to: z.string(), since: z.string().optional() }).strict()).default([]),
      })
      .strict()
      .optional(),
  })
  .strict()

export type Stack = z.infer<typeof stackSchema>
export type StackVersion = Stack['versions'][number]
/** A literal edit of the rendered config under callgrind (stack.yaml `work.config_edits`). */
export type ConfigEdit = NonNullable<Stack['work']>['config_edits'][number]

export function stackFile(proxy: string): string {
  return join(stacksDir, proxy, 'stack.yaml')
}

export function loadStack(proxy: ProxyName): Stack {
  const stack = readYamlFile(stackFile(proxy), stackSchema, 'Fix the entry as docs/catalog.md describes')
  for (const variant of Object.keys(stack.variants)) {
    if (!isVariant(variant)) throw userError(stackFile(proxy), `variant ${variant} is not one the code knows`, 'Add it to VARIANTS in lib/catalog/variants.ts')
    if (!existsSync(templateFile(stack, variant))) {
      throw userError(stackFile(proxy), `variant ${variant} has no template ${templateFile(stack, variant)}`, 'Add the template or remove the variant')
    }
  }
  return stack
}

/** Whether the stack declares `name` (as a variant the code knows). */
export const hasVariant = (stack: Stack, name: string): name is Variant => isVariant(name) && stack.variants[name] !== undefined

export function templateFile(stack: Stack, variant: string): string {
  return join(stacksDir, stack.proxy, 'templates', `${variant}.${stack.config_ext}`)
}

/** Templates on disk, whether or not stack.yaml lists them (a test checks both agree). */
export function templateVariants(proxy: ProxyName): string[] {
  return readdirSync(join(stacksDir, proxy, 'templates'))
    .map((f) => f.split('.')[0]!)
    .sort()
}

/** Parses `--proxies a,b` style lists; an unknown name is a one-line error naming the flag. */
export const parseProxyList = (value: string, flag = '--proxies'): ProxyName[] => parseNames(flag, value, PROXIES, 'proxy') as ProxyName[]

/** Where a PyPI wheel of this version is extracted. */
export function wheelDir(proxy: ProxyName, version: string): string {
  return join(cacheDir(), proxy, version)
}

/** The suite of a `debian:<suite>` version; null for the host's Debian and for wheels. */
export function suiteOf(v: Pick<StackVersion, 'source'>): string | null {
  return v.source.startsWith('debian:') ? v.source.slice('debian:'.length) : null
}

/** Where the root of a suite with one package version installed is unpacked (lib/setup/suites.ts). */
export function suiteRoot(suite: string, pkg: string, debVersion: string): string {
  return join(cacheDir(), 'suites', suite, `${pkg}_${debVersion.replace(/[^A-Za-z0-9.+~-]/g, '_')}`)
}

/** One catalog version of one proxy, as a map key (`nginx 1.26.3`). */
export const versionKey = (proxy: string, version: string): string => `${proxy} ${version}`

/** Where setup records what it decided for a version whose pinned build is gone (lib/setup/builds.ts). */
export function buildRecordFile(proxy: ProxyName, version: string): string {
  return join(cacheDir(), 'builds', proxy, `${version}.json`)
}

/** What setup decided for a pin that is gone: another build of the same version (a substitute), or none (not runnable here), and why. */
export interface BuildRecord {
  /** The pin it stands for: the catalog's deb_version, or `package==version` for a wheel. */
  pinned: string
  /** The Debian build measured instead; null: none, the version is not runnable here. */
  build: string | null
  sha256: string | null
  reason: string
}

/** A substitute: a record with a build. */
export type SubstituteBuild = BuildRecord & { build: string; sha256: string }

/** The pin a record is kept for. */
export const pinOf = (v: StackVersion): string => v.deb_version ?? `${v.package}==${v.version}`

/** Setup's record for this version's current pin, if any (a record for an older pin is ignored). */
export function buildRecord(proxy: ProxyName, v: StackVersion): BuildRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(buildRecordFile(proxy, v.version), 'utf8')) as BuildRecord
    return r.pinned === pinOf(v) ? r : undefined
  } catch {
    return undefined
  }
}

/**
 * The Debian build a suite version runs: the pinned one when its root is here, else the
 * substitute setup recorded for that pin.
 */
export function suiteBuild(proxy: ProxyName, v: StackVersion): { build: string; substitute?: SubstituteBuild } {
  const pinned = v.deb_version!
  if (existsSync(join(suiteRoot(suiteOf(v)!, v.package, pinned), v.binary))) return { build: pinned }
  const r = buildRecord(proxy, v)
  return r?.build && r.sha256 ? { build: r.build, substitute: r as SubstituteBuild } : { build: pinned }
}

/** Absolute path of the binary of one catalog version (a suite version: the build setup took, lib/setup/builds.ts). */
export function binaryPath(proxy: ProxyName, v: StackVersion): string {
  const suite = suiteOf(v)
  if (suite) return join(suiteRoot(suite, v.package, suiteBuild(proxy, v).build), v.binary)
  return v.source === 'debian' ? v.binary : join(wheelDir(proxy, v.version), v.binary)
}

/** Extra environment a binary needs (vendored shared libraries of a wheel). */
export function binaryEnv(proxy: ProxyName, v: StackVersion): Record<string, string> {
  return v.lib_dir ? { LD_LIBRARY_PATH: join(wheelDir(proxy, v.version), v.lib_dir) } : {}
}

/** Compares dotted versions numerically: -1, 0 or 1. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => Number.parseInt(x, 10) || 0)
  const pb = b.split(/[.+-]/).map((x) => Number.parseInt(x, 10) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d !== 0) return Math.sign(d)
  }
  return 0
}

/** Whether `version` is `since` or newer; no `since` means every version. */
const fromVersion = (version: string, since: string | undefined): boolean => since === undefined || compareVersions(version, since) >= 0

/** Whether a catalog version can run a variant (its `since`, when set, is not newer). */
export function variantRunsOn(stack: Stack, variant: string, version: string): boolean {
  return fromVersion(version, stack.variants[variant]?.since)
}

/** The `work.config_edits` a version gets under callgrind: those whose `since`, when set, is not newer. */
export function workEdits(stack: Stack, version: string): ConfigEdit[] {
  return (stack.work?.config_edits ?? []).filter((e) => fromVersion(version, e.since))
}

/** The scheme a variant's listener speaks (https unless stack.yaml says http). */
export const variantScheme = (stack: Stack, variant: string): 'http' | 'https' => stack.variants[variant]?.scheme ?? 'https'

/** The newest catalog version: what "current" means in a run. */
export const newestVersion = (stack: Stack): StackVersion => [...stack.versions].sort((a, b) => compareVersions(a.version, b.version)).at(-1)!

/** Whether documentation predicts backend reuse for this variant on this version. */
export function expectsReuse(stack: Stack, variant: string, version: string): boolean {
  const reuse = stack.variants[variant]?.reuse
  if (reuse === undefined) throw userError(stackFile(stack.proxy), `unknown variant ${variant}`, `Use one of: ${Object.keys(stack.variants).join(', ')}`)
  if (reuse === 'always') return true
  if (reuse === 'never') return false
  return compareVersions(version, reuse.slice('from '.length)) >= 0
}
