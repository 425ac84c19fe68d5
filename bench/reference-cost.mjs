#!/usr/bin/env zx
// Benchmark: what the same-instant reference costs the cell beside it. Logic in lib/bench/reference-cost.ts.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { parseProxyList } = await import('../lib/catalog/stack.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { userError } = await import('../lib/core/errors.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { formatCostLines, runReferenceCost } = await import('../lib/bench/reference-cost.ts')
const { parseTaxNs } = await import('../lib/cli/run-options.ts')
const { join } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({ proxies: 'haproxy,nginx' }),
  variants: { type: 'string', arg: 'LIST', help: ['default article,pool-removed'] },
  repeats: { type: 'string', arg: 'N', help: ['default 4'] },
  'tax-ns': { type: 'string', arg: 'N', help: ['compare as is with this system-call tax instead'] },
  ...commonFlags({ out: 'results/reference-cost-<time>' }),
})

const HELP = `Usage: npx zx bench/reference-cost.mjs [--proxies LIST] [--variants LIST] [--repeats N] [--tax-ns N] [--out DIR]

Measures the same closed-model cells (quick windows, 200 clients, ec256, native runtime,
and the direct row) in two conditions, back to back in an order that alternates, repeat by
repeat, holding the machine's run lock (waiting for it first): without and with the
reference of run-all --reference rtt; or, with --tax-ns, as is and under a system-call tax
of N ns, the reference on in both. Prints per cell the median µs/req in each, the ratio,
the ratio in the same-instant reference's unit and the share of the proxy's core the
reference took; then the median ratios raw, in the direct row's unit and in the
reference's, with the cells within ±15% (docs/method/reference.md).

Options:
${flagHelp(FLAGS, { column: 21 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('reference-cost.mjs'), FLAGS, HELP, 'bench/reference-cost.mjs')
  const repeats = Number(flags.repeats ?? 4)
  if (!Number.isInteger(repeats) || repeats < 1) throw userError(`--repeats ${flags.repeats}`, 'not a positive whole number', 'E.g. --repeats 4')
  const out = flags.out ?? join(repoRoot, 'results', `reference-cost-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}`)
  const taxNs = parseTaxNs(flags['tax-ns'], false)
  const { lines } = await runReferenceCost({
    proxies: parseProxyList(flags.proxies ?? 'haproxy,nginx'),
    variants: (flags.variants ?? 'article,pool-removed').split(','),
    repeats,
    out,
    log: consoleLogger(),
    ...(taxNs ? { taxNs } : {}),
  })
  process.stdout.write(formatCostLines(lines, taxNs ? ['as is', `taxed ${taxNs} ns`] : undefined) + '\n')
})
