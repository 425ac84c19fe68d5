#!/usr/bin/env zx
// Step 11: HTTP/2 from the client: h2load through every proxy's h2 variant, beside wrk (HTTP/1.1) through the same config.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/09-h2.mjs [options]

  h2     h2load (Debian nghttp2-client), -c connections with -m streams each over TLS, h2
         chosen by ALPN (checked with nghttp before the window and in h2load's own output)
         → measurements.csv (series h2, column streams); quick: -m 1, standard and full: 1, 10, 100
  h2-h1  wrk (HTTP/1.1) through the same h2 variant: the reference of the h2/h1 ratio
The backend side stays HTTP/1.1 on every proxy. HTTP/3 is not measured (docs/series/h2-resumption.md).
Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() => runFromFlags(notebookArgs('09-h2.mjs'), { notebook: 'notebooks/09-h2.mjs', help: HELP, install: false, fixedSeries: ['h2'] }))
