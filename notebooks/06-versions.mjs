#!/usr/bin/env zx
// Step 06: every catalog version of every proxy, article config and pool added.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/06-versions.mjs [options]

  versions  every catalog version of each proxy (stacks/<proxy>/stack.yaml) with its article
            config and with a pool added, closed model, interleaved in one phase so versions
            meet the same conditions → measurements.csv (series versions); the summary prints
            oldest → newest proxy µs/req per proxy and variant
Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() =>
  runFromFlags(notebookArgs('06-versions.mjs'), { notebook: 'notebooks/06-versions.mjs', help: HELP, install: false, fixedSeries: ['versions'] }),
)
