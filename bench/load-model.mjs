#!/usr/bin/env zx
// Benchmark: closed model vs fixed-rate open model on the pooling cells. Reads finished
// run directories (or makes one first) and prints per cell and model the precision for the
// time spent, and how far each model's figures move between runs. Logic in
// lib/bench/load-model.ts.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { parseLoadModelOptions } = await import('../lib/cli/load-model-options.ts')
const { parseRunOptions } = await import('../lib/cli/run-options.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { MEASUREMENTS, readTable } = await import('../lib/data/tables.ts')
const { loadModelReport } = await import('../lib/bench/load-model.ts')
const { runBench } = await import('../lib/run/run.ts')

const FLAGS = flagTable({
  measure: { type: 'boolean', help: ['make a run first (series pooling) and add it to the directories'] },
  ...commonFlags({
    profile: 'quick; with --measure only',
    proxies: 'haproxy,nginx,caddy; with --measure only',
    seed: 'random; with --measure only',
    out: 'results/<run-id>; with --measure only',
  }),
})

const HELP = `Usage: npx zx bench/load-model.mjs [options] [RUN_DIR...]

For every cell measured in both the closed model (pooling) and at the fixed rate
(pooling-open), prints per run: the median proxy CPU µs/req, ±rel (the relative
half-width of the median's order-statistics interval, at its coverage: 50% for 2
repeats, 75% for 3), n (valid/all repeats), s (wall seconds the repeats took, start and
verification included) and ±/√min = ±rel × √minutes (the half-width one minute of
repeats would give: lower is better); then per model the medians over the cells valid
in both models. With two or more runs: per cell the ratio of each later run's median to
the first run's, per model, and the typical move.

Options:
${flagHelp(FLAGS, { column: 21 })}

Example:
  npx zx bench/load-model.mjs /tmp/h5/run1 /tmp/h5/run2`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('load-model.mjs'), FLAGS, HELP, 'bench/load-model.mjs', { positionals: 100 })
  const o = parseLoadModelOptions(flags)
  const dirs = [...o.dirs]
  if (o.run) {
    const log = consoleLogger()
    const r = await runBench(
      parseRunOptions(
        { profile: o.run.profile, series: 'pooling', proxies: o.run.proxies.join(','), seed: o.run.seed, out: o.run.out },
        { install: false, log },
      ),
    )
    dirs.push(r.runDir)
  }
  process.stdout.write(`${loadModelReport(dirs.map((d) => ({ name: d, rows: readTable(d, MEASUREMENTS) })))}\n`)
  return 0
})
