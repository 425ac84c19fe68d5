#!/usr/bin/env zx
// The documentation's generated blocks (the fixture's summary, the column table, every
// --help) rewritten from the code, then every link, anchor, path, script and flag checked.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { docsStatus } = await import('../lib/docs/status.ts')
const { writeFileAtomic } = await import('../lib/core/atomic.ts')

const FLAGS = flagTable({
  ...commonFlags({ check: { more: ['exit 1 when a generated block is out of date or a check fails'] } }),
})

const HELP = `Usage: npm run docs -- [--check]   (also: npx zx notebooks/docs.mjs)

Rewrites the blocks between the "generated: NAME" comment markers in README.md,
CONTRIBUTING.md and docs/ from the code (the fixture run's summary lines, the column table
of every CSV, docs/cli.md from every notebook's and bench script's --help), then checks that
every link, anchor, repository path, npm script and notebook flag the pages and the code's
comments name exists. Prints one line per problem, file:line first.

Options:
${flagHelp(FLAGS, { column: 15 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('docs.mjs'), FLAGS, HELP, 'notebooks/docs.mjs')
  const { stale, problems } = await docsStatus(repoRoot)
  for (const s of stale) {
    if (flags.check) console.log(`${s.page}: generated block out of date (run npm run docs)`)
    else {
      writeFileAtomic(`${repoRoot}/${s.page}`, s.text)
      console.log(`wrote ${s.page}`)
    }
  }
  for (const p of problems) console.log(p)
  console.log(
    `docs: ${stale.length} generated page${stale.length === 1 ? '' : 's'} ${flags.check ? 'out of date' : 'rewritten'}, ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
  )
  return (flags.check && stale.length) || problems.length ? 1 : 0
})
