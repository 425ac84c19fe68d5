#!/usr/bin/env zx
// Step 01: a fresh CA and one leaf per key type, shared by every proxy.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { ensureCerts, KEY_TYPES, reusable } = await import('../lib/setup/certs.ts')
const { acquireStepLock } = await import('../lib/run/lock.ts')
const { certsDir } = await import('../lib/core/paths.ts')
const { consoleLogger } = await import('../lib/core/log.ts')

const FLAGS = flagTable({
  ...commonFlags({ force: { more: ['the CA and every certificate, all new'] } }),
  dir: { type: 'string', arg: 'DIR', help: ['where to write (default: certs/)'] },
})

const HELP = `Usage: npx zx notebooks/01-certs.mjs [options]   (also: npm run certs -- [options])

Creates certs/ca.crt and, per key type (ec256, rsa2048, rsa4096), <type>.crt, <type>.key
(mode 0600) and <type>.pem (HAProxy: certificate + key). SANs: localhost, 127.0.0.1.
Reuses a complete set that is valid for another day unless --force. Writing takes the
machine's run lock (docs/reliability.md#the-run-lock): refused while a run measures with them.

Options:
${flagHelp(FLAGS, { column: 17 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('01-certs.mjs'), FLAGS, HELP, 'notebooks/01-certs.mjs')
  const log = consoleLogger()
  const dir = flags.dir ?? certsDir
  // New keys under a running proxy would spoil its run: only a set that is reused needs no lock.
  const release = !flags.force && (await reusable(dir)) ? async () => {} : await acquireStepLock('notebooks/01-certs.mjs')
  const set = await ensureCerts(dir, { force: !!flags.force, log }).finally(release)
  log.info(`${set.reused ? 'reused' : 'created'} certificates in ${set.dir} (CA sha256 ${set.caSha256.slice(0, 12)}, ${set.created})`)
  for (const kt of KEY_TYPES) log.info(`  ${kt}: ${set.files[kt].cert}`)
})
