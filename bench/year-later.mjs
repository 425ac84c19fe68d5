#!/usr/bin/env zx
// Benchmark: does a year-later re-run say what changed, the proxy or the machine? A first run
// promoted as a baseline, then three runs --like it: the same binaries (A/A), a planted config
// cost on one proxy, and the whole run under a system-call tax (docs/benchmarks.md#year-later).
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { parseTaxNs } = await import('../lib/cli/run-options.ts')
const { userError } = await import('../lib/core/errors.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { readManifest } = await import('../lib/data/manifest.ts')
const { loadLedger } = await import('../lib/claims/ledger.ts')
const { verdictLines } = await import('../lib/bench/stability.ts')
const { isDecided } = await import('../lib/core/verdict.ts')
const { articleConfig, formatLikeRun, likeRunFigures, PLANT_PROXY, plantedCheckout, plantedConfig, plantSize, writePlanted } = await import(
  '../lib/bench/year-later.ts'
)
const { promoteOnce, runStep } = await import('../lib/cli/run-all-argv.ts')
const { join } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({
    profile: 'quick',
    series: 'pooling',
    proxies: 'haproxy,nginx,caddy',
    variants: 'article,pool-added: the bench stays under 25 min',
    'key-types': 'ec256',
    plant: { default: '24', more: [`N sha2(512) conversions (${PLANT_PROXY})`] },
    'tax-ns': { default: '1500', more: ['the changed machine'] },
    runs: { default: 'aa,planted,machine', more: ['which of them run --like the baseline'] },
  }),
  ...commonFlags({ out: 'results/year-later-<profile>: the baseline, the runs, their baselines folder' }),
})

const HELP = `Usage: npx zx bench/year-later.mjs [options]

Runs notebooks/run-all.mjs (native, no report) as a first run, promotes it as the baseline
"year-later" into <out>/baselines (PROXYBENCH_BASELINES_DIR), then runs --like it:
  aa       --pair-same: the same binaries paired with copies of themselves, and the planted
           config measured as a user's config (--config), paired like the article config
           it is read against: the plant's size, measured by the bench itself;
  planted  from a copy of this checkout whose ${PLANT_PROXY} article config has the plant, --pair-same;
  machine  --pair-same --tax-ns N --pair-at adjacent: the same binaries on a changed machine,
           each side in its own window, so that then alone reads the machine's change.
A finished run is reused, an interrupted one resumed. Prints per run: paired cells,
those flagged as a proxy change, the change detected at 80% power on the median cell, each
proxy's change, the machine change and how far the code-path counts moved; then the plant
against its measured size, and the claims decided both ways by the baseline and the aa run.

Options:
${flagHelp(FLAGS, { column: 18 })}`

const BASELINE = 'year-later'
const LIKE_RUNS = ['aa', 'planted', 'machine']

/** @typedef {import('../lib/cli/flags.ts').FlagValues<typeof FLAGS>} Flags */

await runNotebook(async () => {
  const o = benchOptions(parseFlags(notebookArgs('year-later.mjs'), FLAGS, HELP, 'bench/year-later.mjs'))
  const env = { ...process.env, PROXYBENCH_BASELINES_DIR: join(o.out, 'baselines') }
  const started = Date.now()
  /** @type {(name: string, seed: number, extra: string[], root?: string) => void} */
  const step = (name, seed, extra, root = repoRoot) =>
    runStep(name, { ...o.run, seed, out: join(o.out, name), root, extra: ['--variants', o.variants, ...extra] }, env, started)

  step('base', 1, [])
  // PROXYBENCH_BASELINES_DIR is <out>/baselines: the baseline is its folder <id>.
  promoteOnce(join(o.out, 'base'), BASELINE, env)
  const planted = join(o.out, 'plant', 'article.cfg')
  writePlanted(planted, plantedConfig(articleConfig(), o.plant))
  const like = ['--like', BASELINE, '--pair-same']
  // A later --variants wins: the aa run adds the planted config, run as a user's config.
  if (o.runs.includes('aa')) step('aa', 2, [...like, '--variants', `${o.variants},custom:article.cfg`, '--config', `${PLANT_PROXY}=${planted}`])
  if (o.runs.includes('planted')) step('planted', 3, like, plantedCheckout(o.out, planted))
  // Adjacent windows: then alone reads the machine against the baseline; a pair at one instant shares the core and reads none.
  if (o.runs.includes('machine')) step('machine', 4, [...like, '--tax-ns', String(o.taxNs), '--pair-at', 'adjacent'])
  printFigures(o.out, o.runs)
})

/**
 * The bench's settings from its flags; a bad one is one line.
 * @param {Flags} flags
 */
function benchOptions(flags) {
  const profile = flags.profile ?? 'quick'
  const runs = (flags.runs ?? LIKE_RUNS.join(',')).split(',').filter(Boolean)
  for (const r of runs) if (!LIKE_RUNS.includes(r)) throw userError(`--runs ${flags.runs}`, `unknown run "${r}"`, `Use any of ${LIKE_RUNS.join(',')}`)
  const plant = Number(flags.plant ?? '24')
  if (!(Number.isInteger(plant) && plant >= 1 && plant <= 1000))
    throw userError(`--plant ${flags.plant}`, 'not a number of conversions', 'Use a whole number from 1 to 1000')
  return {
    out: flags.out ?? join(repoRoot, 'results', `year-later-${profile}`),
    runs,
    plant,
    taxNs: parseTaxNs(flags['tax-ns'] ?? '1500', false),
    variants: flags.variants ?? 'article,pool-added',
    run: {
      profile,
      series: flags.series ?? 'pooling',
      flags: { runtime: 'native', proxies: flags.proxies ?? 'haproxy,nginx,caddy', 'key-types': flags['key-types'] ?? 'ec256' },
    },
  }
}

/**
 * The figures of the finished runs.
 * @param {string} out
 * @param {string[]} runs
 */
function printFigures(out, runs) {
  const base = loadRun(join(out, 'base'))
  const done = runs.filter((r) => readManifest(join(out, r))?.finished)
  for (const r of done) process.stdout.write(`\n${formatLikeRun(likeRunFigures(r, loadRun(join(out, r)), base))}\n`)
  if (done.includes('aa')) {
    const size = plantSize(loadRun(join(out, 'aa')), PLANT_PROXY, 'custom:article.cfg')
    process.stdout.write(
      `\nplant (${PLANT_PROXY} article): ${size ? `${size.value.toFixed(3)}× measured in aa (range ${size.min.toFixed(3)}-${size.max.toFixed(3)}, ${size.rounds} rounds)` : 'not measured'}\n`,
    )
    const lines = verdictLines(
      ['base', 'aa'].map((name) => {
        const run = loadRun(join(out, name))
        return { name, tables: run, series: run.manifest.series }
      }),
      loadLedger(),
    )
    const both = lines.filter((l) => isDecided(l.verdicts[0] ?? '') && isDecided(l.verdicts[1] ?? ''))
    const flips = both.filter((l) => l.verdicts[0] !== l.verdicts[1])
    process.stdout.write(
      `claims decided in both base and aa: ${both.length}; decided both ways: ${flips.length ? flips.map((l) => `${l.id} (${l.verdicts[0]} → ${l.verdicts[1]})`).join(', ') : 'none'}\n`,
    )
  }
}
