import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { UserError } from '../../lib/core/errors.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { absoluteLinks, PUBLISHED_MARK, publishSite } from '../../lib/report/publish.ts'
import { writeRunPage, writeSiteIndex } from '../../lib/report/site.ts'

/** A real site of two runs, built by the same functions the report uses. */
function site(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'pb-pub-')), 'site')
  const log = memoryLogger()
  for (const id of ['2025-run', '2026-run'])
    writeRunPage(dir, { runId: id, markdown: `# run ${id}\n\ntext`, files: [{ path: 'data/measurements.csv', content: 'a,b\n1,2\n' }], generated: 'now' }, log)
  writeSiteIndex(
    dir,
    [
      { href: 'runs/2026-run/index.html', title: 'run 2026', kind: 'run' },
      { href: 'runs/2025-run/index.html', title: 'run 2025', kind: 'run' },
    ],
    log,
    { generated: 'now' },
  )
  return dir
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim()

test('--to: a copy with .nojekyll and every run, replaced as a whole by the next publish', async () => {
  const s = site()
  const to = join(mkdtempSync(join(tmpdir(), 'pb-pub-to-')), 'pages')
  const r = await publishSite({ siteDir: s, to, log: memoryLogger() })
  assert.ok(r.files >= 6)
  for (const f of ['index.html', '.nojekyll', PUBLISHED_MARK, 'runs/2025-run/index.html', 'runs/2026-run/data/measurements.csv'])
    assert.ok(existsSync(join(to, f)), f)
  assert.match(readFileSync(join(to, 'index.html'), 'utf8'), /href="runs\/2025-run\/index.html"/)
  // A page removed from the site is gone from the copy after the next publish (no stale leftovers).
  writeFileSync(join(to, 'stale.html'), 'old')
  await publishSite({ siteDir: s, to, log: memoryLogger() })
  assert.equal(existsSync(join(to, 'stale.html')), false)
})

test('--to refuses a folder publish did not write, and the site itself', async () => {
  const s = site()
  const mine = mkdtempSync(join(tmpdir(), 'pb-pub-mine-'))
  writeFileSync(join(mine, 'thesis.tex'), 'precious')
  await assert.rejects(publishSite({ siteDir: s, to: mine, log: memoryLogger() }), /exists and was not written by publish/)
  assert.equal(readFileSync(join(mine, 'thesis.tex'), 'utf8'), 'precious')
  await assert.rejects(publishSite({ siteDir: s, to: join(s, 'runs'), log: memoryLogger() }), /is the site itself, inside it/)
})

test('--to a place that cannot be written: one line naming the flag, nothing written', async () => {
  const s = site()
  const scratch = mkdtempSync(join(tmpdir(), 'pb-pub-file-'))
  writeFileSync(join(scratch, 'a-file'), 'x')
  // Inside a file, and on a file system that takes no new entries even for root (permission bits would not stop root).
  await assert.rejects(
    publishSite({ siteDir: s, to: join(scratch, 'a-file', 'pages'), log: memoryLogger() }),
    (e: Error) => e instanceof UserError && /^--to .*a-file\/pages: .*a-file is a file, not a folder\. Choose/.test(e.message),
  )
  await assert.rejects(
    publishSite({ siteDir: s, to: `/proc/pb-pages-${process.pid}`, log: memoryLogger() }),
    (e: Error) =>
      e instanceof UserError &&
      /^--to \/proc\/pb-pages-\d+: cannot be written: \/proc refuses new entries \(\w+\)\. Choose a folder you can write to/.test(e.message),
  )
  assert.deepEqual(readdirSync(scratch), ['a-file'])
})

test('a key in the site, or an absolute link, stops the publish before anything is written', async () => {
  const s = site()
  mkdirSync(join(s, 'runs/2026-run/certs'))
  writeFileSync(join(s, 'runs/2026-run/certs/server.key'), 'x')
  const to = join(mkdtempSync(join(tmpdir(), 'pb-pub-to-')), 'pages')
  await assert.rejects(publishSite({ siteDir: s, to, log: memoryLogger() }), /is named like a private key/)
  assert.equal(existsSync(to), false)

  const s2 = site()
  writeFileSync(join(s2, 'runs/2026-run/index.html'), '<a href="/runs/x/index.html">x</a> <a href="https://example.org/">ok</a>')
  assert.deepEqual(absoluteLinks(s2), ['runs/2026-run/index.html: /runs/x/index.html'])
  await assert.rejects(publishSite({ siteDir: s2, to, log: memoryLogger() }), /is an absolute link/)
})

test('--git-branch: commits the site to a local branch without touching HEAD, the index or the working tree', async () => {
  const s = site()
  const repo = mkdtempSync(join(tmpdir(), 'pb-pub-repo-'))
  git(repo, 'init', '-q', '-b', 'main')
  writeFileSync(join(repo, 'README.md'), 'code\n')
  git(repo, 'add', 'README.md')
  git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'code')
  writeFileSync(join(repo, 'wip.txt'), 'uncommitted')
  const head = git(repo, 'rev-parse', 'HEAD')

  const first = await publishSite({ siteDir: s, gitBranch: 'gh-pages', repoDir: repo, message: 'site 1', log: memoryLogger() })
  assert.equal(git(repo, 'rev-parse', 'gh-pages'), first.commit)
  const files = git(repo, 'ls-tree', '-r', '--name-only', 'gh-pages').split('\n')
  for (const f of ['.nojekyll', 'index.html', 'runs/2025-run/index.html', 'runs/2026-run/data/measurements.csv']) assert.ok(files.includes(f), f)
  assert.equal(git(repo, 'rev-parse', 'HEAD'), head)
  assert.equal(git(repo, 'status', '--porcelain'), '?? wip.txt')

  // The same site again: no new commit; a changed site: a child commit (history kept).
  assert.equal((await publishSite({ siteDir: s, gitBranch: 'gh-pages', repoDir: repo, log: memoryLogger() })).commit, first.commit)
  writeFileSync(join(s, 'runs/2026-run/data/measurements.csv'), 'a,b\n3,4\n')
  const second = await publishSite({ siteDir: s, gitBranch: 'gh-pages', repoDir: repo, log: memoryLogger() })
  assert.equal(git(repo, 'rev-parse', `${second.commit}^`), first.commit)
  await assert.rejects(publishSite({ siteDir: s, gitBranch: 'bad..name', repoDir: repo, log: memoryLogger() }), /is not a valid branch name/)
})
