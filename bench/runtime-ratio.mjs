#!/usr/bin/env zx
// Benchmark: the same cells on native, Docker host network and Docker bridge network,
// interleaved repeat by repeat; prints proxy µs/req per runtime, the ratios to native and
// the F3 spread per mode. Logic in lib/bench/runtime-ratio.ts.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { PROXIES, parseProxyList } = await import('../lib/catalog/stack.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { RATIO_VARIANTS, runRuntimeRatio } = await import('../lib/bench/runtime-ratio.ts')

const FLAGS = flagTable({
  ...commonFlags({ proxies: 'all five', variants: 'article,pool-added,pool-removed', repeats: '3', duration: '3, as the quick profile' }),
  ...commonFlags({ out: 'results/runtime-ratio-<time>' }),
})

const HELP = `Usage: npx zx bench/runtime-ratio.mjs [options]

For each proxy (its newest catalog version) and variant, measures the same closed-model
cell (200 keep-alive clients, ec256) on native, docker host and docker bridge, the three
back to back in a rotating order, repeat by repeat, in one process holding the run lock.
Prints per proxy and variant the proxy CPU µs/req per runtime (median of valid repeats),
docker-host/native (target 0.8-1.25) and docker-bridge/native, then the F3 spread of the
pool-removed medians across proxies per mode (max/min - 1 and ± around the median).
Writes <out>/measurements.csv (the measurements.csv schema, runtime = native |
docker-host | docker-bridge), <out>/ratio.txt (the printed table) and raw/ per runtime.
Needs root or a running Docker engine, and the offline images (built when missing).

Options:
${flagHelp(FLAGS, { column: 21 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('runtime-ratio.mjs'), FLAGS, HELP, 'bench/runtime-ratio.mjs')
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 13)
  const r = await runRuntimeRatio({
    proxies: flags.proxies ? parseProxyList(flags.proxies) : [...PROXIES],
    variants: flags.variants
      ? flags.variants
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : RATIO_VARIANTS,
    repeats: Number(flags.repeats ?? 3),
    durationS: Number(flags.duration ?? 3),
    out: flags.out ?? `${repoRoot}/results/runtime-ratio-${stamp}`,
    log: consoleLogger(),
  })
  process.stdout.write(`\n${r.table}\n\nrows: ${r.outDir}/measurements.csv\n`)
  return 0
})
