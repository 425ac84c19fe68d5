import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { binaryPath, wheelDir, type ProxyName, type Stack, type StackVersion } from '../../catalog/stack.ts'
import { sha256FileCached, sha256Text } from '../../core/hash.ts'
import { stacksDir } from '../../core/paths.ts'
import { goBinaryPath, type GoProgram } from '../gobuild.ts'
import { BASE_IMAGE, imageTag } from './names.ts'

/** A build of one offline image: pure data, tested in test/setup/images/plans.test.ts. */
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

/** Input hash of a plan: Dockerfile, build args, base image and every copied file's sha256. */
export async function planInput(plan: ImagePlan, baseId: string): Promise<string> {
  const files = await Promise.all(plan.files.map(async (f) => `${f}\0${await sha256FileCached(f)}`))
  return sha256Text(JSON.stringify({ dockerfile: readFileSync(plan.dockerfile, 'utf8'), args: plan.buildArgs, baseId, files })).slice(0, 32)
}
