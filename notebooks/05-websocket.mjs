#!/usr/bin/env zx
// Step 05: WebSockets through every proxy: echo over 200 connections, hold N idle ones.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/05-websocket.mjs [options]

  ws-echo   every proxy with its article and ws configs: 200 connections sending messages back
            to back → websocket.csv (mode echo, proxy_cpu_us_per_msg); a failed upgrade is a
            row with status failed and the HTTP status
  ws-hold   the ws configs (+ Envoy ws-raised): N idle connections opened at 1000/s and pinged
            every 5 s (N = 1500 for quick, 5000 for standard and full) → established, survived,
            refusals with reasons, ping percentiles
Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() =>
  runFromFlags(notebookArgs('05-websocket.mjs'), { notebook: 'notebooks/05-websocket.mjs', help: HELP, install: false, fixedSeries: ['ws'] }),
)
