#!/usr/bin/env zx
// Step 04: TLS handshake cost per key type, the open-model collapse, generator calibration.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/04-tls.mjs [options]

Six phases, each proxy on its newest catalog version with its pool-added config:
  tls-handshake    full TLS handshakes (no resumption) + one GET each, per key type
                   (ec256, rsa2048, rsa4096) → handshakes.csv, proxy_cpu_us_per_handshake
  tls-ceiling      closed-model (wrk) ceiling with ec256 → measurements.csv
  tls-default-key  Traefik and Caddy given no certificate (variant default-cert): the key of
                   the one they serve, from an openssl s_client handshake, and Traefik's ACME
                   default key type from its own --help (tls-acme-default) → default-keys.csv
  tls-open         open model (loadgen open, k6 constant-arrival-rate) at the seed's fraction,
                   15,000 / 223,000 of HAProxy's ec256 ceiling, only the certificate changes
                   (ec256 vs rsa4096)
  tls-open-half    the same at 50% of that ceiling (recorded; ec256 may collapse there too)
  tls-calibration  HAProxy (or the first proxy) with ec256 at 25..125% of its ceiling
Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() => runFromFlags(notebookArgs('04-tls.mjs'), { notebook: 'notebooks/04-tls.mjs', help: HELP, install: false, fixedSeries: ['tls'] }))
