#!/usr/bin/env zx
// The archive of what was measured: list it, export a run's or a baseline's proxy builds to
// one file, import such a file on another machine (docs/archive.md).
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { archiveCommand } = await import('../lib/setup/archive-cli.ts')
const { consoleLogger } = await import('../lib/core/log.ts')

const FLAGS = flagTable({
  ...commonFlags({ force: { more: ['export: FILE (without --force, an existing FILE is refused)'] } }),
})

const HELP = `Usage: npm run archive -- list
       npm run archive -- add
       npm run archive -- export <run-id|baseline-id> FILE [--force]
       npm run archive -- import FILE
       (also: npx zx notebooks/archive.mjs ...)

Every proxy build a run measured is kept content-addressed under the cache
(~/.cache/proxybench/archive/, or $PROXYBENCH_CACHE/archive/): its binary and the root it
runs from, each distinct file once. Nothing of it goes into git.

  list     the archived builds, the size of each, in all and deduplicated
  add      keep every catalog version set up on this machine (a run keeps the ones it
           measured by itself), then list
  export   the proxy builds a run (results/<run-id>/) or a baseline (baselines/runs/<id>/)
           measured, into one file: FILE.tar.gz (gzip) or FILE.tar.zst (zstd), with a
           LISTING.txt; prints the size per version, in all and the time taken. A build
           not in the archive is listed as missing and the rest is exported (exit 1).
           An existing FILE is refused (exit 2) unless --force: then the new one is
           written beside it and renamed over it (a failed export keeps the old one).
  import   verifies every hash in FILE, then adds its builds to the archive (nothing is
           added when one fails)

Options:
${flagHelp(FLAGS, { column: 16 })}

Exit status: 0; 1 when a build to export is missing from the archive; 2 on bad input.`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('archive.mjs'), FLAGS, HELP, 'notebooks/archive.mjs', { positionals: 3 })
  const r = await archiveCommand(flags._, consoleLogger(), { force: flags.force })
  process.stdout.write(r.out.join('\n') + '\n')
  return r.code
})
