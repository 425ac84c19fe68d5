#!/usr/bin/env zx
// Step 09: L4 TCP forwarding through every proxy with L4 variants: plain TCP, TLS passthrough, TLS termination.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/07-l4.mjs [options]

  l4-short   32 workers each connecting, sending 64 bytes, reading them back and closing, back
             to back, through variants l4-tcp, l4-passthrough, l4-terminate → tcp.csv
             (mode short, proxy_cpu_us_per_conn)
  l4-stream  4 workers each sending and reading back 16 MiB per connection → tcp.csv
             (mode stream, proxy_cpu_us_per_mib); quick: l4-tcp only, standard and full: all three
HAProxy mode tcp, nginx stream, Envoy tcp_proxy, Traefik TCP routers; Caddy has no L4 variant
(no catalog build carries the layer4 app). Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() => runFromFlags(notebookArgs('07-l4.mjs'), { notebook: 'notebooks/07-l4.mjs', help: HELP, install: false, fixedSeries: ['l4'] }))
