#!/usr/bin/env zx
// Benchmark: is work counted finely enough that a year-later change of 2% is seen? The work
// series in a base run (with each proxy's timed article cell as its price), promoted as a
// baseline; then counted again --like it from a checkout with a planted config, and under a
// system-call tax (docs/benchmarks.md#work).
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { parseTaxNs } = await import('../lib/cli/run-options.ts')
const { userError } = await import('../lib/core/errors.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { readManifest } = await import('../lib/data/manifest.ts')
const { PROXIES } = await import('../lib/catalog/stack.ts')
const { articleConfig, PLANT_PROXY, plantedCheckout, writePlanted } = await import('../lib/bench/year-later.ts')
const { promoteOnce, runStep } = await import('../lib/cli/run-all-argv.ts')
const { formatWorkBench, plantedVariables, workBenchFigures } = await import('../lib/bench/work.ts')
const { join } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({ profile: 'quick', proxies: PROXIES.join(',') }),
  ...commonFlags({
    plant: { default: '1', more: [`N transaction variables set (${PLANT_PROXY})`] },
    'tax-ns': { default: '1500', more: ['the changed machine'] },
    runs: { default: 'planted,taxed', more: ['which of them follow the base run'] },
  }),
  ...commonFlags({ out: 'results/work-<profile>: the runs and their baselines folder' }),
})

const HELP = `Usage: npx zx bench/work.mjs [options]

Runs notebooks/run-all.mjs (native, no report) with --series work,pooling, the three main
variants and --repeats 1 as the base run (the timed article cells are each proxy's price;
the work series keeps its profile's rows), promotes it as the
baseline "work-base" into <out>/baselines (PROXYBENCH_BASELINES_DIR), then:
  planted  --series work --like work-base --pair-same from a copy of this checkout whose
           ${PLANT_PROXY} article config has the plant: then (the base's binaries and configs)
           and now counted in one run;
  taxed    the base's selection under --tax-ns N: the same binaries on a changed machine.
A finished run is reused, an interrupted one resumed. Prints the counted cells with their
intervals, the series' wall time, how far two runs' counts differ, how far the tax moves
counts and timed µs/req, and whether the plant is seen with no other cell flagged.

Options:
${flagHelp(FLAGS, { column: 18 })}`

const BASELINE = 'work-base'
const RUNS = ['planted', 'taxed']

/** @typedef {import('../lib/cli/flags.ts').FlagValues<typeof FLAGS>} Flags */

await runNotebook(async () => {
  const o = benchOptions(parseFlags(notebookArgs('work.mjs'), FLAGS, HELP, 'bench/work.mjs'))
  const env = { ...process.env, PROXYBENCH_BASELINES_DIR: join(o.out, 'baselines') }
  const started = Date.now()
  // The pooling series' three main cells, one timed window each: the price beside the work.
  const timed = ['--variants', 'article,pool-added,pool-removed', '--repeats', '1']
  /** @type {(name: string, seed: number, series: string, extra: string[], root?: string) => void} */
  const step = (name, seed, series, extra, root = repoRoot) => runStep(name, { ...o.run, series, seed, out: join(o.out, name), root, extra }, env, started)

  step('base', 1, 'work,pooling', timed)
  promoteOnce(join(o.out, 'base'), BASELINE, env)
  if (o.runs.includes('planted')) {
    const planted = join(o.out, 'plant', 'article.cfg')
    writePlanted(planted, plantedVariables(articleConfig(), o.plant))
    step('planted', 2, 'work', ['--like', BASELINE, '--pair-same'], plantedCheckout(o.out, planted))
  }
  if (o.runs.includes('taxed')) step('taxed', 3, 'work,pooling', [...timed, '--tax-ns', String(o.taxNs)])
  const finished = (/** @type {string} */ name) => (o.runs.includes(name) && readManifest(join(o.out, name))?.finished ? loadRun(join(o.out, name)) : undefined)
  const figures = workBenchFigures({ base: loadRun(join(o.out, 'base')), planted: finished('planted'), taxed: finished('taxed'), plantProxy: PLANT_PROXY })
  process.stdout.write(`\n${formatWorkBench(figures)}\n(${Math.round((Date.now() - started) / 1000)} s)\n`)
})

/**
 * The bench's settings from its flags; a bad one is one line.
 * @param {Flags} flags
 */
function benchOptions(flags) {
  const profile = flags.profile ?? 'quick'
  const runs = (flags.runs ?? RUNS.join(',')).split(',').filter(Boolean)
  for (const r of runs) if (!RUNS.includes(r)) throw userError(`--runs ${flags.runs}`, `unknown run "${r}"`, `Use any of ${RUNS.join(',')}`)
  const plant = Number(flags.plant ?? '1')
  if (!(Number.isInteger(plant) && plant >= 1 && plant <= 100))
    throw userError(`--plant ${flags.plant}`, 'not a number of variables', 'Use a whole number from 1 to 100')
  return {
    out: flags.out ?? join(repoRoot, 'results', `work-${profile}`),
    runs,
    plant,
    taxNs: parseTaxNs(flags['tax-ns'] ?? '1500', false),
    run: { profile, flags: { runtime: 'native', proxies: flags.proxies ?? PROXIES.join(',') } },
  }
}
