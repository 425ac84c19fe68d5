#!/usr/bin/env zx
// Benchmark: do the verdicts reproduce? The same selection N times (or N finished runs),
// every finding's and claim's verdict side by side, the flips, and each cell's spread.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { displayPath, repoRoot } = await import('../lib/core/paths.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { readManifest } = await import('../lib/data/manifest.ts')
const { loadLedger } = await import('../lib/claims/ledger.ts')
const { runAllArgv } = await import('../lib/cli/run-all-argv.ts')
const { cellSpreads, formatPrecision, formatStability, precisionByRun, verdictLines } = await import('../lib/bench/stability.ts')
const { spawnSync } = await import('node:child_process')
const { join, basename } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({
    runs: { default: '3', more: ['how many, at least 2: the same selection each time'] },
    profile: 'quick',
    series: 'pooling,tls,ws',
    proxies: 'all five',
    runtime: 'auto',
  }),
  apart: {
    type: 'string',
    arg: 'MIN',
    help: [
      'start each run at least MIN minutes after the one before started (default 0),',
      "e.g. 60 for runs an hour apart; the manifests' start times say when each began",
    ],
  },
  ...commonFlags({ out: 'results/stability-<profile>' }),
})

const HELP = `Usage: npx zx bench/stability.mjs --runs N [--profile NAME] [--series LIST] [--proxies LIST] [--apart MIN] [--out DIR]
       npx zx bench/stability.mjs DIR DIR [DIR …]

Runs notebooks/run-all.mjs N times with seeds 1..N (each run in <out>/run-<i>, no report;
a finished run is reused, an interrupted one resumed), or reads finished run directories,
then prints per finding and claim the verdict of every run, the flips between decided
verdicts (held/not held, reproduced/not reproduced; inconclusive and not measured are not
flips) and whether all runs agree counting inconclusive as a verdict; then per cell the
median of its cost metric in each run and the spread max/min-1 between runs; last, per
run and series, the cells that reached the profile's precision, the median and worst
half-width of their medians, and the unstable cells.

Options:
${flagHelp(FLAGS, { column: 20 })}`

/** @typedef {import('../lib/cli/flags.ts').FlagValues<typeof FLAGS>} Flags */

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('stability.mjs'), FLAGS, HELP, 'bench/stability.mjs', { positionals: 100 })
  const given = flags._
  if (given.length === 1) throw userError('bench/stability.mjs', 'one run directory compares with nothing', 'Pass two or more, or --runs N to make them')
  const dirs = given.length === 0 ? await measureRuns(flags) : given
  const runs = dirs.map((d) => {
    const run = loadRun(d)
    return { name: basename(d), tables: run, series: run.manifest.series }
  })
  const ledger = loadLedger()
  process.stdout.write(formatStability(runs, verdictLines(runs, ledger), cellSpreads(runs)) + '\n\n')
  process.stdout.write(formatPrecision(runs, await precisionByRun(runs)) + '\n')
})

/**
 * Makes the --runs N runs one after another (<out>/run-<i>, seed i); returns their directories.
 * @param {Flags} flags
 * @returns {Promise<string[]>}
 */
async function measureRuns(flags) {
  const n = Number(flags.runs ?? 3)
  if (!Number.isInteger(n) || n < 2) throw userError(`--runs ${flags.runs}`, 'needs an integer >= 2', 'Use e.g. --runs 3')
  const apartMin = flags.apart === undefined ? 0 : Number(flags.apart)
  if (!(Number.isFinite(apartMin) && apartMin >= 0 && apartMin <= 24 * 60))
    throw userError(`--apart ${flags.apart}`, 'not a number of minutes', 'Use minutes from 0 to 1440, e.g. --apart 60')
  const profile = flags.profile ?? 'quick'
  const out = flags.out ?? join(repoRoot, 'results', `stability-${profile}`)
  const dirs = Array.from({ length: n }, (_, i) => join(out, `run-${i + 1}`))
  for (let i = 1; i <= n; i++) await measureRun(flags, profile, apartMin, { i, n, dir: dirs[i - 1], previous: dirs[i - 2] })
  return dirs
}

/**
 * Run i of n: reused when finished, resumed when begun, else started --apart after the one before.
 * @param {Flags} flags
 * @param {string} profile
 * @param {number} apartMin
 * @param {{ i: number; n: number; dir: string; previous: string | undefined }} at
 */
async function measureRun(flags, profile, apartMin, { i, n, dir, previous }) {
  const m = readManifest(dir)
  if (m?.finished) {
    process.stdout.write(`run ${i}/${n}: ${displayPath(dir)} finished earlier, reused\n`)
    return
  }
  // Runs an hour apart see the machine's slow drift, which runs back to back cannot.
  const before = previous ? readManifest(previous)?.started : undefined
  const waitMs = before && !m ? Date.parse(before) + apartMin * 60_000 - Date.now() : 0
  if (waitMs > 0) {
    process.stdout.write(`run ${i}/${n}: waiting ${Math.ceil(waitMs / 60_000)} min (--apart ${apartMin}: run ${i - 1} started ${before})\n`)
    await new Promise((r) => setTimeout(r, waitMs))
  }
  process.stdout.write(`run ${i}/${n}: ${displayPath(dir)}${m ? ' (resumed)' : ''}\n`)
  const r = spawnSync(
    'npx',
    runAllArgv({
      profile,
      series: flags.series ?? 'pooling,tls,ws',
      seed: i,
      out: dir,
      flags: { proxies: flags.proxies, runtime: flags.runtime },
      resume: !!m,
    }),
    { stdio: 'inherit', cwd: repoRoot },
  )
  if (r.status !== 0)
    throw userError(
      displayPath(dir),
      `run-all exited ${r.status ?? r.signal}`,
      `Fix what it printed, then run this again: finished runs are reused, this one resumes`,
    )
}
