#!/usr/bin/env zx
// Step 3b: work counted, not timed: each pooling cell's proxy under Valgrind's callgrind, instructions per request and per full handshake.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/work.mjs [options]

  work            the pooling cells (same, pool-added, pool-removed; standard and full: the
                  reuse variants too) on each proxy's one version, under valgrind --tool=callgrind
                  with one worker: user-space instructions per keep-alive request, the slope
                  between a small and a large batch of verified requests on one connection
                  → measurements.csv (series work, column instructions_per_req)
  work-handshake  full TLS handshakes with one GET each, ec256 and rsa4096
                  → handshakes.csv (series work, column instructions_per_req: per handshake)
Counts do not move with the machine's noise; time is the other series' price (docs/method/work.md).
Counted on the native runtime (a Docker run counts its work cells natively; --hosts: not countable).
Valgrind from Debian (npx zx notebooks/00-setup.mjs installs it).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() => runFromFlags(notebookArgs('work.mjs'), { notebook: 'notebooks/work.mjs', help: HELP, install: false, fixedSeries: ['work'] }))
