#!/usr/bin/env zx
// Step 13: HTTP/3 from the client: loadgen h3 (QUIC) through every proxy's h3 variant, beside wrk (HTTP/1.1) through the same config.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs } = await import('../lib/cli/flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')

const HELP = `Usage: npx zx notebooks/11-h3.mjs [options]

  h3     loadgen h3 (quic-go), -c connections with -m streams each over QUIC on UDP (loopback,
         or between the hosts of --hosts), every answer checked for ALPN h3 and HTTP/3.0 (20
         checked requests before the window too) → measurements.csv (series h3, column
         streams); quick: -m 1, standard and full: 1, 10, 100. The direct row: loadgen h3
         against the backend's own HTTP/3 listener.
  h3-h1  wrk (HTTP/1.1 over TLS) through the same h3 variant: the reference of the h3/h1 ratio
  h3-open, h3-open-h1  standard and full: loadgen h3 -rate (a virtual user per QUIC connection)
         and loadgen open (HTTP/1.1) through the same config, each proxy at half its own h3
         closed rate (1 stream/conn)
  h3-handshake      loadgen h3-handshake: a new QUIC connection per request, 4 clients, per
                    key type (ec256, rsa2048, rsa4096) → handshakes.csv, column resumption:
                    none (full), tickets (resumed) and 0rtt where the template accepts early
                    data (Caddy, Envoy); quick and smoke resume on ec256 only
  h3-handshake-tcp  loadgen handshake (TCP+TLS 1.3) through the same h3 variant, none and
                    tickets: the reference of the QUIC/TCP+TLS ratio
Columns udp_datagrams_per_req (per request; handshakes.csv: per handshake) and, for QUIC
handshakes, early_data. --key-types narrows the handshake cells.
Each proxy runs its newest version whose build speaks HTTP/3 (npm run catalog shows which);
a newest version that cannot is a failed row "not measured: <reason>". The backend side
stays HTTP/1.1 on every proxy. See docs/series/h3.md.
Components must be set up (npx zx notebooks/00-setup.mjs).

Options:
${RUN_FLAGS_HELP}`

await runNotebook(() => runFromFlags(notebookArgs('11-h3.mjs'), { notebook: 'notebooks/11-h3.mjs', help: HELP, install: false, fixedSeries: ['h3'] }))
