/**
 * Publishing a built site: a copy in a folder, or a commit on a local git branch laid out
 * as GitHub Pages serves it. The site is checked for key material first; nothing is
 * written when that check fails.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { replaceDir } from '../core/atomic.ts'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { userError } from '../core/errors.ts'
import { exec, lastLine } from '../core/exec.ts'
import type { Logger } from '../core/log.ts'
import { displayPath } from '../core/paths.ts'
import { assertNoKeyMaterial } from './site.ts'

/** Marks a folder written by publish, so a later publish may replace it and nothing else. */
export const PUBLISHED_MARK = '.proxybench-site'

export interface PublishOptions {
  siteDir: string
  /** Copy the site here (replaced as a whole, by rename). */
  to?: string
  /** Commit the site to this local branch of `repoDir` (its working tree is not touched). */
  gitBranch?: string
  repoDir?: string
  message?: string
  log: Logger
}

export interface PublishResult {
  files: number
  to: string | null
  commit: string | null
}

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? listFiles(p, base) : [relative(base, p)]
  })
}

/** Every href/src of the site's pages is relative: the site works under any URL prefix (Pages serves /<repo>/). */
export function absoluteLinks(siteDir: string): string[] {
  const bad: string[] = []
  for (const f of listFiles(siteDir).filter((f) => f.endsWith('.html'))) {
    const html = readFileSync(join(siteDir, f), 'utf8')
    for (const m of html.matchAll(/\b(?:href|src)="([^"]*)"/g)) {
      const link = m[1]!
      if (link.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(link)) {
        if (!/^(https?:|mailto:|data:)/i.test(link) || link.startsWith('//')) bad.push(`${f}: ${link}`)
      }
    }
  }
  return bad
}

/** A copy of the site with what Pages needs: `.nojekyll` (serve files as they are) and the mark. */
function stage(siteDir: string, into: string): number {
  cpSync(siteDir, into, { recursive: true, filter: (src) => !basename(src).startsWith('.tmp-') && !basename(src).startsWith('.old-') })
  writeFileSync(join(into, '.nojekyll'), '')
  writeFileSync(join(into, PUBLISHED_MARK), 'Written by proxybench publish; replaced as a whole by the next publish.\n')
  return listFiles(into).length
}

async function git(repoDir: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await exec('git', args, { cwd: repoDir, env })
  if (r.code !== 0)
    throw userError(`git ${args[0]}`, lastLine(r.stderr) || `exit ${r.code}`, `Check that ${displayPath(repoDir)} is a git repository you can write to`)
  return r.stdout.trim()
}

/** Commits a staged folder to refs/heads/<branch> through a private index: no checkout, no change to HEAD or the working tree. */
async function commitTo(repoDir: string, branch: string, folder: string, message: string): Promise<string> {
  const check = await exec('git', ['check-ref-format', '--branch', branch], { cwd: repoDir })
  if (check.code !== 0) throw userError(`--git-branch ${branch}`, 'is not a valid branch name', 'Use e.g. --git-branch gh-pages')
  const indexDir = mkdtempSync(join(tmpdir(), 'pb-publish-index-'))
  try {
    const env = { GIT_INDEX_FILE: join(indexDir, 'index'), GIT_WORK_TREE: folder }
    await git(repoDir, ['add', '--all', '--force', '.'], env)
    const tree = await git(repoDir, ['write-tree'], env)
    const parent = await exec('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repoDir })
    const parents = parent.code === 0 ? ['-p', parent.stdout.trim()] : []
    if (parents.length) {
      const parentTree = await git(repoDir, ['rev-parse', `${parent.stdout.trim()}^{tree}`])
      if (parentTree === tree) return parent.stdout.trim()
    }
    const commit = await git(repoDir, ['commit-tree', tree, ...parents, '-m', message], {
      GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME ?? 'proxybench',
      GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL ?? 'proxybench@localhost',
      GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? 'proxybench',
      GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? 'proxybench@localhost',
    })
    await git(repoDir, ['update-ref', `refs/heads/${branch}`, commit, ...(parents.length ? [parents[1]!] : ['0'.repeat(40)])])
    return commit
  } finally {
    rmSync(indexDir, { recursive: true, force: true })
  }
}

/**
 * `--to DIR` checked before anything is written: outside the site, new, empty or an earlier
 * publish's, and its folder writable. The write is tried for real (a scratch entry made and
 * removed in the nearest existing folder): permission bits say nothing for root, nor for a
 * read-only or virtual file system.
 */
function checkTarget(given: string, site: string): string {
  const to = resolve(given)
  if (to === site || to.startsWith(site + '/') || site.startsWith(to + '/'))
    throw userError(`--to ${given}`, 'is the site itself, inside it, or around it', 'Choose a folder outside the site')
  if (existsSync(to) && (!statSync(to).isDirectory() || (readdirSync(to).length > 0 && !existsSync(join(to, PUBLISHED_MARK))))) {
    throw userError(`--to ${given}`, 'exists and was not written by publish', 'Choose an empty or new folder (publish replaces only folders it wrote)')
  }
  let parent = dirname(to)
  while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent)
  if (!statSync(parent).isDirectory())
    throw userError(`--to ${given}`, `${displayPath(parent)} is a file, not a folder`, 'Choose a folder path whose parents are folders')
  try {
    rmSync(mkdtempSync(join(parent, '.pb-write-check-')), { recursive: true, force: true })
  } catch (e) {
    throw userError(
      `--to ${given}`,
      `cannot be written: ${displayPath(parent)} refuses new entries (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      'Choose a folder you can write to, e.g. --to ./public',
    )
  }
  return to
}

export async function publishSite(o: PublishOptions): Promise<PublishResult> {
  const site = resolve(o.siteDir)
  if (!existsSync(join(site, 'index.html')))
    throw userError(displayPath(site), 'holds no built site (no index.html)', 'Build it first: npm run report (or npx zx notebooks/run-all.mjs)')
  if (!o.to && !o.gitBranch) throw userError('publish', 'nothing to do', 'Pass --to DIR, --git-branch NAME, or both')
  assertNoKeyMaterial(site)
  const links = absoluteLinks(site)
  if (links.length)
    throw userError(
      `${displayPath(site)}/${links[0]}`,
      `is an absolute link (${links.length} in all)`,
      'Rebuild the site with this version of proxybench: its links are relative',
    )
  // Every check on --to before anything is written: a place that cannot be written is one line, not a stack trace.
  const to = o.to ? checkTarget(o.to, site) : null
  const staging = mkdtempSync(join(tmpdir(), 'pb-publish-'))
  const copy = join(staging, 'site')
  try {
    const files = stage(site, copy)
    if (to) {
      // Built beside the target, swapped in by rename: a reader never sees half a site.
      const tmp = join(dirname(to), `.tmp-${basename(to)}.${process.pid}`)
      const old = join(dirname(to), `.old-${basename(to)}.${process.pid}`)
      rmSync(tmp, { recursive: true, force: true })
      cpSync(copy, tmp, { recursive: true })
      replaceDir(tmp, to, old)
      o.log.info(`published ${files} files to ${displayPath(to)}`)
    }
    let commit: string | null = null
    if (o.gitBranch) {
      const repo = resolve(o.repoDir ?? '.')
      commit = await commitTo(repo, o.gitBranch, copy, o.message ?? `proxybench site, published ${new Date().toISOString().slice(0, 10)}`)
      o.log.info(
        `committed ${files} files to branch ${o.gitBranch} (${commit.slice(0, 12)}) of ${displayPath(repo)}; push it with: git push origin ${o.gitBranch}`,
      )
    }
    return { files, to, commit }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}
