#!/usr/bin/env zx
// Benchmark: does a busy machine still give the quiet machine's verdicts? Idle, with a
// neighbour in bursts, idle again: wall time, windows disturbed / redone, cells at their
// minimum valid repeats, verdicts side by side (docs/method/disturbance.md#bench).
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { displayPath, repoRoot } = await import('../lib/core/paths.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { readManifest } = await import('../lib/data/manifest.ts')
const { loadLedger } = await import('../lib/claims/ledger.ts')
const { verdictLines, formatStability } = await import('../lib/bench/stability.ts')
const { busyRunFacts, disturbanceEffects, formatBusyMachine, verdictChanges } = await import('../lib/bench/busy-machine.ts')
const { aggregate } = await import('../lib/analysis/summary.ts')
const { documentedReuse } = await import('../lib/catalog/reuse.ts')
const { evaluateClaims } = await import('../lib/claims/evaluate.ts')
const { buildArticle } = await import('../lib/report/article.ts')
const { runFindings } = await import('../lib/report/build.ts')
const { startNeighbour, NEIGHBOUR_NAME } = await import('../lib/measure/neighbour.ts')
const { defaultCpuLayout } = await import('../lib/roles/cpus.ts')
const { cpuIds } = await import('../lib/measure/disturbance.ts')
const { spawn, spawnSync } = await import('node:child_process')
const { lockPath } = await import('../lib/run/lock.ts')
const { runAllArgv } = await import('../lib/cli/run-all-argv.ts')
const { join } = await import('node:path')
const { availableParallelism } = await import('node:os')

const FLAGS = flagTable({
  ...commonFlags({ profile: 'quick', series: 'pooling,tls', proxies: 'haproxy,nginx,caddy', runtime: 'auto' }),
  share: { type: 'string', arg: 'X', help: ["the neighbour's average busy share of its core (default 0.4)"] },
  cpu: { type: 'string', arg: 'N', help: ["the neighbour's core (default: the proxy's, from nproc)"] },
  'neighbour-max': { type: 'string', arg: 'S', help: ['the neighbour ends itself after S seconds (default 3600)'] },
  ...commonFlags({ out: 'results/busy-machine-<profile>' }),
  'finished-only': {
    type: 'boolean',
    help: [
      'run nothing: print the table over the runs in --out that finished (the neighbour run',
      'and at least one idle run), e.g. when time ran out before the last one',
    ],
  },
})

const HELP = `Usage: npx zx bench/busy-machine.mjs [options]

Runs notebooks/run-all.mjs three times (no report): idle, with a neighbour this script
starts (a python3 process named pb-neighbour, outside the harness's process tree, that
keeps one core about --share busy in bursts of 1-3 s for the whole run, stopped at the
end and bounded by --neighbour-max S whatever happens), then idle again. A finished run
is reused, an interrupted one resumed (its neighbour restarted). Prints per run the wall
time, windows disturbed / redone, time waited, the cells that reached the profile's
minimum valid repeats, then the verdicts side by side, the criteria of issue 28 checked
(>= 95% of cells at their minimum with the neighbour, and issue 43's >= 90% of the cells
every idle run brought to theirs; no decided verdict changed where the idle runs agree,
wall time <= 2x the idle run's, the neighbour named in the end summary and the report's
setup section),
and how far disturbed windows, and windows counted from their clean slices, moved from
their cell's whole valid windows, by series.

"Idle" means no neighbour of this script's: say in a lab note what else ran.

Options:
${flagHelp(FLAGS, { column: 22 })}`

const lockFree = () => spawnSync('flock', ['--nonblock', lockPath(), 'true']).status === 0
async function untilLockFree() {
  for (let said = false; !lockFree(); said = true) {
    if (!said) process.stdout.write(`another run holds ${lockPath()}: waiting for it\n`)
    await new Promise((r) => setTimeout(r, 10_000))
  }
}

/** @typedef {import('../lib/cli/flags.ts').FlagValues<typeof FLAGS>} Flags */
/** @typedef {{ cpu: number; share: number; maxS: number }} NeighbourPlan */
/** @typedef {{ name: string; neighbour: boolean }} PlannedRun */

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('busy-machine.mjs'), FLAGS, HELP, 'bench/busy-machine.mjs')
  const neighbour = neighbourPlan(flags)
  const profile = flags.profile ?? 'quick'
  const out = flags.out ?? join(repoRoot, 'results', `busy-machine-${profile}`)
  /** @type {PlannedRun[]} */
  const plan = [
    { name: 'idle-1', neighbour: false },
    { name: 'neighbour', neighbour: true },
    { name: 'idle-2', neighbour: false },
  ]
  if (!flags['finished-only']) for (const [i, r] of plan.entries()) await measureRun(flags, profile, neighbour, i, r, join(out, r.name))
  const done = plan.filter((r) => readManifest(join(out, r.name))?.finished)
  if (!done.some((r) => r.neighbour) || !done.some((r) => !r.neighbour))
    throw userError(
      displayPath(out),
      `finished: ${done.map((r) => r.name).join(', ') || 'none'}`,
      'The table needs the neighbour run and an idle one: run without --finished-only',
    )
  await printTables(done.map((r) => ({ name: r.name, neighbour: r.neighbour, data: loadRun(join(out, r.name)) })))
})

