#!/usr/bin/env zx
// Benchmark: what the same-instant reference costs the cell beside it. Logic in lib/run/reference-cost.ts.
import '../notebooks/_ts.mjs'

const HELP = `Usage: npx zx bench/reference-cost.mjs [--proxies LIST] [--variants LIST] [--repeats N] [--out DIR]

Measures the same closed-model cells (quick windows, 200 clients, ec256, native runtime)
with and without the reference of run-all --reference rtt, back to back in an order that
alternates, repeat by repeat, holding the machine's run lock (waiting for it first).
Prints per cell the median µs/req without and with it, their ratio, and the share of the
proxy's core the reference took (docs/method/reference.md).

Options:
  --proxies LIST     default haproxy,nginx
  --variants LIST    default article,pool-removed
  --repeats N        default 4
  --out DIR          default results/reference-cost-<time>
  -h, --help         this help`

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { parseProxyList } = await import('../lib/catalog/stack.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { userError } = await import('../lib/core/errors.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { formatCostLines, runReferenceCost } = await import('../lib/run/reference-cost.ts')
const { join } = await import('node:path')

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('reference-cost.mjs'), { proxies: { type: 'string' }, variants: { type: 'string' }, repeats: { type: 'string' }, out: { type: 'string' } }, HELP, 'bench/reference-cost.mjs')
  const repeats = Number(flags.repeats ?? 4)
  if (!Number.isInteger(repeats) || repeats < 1) throw userError(`--repeats ${flags.repeats}`, 'not a positive whole number', 'E.g. --repeats 4')
  const out = flags.out ?? join(repoRoot, 'results', `reference-cost-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}`)
  const { lines } = await runReferenceCost({ proxies: parseProxyList(flags.proxies ?? 'haproxy,nginx'), variants: (flags.variants ?? 'article,pool-removed').split(','), repeats, out, log: consoleLogger() })
  process.stdout.write(formatCostLines(lines) + '\n')
})
