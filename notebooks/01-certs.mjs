#!/usr/bin/env zx
// Step 01: a fresh CA and one leaf per key type, shared by every proxy.
import './_ts.mjs'

const HELP = `Usage: npx zx notebooks/01-certs.mjs [options]   (also: npm run certs -- [options])

Creates certs/ca.crt and, per key type (ec256, rsa2048, rsa4096), <type>.crt, <type>.key
(mode 0600) and <type>.pem (HAProxy: certificate + key). SANs: localhost, 127.0.0.1.
Reuses a complete set that is valid for another day unless --force.

Options:
  --force        regenerate everything (a new CA)
  --dir DIR      where to write (default: certs/)
  -h, --help     this help`

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { ensureCerts, KEY_TYPES } = await import('../lib/setup/certs.ts')
const { certsDir } = await import('../lib/core/paths.ts')
const { consoleLogger } = await import('../lib/core/log.ts')

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('01-certs.mjs'), { force: { type: 'boolean' }, dir: { type: 'string' } }, HELP, 'notebooks/01-certs.mjs')
  const log = consoleLogger()
  const set = await ensureCerts(flags.dir ?? certsDir, { force: !!flags.force, log })
  log.info(`${set.reused ? 'reused' : 'created'} certificates in ${set.dir} (CA sha256 ${set.caSha256.slice(0, 12)}, ${set.created})`)
  for (const kt of KEY_TYPES) log.info(`  ${kt}: ${set.files[kt].cert}`)
})
