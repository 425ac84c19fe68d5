#!/usr/bin/env zx
// The measured pool detector: backend connections per 100 proxied requests for every
// proxy, catalog version and variant, beside what the documentation predicts.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { PROXIES, parseProxyList, loadStack } = await import('../lib/catalog/stack.ts')
const { parseVersionChoice } = await import('../lib/catalog/version-choice.ts')
const { userError } = await import('../lib/core/errors.ts')
const { ensureCerts } = await import('../lib/setup/certs.ts')
const { certsDir } = await import('../lib/core/paths.ts')
const { poolTable } = await import('../lib/run/pool-detector.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { formatTable } = await import('../lib/core/text-table.ts')
const { mkdtempSync } = await import('node:fs')
const { tmpdir } = await import('node:os')
const { join } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({
    proxies: 'all five',
    variants: 'all of each proxy',
    versions: 'all',
    json: { more: ['an array of {proxy, version, variant, conns_per_100, ...}'] },
  }),
})

const HELP = `Usage: npx zx notebooks/pool-table.mjs [options]   (also: npm run pool-table -- [options])

Starts each proxy natively (every catalog version, every variant) in front of the Go
backend, sends 100 keep-alive HTTPS requests over 2 client connections, and counts the TCP
connections the backend accepted. Predictions come from stacks/<proxy>/stack.yaml
(reuse: always | never | "from X.Y.Z"): reuse means <= 10 per 100, no reuse >= 90 per 100.

Options:
${flagHelp(FLAGS, { column: 20 })}

Exit status: 0 when every row answered and matched its prediction, 1 otherwise.`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('pool-table.mjs'), FLAGS, HELP, 'notebooks/pool-table.mjs')
  const log = consoleLogger()
  const proxies = flags.proxies !== undefined ? parseProxyList(flags.proxies) : PROXIES
  // Every variant named must exist for one of the proxies, before certificates or a lock.
  const known = [...new Set(proxies.flatMap((p) => Object.keys(loadStack(p).variants)))]
  const variants = flags.variants
    ?.split(',')
    .map((v) => v.trim())
    .filter(Boolean)
  const unknown = variants === undefined ? undefined : variants.length === 0 ? '' : variants.find((v) => !known.includes(v))
  if (unknown !== undefined)
    throw userError(
      '--variants',
      unknown ? `unknown variant "${unknown}" for ${proxies.join(', ')}` : 'names no variant',
      `Use a comma-separated list of: ${known.join(', ')}`,
    )
  const versions = flags.versions !== undefined ? parseVersionChoice(flags.versions, proxies) : undefined
  const certs = await ensureCerts(certsDir, { force: false, log })
  const rows = await poolTable({
    proxies,
    variants,
    versions,
    certs,
    workDir: mkdtempSync(join(tmpdir(), 'proxybench-pool-')),
    log,
  })
  if (flags.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n')
  else
    process.stdout.write(
      formatTable(
        rows.map((r) => ({ ...r, conns_per_100: r.conns_per_100 ?? '-', note: r.note ?? '' })),
        ['proxy', 'version', 'variant', 'conns_per_100', 'expected', 'status', 'note'],
      ) + '\n',
    )
  return rows.every((r) => r.status === 'ok') ? 0 : 1
})
