#!/usr/bin/env zx
// Step 10: the scenarios users ask for (issue #16): plain HTTP, access logs on, a dynamic /json body, connection counts.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/08-scenarios.mjs [options]

  scenarios  closed model (wrk) through every proxy, series scenarios in measurements.csv:
             pool-added (the reference: HTTPS, GET /, the profile's connections), http (the
             same config without TLS), logging (its access log on, to a file in the proxy's
             run_dir), pool-added at GET /json?size=N (a body generated per request), http
             at more connections; the direct rows are each request's floor
             smoke, quick: /json 10 KiB and 1000 connections; standard, full: /json 1 KiB,
             10 KiB, 100 KiB and 500, 1000, 2000 connections (a count above this machine's
             ulimit -n or port range is a failed row saying so)
Ratios with intervals in the report (S1 HTTPS/HTTP, S2 logging on/off, S3 dynamic/static,
S4 connections). Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() =>
  runFromFlags(notebookArgs('08-scenarios.mjs'), { notebook: 'notebooks/08-scenarios.mjs', help: HELP, install: false, fixedSeries: ['scenarios'] }),
)
