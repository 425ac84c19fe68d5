#!/usr/bin/env zx
// Step 00: find or install every component (Debian packages, proxy wheels, Go builds),
// make sure the Docker engine answers, and print the doctor table. Also `npm run doctor`.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { PROXIES, parseProxyList } = await import('../lib/catalog/stack.ts')
const { setup } = await import('../lib/setup/doctor.ts')
const { acquireStepLock } = await import('../lib/run/lock.ts')
const { usable } = await import('../lib/setup/component.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { formatTable } = await import('../lib/core/text-table.ts')

const FLAGS = flagTable({
  ...commonFlags({ proxies: 'all five' }),
  ...commonFlags({ check: { more: ['install, download, build and start nothing (no lock)'] } }),
  doctor: { type: 'boolean', help: ['the same as no flag (npm run doctor)'] },
  ...commonFlags({ json: { more: ['the table, an array of rows'] } }),
  quiet: { type: 'boolean', help: ['print only problems (used by npm test)'] },
})

const HELP = `Usage: npx zx notebooks/00-setup.mjs [options]   (also: npm run doctor -- [options])

Finds or installs every component proxybench uses and prints one row per component:
component, version, source, path, sha256, status, and for each proxy version h3: whether
its binary speaks HTTP/3 (yes, or no with the reason; docs/series/h3.md#which-builds-can).
Idempotent; fast when all is present.
The last row is the running Docker engine (version, cgroup version, storage driver): as
root, dockerd is started in the background when its socket does not answer (Debian
docker.io is installed with the other packages); otherwise the row says how.

Takes the machine's run lock unless --check (docs/reliability.md#the-run-lock): refused
while a run measures, except when that run started this step.

Options:
${flagHelp(FLAGS, { column: 19 })}

Exit status: 0 when every component is usable, 1 when one is missing or failed, 2 on bad flags.`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('00-setup.mjs'), FLAGS, HELP, 'notebooks/00-setup.mjs')
  const log = consoleLogger(process.stderr, flags.quiet || flags.json)
  const proxies = flags.proxies !== undefined ? parseProxyList(flags.proxies) : PROXIES
  // Installing changes what a run measures with: not under a running measurement (inside one, its lock is re-used).
  const release = flags.check ? async () => {} : await acquireStepLock('notebooks/00-setup.mjs', { hint: 'to look without changing anything: --check' })
  const rows = await setup({ proxies, install: !flags.check, log }).finally(release)

  if (flags.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
  else if (!flags.quiet) {
    const shown = rows.map((r) => ({ ...r, sha256: r.sha256.slice(0, 12) }))
    process.stdout.write(formatTable(shown, ['component', 'version', 'source', 'status', 'sha256', 'path', 'h3']) + '\n')
  }
  for (const r of rows) if (r.note) log.warn(r.note)
  return rows.every(usable) ? 0 : 1
})
