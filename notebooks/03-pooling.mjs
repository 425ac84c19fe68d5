#!/usr/bin/env zx
// Step 03: the pooling series (same configs, pool added, pool removed, extras, direct).
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/03-pooling.mjs [options]

Measures proxy CPU µs per request for every selected proxy with its article config, a
backend pool added and the pool removed, plus HAProxy reuse-never/server-close, nginx
literal/upstream-default/upstream-keepalive on a version before and after 1.29.7, and the
direct generator → backend floor. Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() =>
  runFromFlags(notebookArgs('03-pooling.mjs'), { notebook: 'notebooks/03-pooling.mjs', help: HELP, install: false, fixedSeries: ['pooling'] }),
)
