#!/usr/bin/env zx
// Catalog upkeep: the catalog's versions per source, and with --check what each source
// offers now that the catalog lacks and what it pins that is no longer offered.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { PROXIES, parseProxyList, loadStack } = await import('../lib/catalog/stack.ts')
const { upkeepRows, shortList } = await import('../lib/catalog/upkeep.ts')
const { gatherOffers } = await import('../lib/setup/offers.ts')
const { h3Label, h3Support } = await import('../lib/setup/h3-support.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { formatTable } = await import('../lib/core/text-table.ts')

const FLAGS = flagTable({
  ...commonFlags({ check: { more: ['ask the sources whether they still serve each pinned build (a minute or two)'] } }),
  update: {
    type: 'boolean',
    help: [
      're-pin every pinned build its source no longer serves (or the host updated) to the build setup',
      'substitutes, in stack.yaml (as root; review and commit the diff)',
    ],
  },
  ...commonFlags({ proxies: 'all five', json: undefined }),
})

const HELP = `Usage: npm run catalog -- [--check] [options]   (also: npx zx notebooks/catalog.mjs)

Without --check: every catalog version (stacks/<proxy>/stack.yaml) with its source, sha256,
the build this machine has of it (here: pinned, substituted by another build of the same
version, restored from the archive, missing, or not runnable here with the reason;
docs/catalog.md#when-a-pin-moves) and whether its binary speaks HTTP/3 (h3: yes, or no with
the reason; docs/series/h3.md).
--check asks every source the catalog uses, now: PyPI through pip's configured index, the
host's Debian suite (apt-cache madison), each debian:<suite> through apt in a copy of its
cached base (built once by debootstrap, as root), official image tags through the Docker
engine when a registry answers. It prints what to add and what to re-pin; it never edits
the catalog.
--update writes the new pins: for each version whose pinned build is gone (or whose host
package was updated), the sha256 and Debian build setup measured in its place
(docs/catalog.md#when-a-pin-moves). Only those lines of stacks/<proxy>/stack.yaml change.

Options:
${flagHelp(FLAGS, { column: 20 })}

Exit status: 0; 1 when --check finds a pinned version no longer offered; 2 on bad flags.`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('catalog.mjs'), FLAGS, HELP, 'notebooks/catalog.mjs')
  const stacks = (flags.proxies !== undefined ? parseProxyList(flags.proxies) : PROXIES).map((p) => loadStack(p))
  if (flags.update) {
    const { updatePins } = await import('../lib/setup/repin.ts')
    const { acquireStepLock } = await import('../lib/run/lock.ts')
    const release = await acquireStepLock('notebooks/catalog.mjs', { hint: 'to look without changing anything: --check' })
    const changes = await updatePins(
      stacks.map((s) => s.proxy),
      consoleLogger(),
    ).finally(release)
    if (changes.length === 0) process.stdout.write('every pinned build is served and matches its sha256: nothing to re-pin\n')
    for (const c of changes) process.stdout.write(`${c.proxy} ${c.version}: re-pinned ${c.from} → ${c.to} (stacks/${c.proxy}/stack.yaml)\n`)
    return 0
  }
  if (!flags.check) {
    // What this machine has of each version: as pinned, a substitute, or not runnable here (lib/setup/builds.ts).
    const { setup } = await import('../lib/setup/doctor.ts')
    const { buildHere } = await import('../lib/setup/builds.ts')
    const here = await setup({ proxies: stacks.map((s) => s.proxy), install: false, log: consoleLogger(process.stderr, true), engine: false })
    const rows = stacks.flatMap((s) =>
      s.versions.map((v) => ({
        proxy: s.proxy,
        version: v.version,
        source: v.source,
        package: v.deb_version ? `${v.package} ${v.deb_version}` : v.package,
        sha256: v.sha256.slice(0, 16),
        here: buildHere(here, s.proxy, v.version),
        h3: h3Label(h3Support(s.proxy, v)),
      })),
    )
    process.stdout.write(
      flags.json ? JSON.stringify(rows, null, 2) + '\n' : formatTable(rows, ['proxy', 'version', 'source', 'package', 'sha256', 'here', 'h3']) + '\n',
    )
    return 0
  }
  const offers = await gatherOffers(stacks, consoleLogger())
  const rows = stacks.flatMap((s) => upkeepRows(s, offers))
  if (flags.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
  else {
    const table = rows.map((r) => ({
      proxy: r.proxy,
      source: r.source,
      package: r.package,
      pinned: r.pinned.join(', '),
      'offered, not in catalog': r.error ?? shortList(r.missing),
      'pinned, gone': r.error ? '?' : shortList(r.gone),
      'newer build': shortList(r.rebuilt),
    }))
    process.stdout.write(formatTable(table, ['proxy', 'source', 'package', 'pinned', 'offered, not in catalog', 'pinned, gone', 'newer build']) + '\n')
  }
  return rows.some((r) => r.gone.length > 0) ? 1 : 0
})