/**
 * The neighbour's core, share and lifetime from the flags, each checked.
 * @param {Flags} flags
 * @returns {NeighbourPlan}
 */
function neighbourPlan(flags) {
  const share = Number(flags.share ?? 0.4)
  if (!(share > 0 && share <= 1)) throw userError(`--share ${flags.share}`, 'not a share of a core', 'Use a number in (0, 1], e.g. 0.4')
  const cpu = flags.cpu === undefined ? cpuIds(defaultCpuLayout().proxy)[0] : Number(flags.cpu)
  if (!Number.isInteger(cpu) || cpu < 0 || cpu >= availableParallelism())
    throw userError(`--cpu ${flags.cpu}`, 'not a core of this machine', `Use 0 to ${availableParallelism() - 1}`)
  const maxS = Number(flags['neighbour-max'] ?? 3600)
  if (!(maxS > 0)) throw userError(`--neighbour-max ${flags['neighbour-max']}`, 'not a number of seconds', 'Use e.g. 3600')
  return { cpu, share, maxS }
}

/**
 * Run i of the plan: reused when finished, else run (resumed when begun) until run-all gets the lock.
 * @param {Flags} flags
 * @param {string} profile
 * @param {NeighbourPlan} neighbour
 * @param {number} i
 * @param {PlannedRun} r
 * @param {string} dir
 */
async function measureRun(flags, profile, neighbour, i, r, dir) {
  if (readManifest(dir)?.finished) {
    process.stdout.write(`run ${i + 1}/3 (${r.name}): ${displayPath(dir)} finished earlier, reused\n`)
    return
  }
  for (let attempt = 1; ; attempt++) {
    // Another run holds the machine's run lock: wait for it rather than fail (run-all would refuse).
    await untilLockFree()
    const status = await runAllOnce(flags, profile, r.neighbour ? neighbour : null, i, r, dir)
    if (status === 0) return
    // Refused for the lock (exit 2, nothing measured): another run took it first.
    if (status === 2 && !lockFree() && attempt < 100) continue
    throw userError(displayPath(dir), `run-all exited ${status}`, 'Fix what it printed, then run this again: finished runs are reused, this one resumes')
  }
}

/**
 * One attempt at run i, with the neighbour beside it when planned; run-all's exit code or signal.
 * @param {Flags} flags
 * @param {string} profile
 * @param {NeighbourPlan | null} neighbour
 * @param {number} i
 * @param {PlannedRun} r
 * @param {string} dir
 */
async function runAllOnce(flags, profile, neighbour, i, r, dir) {
  const started = readManifest(dir)
  const n = neighbour ? await startNeighbour({ cpu: neighbour.cpu, share: neighbour.share, burstS: [1, 3], maxS: neighbour.maxS }) : null
  process.stdout.write(
    `run ${i + 1}/3 (${r.name}): ${displayPath(dir)}${started ? ' (resumed)' : ''}${n && neighbour ? `; neighbour ${n.name} (pid ${n.pid}) on cpu${neighbour.cpu}, ${Math.round(neighbour.share * 100)}% in bursts of 1-3 s` : ''}\n`,
  )
  const argv = runAllArgv({
    profile,
    series: flags.series ?? 'pooling,tls',
    seed: i + 1,
    out: dir,
    flags: { proxies: flags.proxies ?? 'haproxy,nginx,caddy', runtime: flags.runtime },
    resume: Boolean(started),
  })
  // Asynchronous, so that the neighbour's stop also runs when this script is interrupted.
  const status = await new Promise((resolve) => spawn('npx', argv, { stdio: 'inherit', cwd: repoRoot }).on('exit', (code, signal) => resolve(code ?? signal)))
  if (n) await n.stop()
  return status
}

/**
 * The verdicts side by side, then the busy-machine table over the finished runs.
 * @param {{ name: string; neighbour: boolean; data: ReturnType<typeof loadRun> }[]} runs
 */
async function printTables(runs) {
  const busyAt = runs.findIndex((r) => r.neighbour)
  const idleAt = runs.flatMap((r, i) => (r.neighbour ? [] : [i]))
  const ledger = loadLedger()
  const stability = runs.map((r) => ({ name: r.name, tables: r.data, series: r.data.manifest.series }))
  const lines = verdictLines(stability, ledger)
  const busy = runs[busyAt].data
  const { markdown } = await buildArticle({
    run: busy,
    aggregates: await aggregate(busy),
    findings: runFindings(busy),
    claims: evaluateClaims(ledger, busy),
    openSeries: [],
    documentedReuse,
  })
  const setup = markdown.slice(markdown.indexOf('## Setup and fairness'), markdown.indexOf('\n## ', markdown.indexOf('## Setup and fairness') + 3))
  process.stdout.write(formatStability(stability, lines, []).split('\n\n')[0] + '\n\n')
  process.stdout.write(
    formatBusyMachine(
      runs.map((r) => busyRunFacts(r.name, r.data)),
      {
        idle: idleAt,
        busy: busyAt,
        neighbour: NEIGHBOUR_NAME,
        changes: verdictChanges(lines, idleAt, busyAt),
        effects: disturbanceEffects(busy),
        neighbourInReport: setup.includes(NEIGHBOUR_NAME.replace(/-/g, '\\-')) || setup.includes(NEIGHBOUR_NAME),
      },
    ) + '\n',
  )
}
