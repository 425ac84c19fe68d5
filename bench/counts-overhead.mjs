#!/usr/bin/env zx
// Benchmark: what counting system calls and context switches costs the proxy. The same
// closed cells with the kernel counters attached and without, back to back, repeat by
// repeat; prints the paired ratio counted/uncounted. Logic in lib/bench/counts-overhead.ts.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { parseProxyList } = await import('../lib/catalog/stack.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { userError } = await import('../lib/core/errors.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { OVERHEAD_VARIANTS, runCountsOverhead } = await import('../lib/bench/counts-overhead.ts')

const FLAGS = flagTable({
  ...commonFlags({ proxies: 'haproxy,nginx', variants: 'article,pool-removed', repeats: '6', duration: '3', runtime: 'native' }),
  'include-disturbed': {
    type: 'boolean',
    help: ['count rows invalid only for being disturbed (foreign CPU on a shared', 'machine) as valid: both arms of a pair run back to back'],
  },
  ...commonFlags({ out: 'results/counts-overhead-<time>' }),
})

const HELP = `Usage: npx zx bench/counts-overhead.mjs [options]

For each proxy (its newest catalog version) and variant, measures the same closed-model
cell (200 keep-alive clients, ec256) twice per repeat, once with the kernel counters
attached (perf stat on the proxy's cgroup, docs/method/counts.md) and once without
(--no-counts), the two back to back in alternating order, in one process holding the run
lock. Prints per cell the median proxy CPU µs/req of each arm, the median of the paired
ratios counted/uncounted and the counted system calls per request, then the median ratio
over all pairs with its 95% interval against the 1.02 target (counting costs <= 2%).
Writes <out>/measurements.csv (counts_reason names the uncounted rows) and <out>/overhead.txt.

Options:
${flagHelp(FLAGS, { column: 23 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('counts-overhead.mjs'), FLAGS, HELP, 'bench/counts-overhead.mjs')
  const runtime = flags.runtime ?? 'native'
  if (runtime !== 'native' && runtime !== 'docker')
    throw userError('--runtime', `"${runtime}" is not native or docker`, 'Use --runtime native or --runtime docker')
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 13)
  const r = await runCountsOverhead({
    proxies: parseProxyList(flags.proxies ?? 'haproxy,nginx'),
    variants: flags.variants
      ? flags.variants
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : OVERHEAD_VARIANTS,
    repeats: Number(flags.repeats ?? 6),
    durationS: Number(flags.duration ?? 3),
    runtime,
    includeDisturbed: !!flags['include-disturbed'],
    out: flags.out ?? `${repoRoot}/results/counts-overhead-${stamp}`,
    log: consoleLogger(),
  })
  process.stdout.write(`\n${r.table}\n\nrows: ${r.outDir}/measurements.csv\n`)
  return 0
})
