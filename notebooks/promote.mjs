#!/usr/bin/env zx
// A run → baselines/runs/<id>/ (its CSVs and manifest, validated; never keys or raw output).
import { basename } from 'node:path'
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { promote } = await import('../lib/data/baselines.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { displayPath } = await import('../lib/core/paths.ts')
const { archiveComponents, archiveNotes } = await import('../lib/data/archive-index.ts')

const FLAGS = flagTable({
  id: { type: 'string', arg: 'ID', help: ['baseline id (default: the run id)'] },
  ...commonFlags({ force: { more: ['the baseline with that id'] } }),
})

const HELP = `Usage: npm run promote -- RUN_DIR [--id ID] [--force]

Copies RUN_DIR's manifest.json, measurements.csv, handshakes.csv and websocket.csv into
baselines/runs/<ID>/ after checking every row against the schema; commit that folder, and
next year: npm run report -- --run results/<new run> --baseline <ID>.
Then says which of its proxy builds are in the archive (docs/archive.md) and how to export
them to carry the exact binaries elsewhere: npm run archive -- export <ID> <ID>.tar.gz.
A build not archived is said, and the promote still succeeds.

Options:
${flagHelp(FLAGS, { column: 16 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('promote.mjs'), FLAGS, HELP, 'notebooks/promote.mjs', { positionals: 1 })
  const runDir = flags._[0]
  if (!runDir) throw userError('notebooks/promote.mjs', 'RUN_DIR is required', 'Pass a run directory: npm run promote -- results/<run-id>')
  const target = promote(runDir, { id: flags.id, force: flags.force, log: consoleLogger() })
  process.stdout.write(`promoted ${displayPath(runDir)} → ${displayPath(target)}\n`)
  const notes = archiveNotes(basename(target), archiveComponents(target) ?? [])
  if (notes.length) process.stdout.write(notes.join('\n') + '\n')
})
