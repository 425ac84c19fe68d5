#!/usr/bin/env zx
// The built site (every run and baseline page, never keys) → a folder and/or a local git branch for GitHub Pages.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { publishSite } = await import('../lib/report/publish.ts')
const { join } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({ site: { default: 'site/', more: ['the built site it publishes'] } }),
  to: {
    type: 'string',
    arg: 'DIR',
    help: ['copy it to DIR (with .nojekyll), replacing DIR as a whole by rename;', 'DIR must be new, empty, or written by an earlier publish'],
  },
  'git-branch': {
    type: 'string',
    arg: 'NAME',
    help: [
      'commit it to the local branch NAME of this repository (e.g. gh-pages),',
      'laid out as GitHub Pages serves it; HEAD, the index and the working',
      'tree are not touched; then: git push origin NAME',
    ],
  },
  message: { type: 'string', arg: 'TEXT', help: ['the commit message (default "proxybench site, published <date>")'] },
})

const HELP = `Usage: npm run publish -- [--site DIR] [--to DIR] [--git-branch NAME] [--message TEXT]

Publishes the site that run-all / npm run report built (default site/): every run's page,
CSVs, charts and PDF, the baselines and the index that lists them all, so a yearly re-run
adds a page instead of replacing last year's. The site is checked first: no private key,
no symbolic link, no absolute link; nothing is written when a check fails.

Options:
${flagHelp(FLAGS, { column: 22 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('publish.mjs'), FLAGS, HELP, 'notebooks/publish.mjs')
  const r = await publishSite({
    siteDir: flags.site ?? join(repoRoot, 'site'),
    to: flags.to,
    gitBranch: flags['git-branch'],
    repoDir: repoRoot,
    message: flags.message,
    log: consoleLogger(),
  })
  process.stdout.write(
    `published ${r.files} files${r.to ? ` to ${r.to}` : ''}${r.commit ? `; branch ${flags['git-branch']} at ${r.commit.slice(0, 12)}` : ''}\n`,
  )
})
