import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { exec, lastLine } from '../core/exec.ts'
import { sha256Text } from '../core/hash.ts'
import { cacheDir, stacksDir } from '../core/paths.ts'

/** Go programs of the harness, each a module in stacks/<name>. */
export const GO_PROGRAMS = ['backend', 'loadgen', 'syscall-tax'] as const
export type GoProgram = (typeof GO_PROGRAMS)[number]

/** Programs bind-mounted into any image (the syscall tax's launcher wraps every role): linked statically, no libc needed there. */
const STATIC: readonly GoProgram[] = ['syscall-tax']

/** Hash of what determines the binary: go.mod, go.sum and non-test .go files. */
export function goSourceHash(dir: string): string {
  const files = readdirSync(dir)
    .filter((f) => f === 'go.mod' || f === 'go.sum' || (f.endsWith('.go') && !f.endsWith('_test.go')))
    .sort()
  return sha256Text(files.map((f) => `${f}\0${readFileSync(join(dir, f), 'utf8')}`).join('\0'))
}

const resolved = new Map<GoProgram, string>()

/**
 * The build of the current sources, fixed at first use: a run keeps using the binary
 * it started with even if someone edits the sources meanwhile.
 */
export function goBinaryPath(name: GoProgram): string {
  const hit = resolved.get(name)
  if (hit) return hit
  const path = join(cacheDir(), 'go', `${name}-${goSourceHash(join(stacksDir, name)).slice(0, 16)}`, name)
  resolved.set(name, path)
  return path
}

/** Builds a Go program unless a build of the same sources is cached. */
export async function ensureGoBuild(name: GoProgram): Promise<{ path: string; built: boolean; error?: string }> {
  const path = goBinaryPath(name)
  if (existsSync(path)) return { path, built: false }
  mkdirSync(join(path, '..'), { recursive: true })
  const tmp = `${path}.tmp-${process.pid}`
  const env = STATIC.includes(name) ? { CGO_ENABLED: '0' } : undefined
  const r = await exec('go', ['build', '-trimpath', '-o', tmp, '.'], { cwd: join(stacksDir, name), ...(env ? { env } : {}) })
  if (r.code === 127) return { path, built: false, error: 'go not found on PATH' }
  if (r.code !== 0) return { path, built: false, error: `go build in stacks/${name} failed: ${lastLine(r.stderr)}` }
  renameSync(tmp, path)
  return { path, built: true }
}
