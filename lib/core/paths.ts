import { homedir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository root (this file lives in lib/core/). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

export const stacksDir = join(repoRoot, 'stacks')
export const certsDir = join(repoRoot, 'certs')

/**
 * Downloaded wheels, extracted binaries and Go builds live outside the repo so that
 * a fresh clone reuses them and nothing large is ever committed.
 */
export function cacheDir(): string {
  const base = process.env.PROXYBENCH_CACHE ?? process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache')
  return process.env.PROXYBENCH_CACHE ? base : join(base, 'proxybench')
}

/** A path as the user should read it in a message: relative inside the repo, else absolute. */
export function displayPath(file: string): string {
  return file.startsWith(repoRoot + '/') ? relative(repoRoot, file) : file
}
