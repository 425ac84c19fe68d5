#!/usr/bin/env zx
// Step 12: TLS session resumption: handshakes whose client keeps and offers session tickets, beside full ones.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/10-resumption.mjs [options]

  resumption  loadgen handshake -resume none | tickets (TLS 1.3) | tickets-tls12, EC-256, 4
              workers, a new connection and one GET each → handshakes.csv (series resumption,
              columns resumption and resumed); quick: none and tickets on each proxy's
              pool-added; standard and full: also tickets-tls12 and nginx's session-cache variant
Go's TLS client resumes by tickets only, never by session ID (docs/series/h2-resumption.md).
Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() =>
  runFromFlags(notebookArgs('10-resumption.mjs'), { notebook: 'notebooks/10-resumption.mjs', help: HELP, install: false, fixedSeries: ['resumption'] }),
)
