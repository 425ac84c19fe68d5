#!/usr/bin/env zx
// Benchmark of reliability: kill -9 a run at random moments, --resume it each time, and
// check that nothing was lost, redone, mislabelled or left behind. Logic in lib/bench/kill-resume.ts.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { parseSeries } = await import('../lib/cli/run-options.ts')
const { getProfile } = await import('../lib/catalog/profiles.ts')
const { runKillResume } = await import('../lib/bench/kill-resume.ts')

const FLAGS = flagTable({
  kills: { type: 'string', arg: 'N', help: ['default 10'] },
  ...commonFlags({
    profile: 'quick; smoke: 14 rows, over before 10 kills',
    series: { default: 'pooling', more: ['one of them: pooling, tls, ws or versions'] },
    proxies: 'haproxy',
    runtime: 'native',
  }),
  min: { type: 'string', arg: 'S', help: ['default 4'] },
  max: { type: 'string', arg: 'S', help: ['default 20'] },
  ...commonFlags({ seed: '1' }),
  ...commonFlags({ out: 'results/kill-resume-<time>' }),
})

const HELP = `Usage: npx zx bench/kill-resume.mjs [options]

Starts a run (one series notebook, --no-report), kill -9s the harness at a random moment
of each invocation (uniform between --min and --max seconds after it started, from
--seed), resumes it with --resume, N times, then lets a last --resume finish. Checks:
0 completed rows lost (every row seen before a kill is still there at the end), 0 rows
written after a kill, 0 repeats measured twice, 0 rows blaming a killed role, and 0
orphan processes, cgroups, state files, containers or key copies. Prints the table;
exits 1 when a check fails. Holds the machine's run lock through each invocation.

Options:
${flagHelp(FLAGS, { column: 21 })}`

/** @type {(name: string, v: string | undefined, d: number, min: number) => number} */
const int = (name, v, d, min) => {
  if (v === undefined) return d
  const n = Number(v)
  if (!Number.isFinite(n) || n < min) throw userError(`--${name} ${v}`, 'not a number', `Use a number of at least ${min}`)
  return n
}

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('kill-resume.mjs'), FLAGS, HELP, 'bench/kill-resume.mjs')
  const series = parseSeries(flags.series ?? 'pooling')
  if (series.length !== 1) throw userError('--series', 'one series only', 'Use one of pooling, tls, ws, versions')
  const given = flags.runtime ?? 'native'
  const runtime = /** @type {const} */ (['native', 'docker']).find((r) => r === given)
  if (!runtime) throw userError('--runtime', `unknown runtime "${given}"`, 'Use native or docker')
  const min = int('min', flags.min, 4, 0)
  const max = int('max', flags.max, 20, min)
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 13)
  const r = await runKillResume({
    profile: getProfile(flags.profile ?? 'quick').name,
    series: series[0],
    proxies: flags.proxies ?? 'haproxy',
    runtime,
    kills: int('kills', flags.kills, 10, 1),
    minS: min,
    maxS: max,
    seed: int('seed', flags.seed, 1, 0),
    out: flags.out ?? `${repoRoot}/results/kill-resume-${stamp}`,
    log: consoleLogger(),
  })
  process.stdout.write(`\n${r.table}\n`)
  return r.ok ? 0 : 1
})
