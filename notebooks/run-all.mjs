#!/usr/bin/env zx
// Every step in order: setup (install what is missing), certificates, the series, summary.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/run-all.mjs [options]   (npm run bench = --profile quick)

Sets up every component (as 00-setup), makes certificates (as 01-certs), runs the selected
series and prints one line per finding with its figure and whether it held. Every repeat
is appended to <out>/measurements.csv as soon as it is measured; --resume finishes an
interrupted run.

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() => runFromFlags(notebookArgs('run-all.mjs'), { notebook: 'notebooks/run-all.mjs', help: HELP, install: true }))
