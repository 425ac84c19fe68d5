#!/usr/bin/env zx
// Benchmark: does a busy machine still give the quiet machine's verdicts? One run whose rounds
// alternate, a neighbour in bursts on in one round of each pair: cells at their minimum, wall
// time per series, busy/idle per cell from the pairs, verdicts side by side
// (docs/method/disturbance.md#bench).
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { displayPath, repoRoot } = await import('../lib/core/paths.ts')
const { writeFileDurable } = await import('../lib/core/atomic.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { readManifest } = await import('../lib/data/manifest.ts')
const { getProfile } = await import('../lib/catalog/profiles.ts')
const { loadLedger } = await import('../lib/claims/ledger.ts')
const { verdictLines, formatStability } = await import('../lib/bench/stability.ts')
const { busyIdleRatios, busyRounds, disturbanceEffects, formatBusyMachine, roundFollower, sideFacts, splitByRound, verdictChanges, wallByPhase } = await import(
  '../lib/bench/busy-machine.ts'
)
const { aggregate } = await import('../lib/analysis/summary.ts')
const { documentedReuse } = await import('../lib/catalog/reuse.ts')
const { evaluateClaims } = await import('../lib/claims/evaluate.ts')
const { buildArticle } = await import('../lib/report/article.ts')
const { runFindings } = await import('../lib/report/build.ts')
const { startNeighbour, NEIGHBOUR_NAME } = await import('../lib/measure/neighbour.ts')
const { defaultCpuLayout } = await import('../lib/roles/cpus.ts')
const { cpuIds } = await import('../lib/measure/disturbance.ts')
const { spawn, spawnSync } = await import('node:child_process')
const { existsSync, readFileSync } = await import('node:fs')
const { createInterface } = await import('node:readline')
const { lockPath } = await import('../lib/run/lock.ts')
const { runAllArgv } = await import('../lib/cli/run-all-argv.ts')
const { join } = await import('node:path')
const { availableParallelism } = await import('node:os')

const FLAGS = flagTable({
  ...commonFlags({
    profile: 'quick',
    series: 'pooling,tls,h2,ws',
    proxies: 'haproxy,nginx,caddy',
    runtime: 'auto',
    seed: { default: '1', more: ['which round of each pair is busy, and the run order'] },
  }),
  share: { type: 'string', arg: 'X', help: ["the neighbour's average busy share of its core (default 0.4)"] },
  cpu: { type: 'string', arg: 'N', help: ["the neighbour's core (default: the proxy's, from nproc)"] },
  'neighbour-max': { type: 'string', arg: 'S', help: ['the neighbour ends itself after S seconds (default 3600)'] },
  ...commonFlags({ out: 'results/busy-machine-<profile>' }),
  'netns-hosts': {
    type: 'boolean',
    help: [
      'run with --hosts on three Docker hosts of this machine (network namespaces, the multi-host',
      "test's: root, iproute2, dockerd, sshd), the neighbour on the proxy's host",
    ],
  },
  'finished-only': {
    type: 'boolean',
    help: [
      'run nothing: print the table over the finished run in --out (<out>/run and',
      "<out>/rounds.jsonl), e.g. after a fix of this script, or over a lab note's copy",
    ],
  },
})

const HELP = `Usage: npx zx bench/busy-machine.mjs [options]

Runs notebooks/run-all.mjs once (no report) with twice the profile's rounds. The rounds go in
pairs (1-2, 3-4, ...); in one round of each pair, drawn from --seed, a neighbour this script
starts keeps the proxy's core (or --cpu) about --share busy in bursts of 1-3 s: a python3
process named pb-neighbour, outside the harness's process tree, started when such a round's
first window begins and stopped when the next idle round's does, bounded by --neighbour-max S
whatever happens. A window redone past the planned rounds runs beside the neighbour too. The
script follows the run's progress lines and records each task's start in <out>/rounds.jsonl. A
finished run is reused, an interrupted one resumed.

Prints, for the idle and the busy rounds: windows disturbed / redone, time waited, the cells
with their minimum (the profile's rounds) of valid windows; the wall time per series; the
verdicts side by side; issue 54's criteria checked (>= 90% of the cells the idle rounds
brought to their minimum reach it in the busy rounds; busy/idle on the median cell, from the
pairs of rounds, within 5%; no decided verdict differs; busy wall time <= 2x the idle's for
every series; the neighbour named in the end summary and the report's setup section); and how
far the busy rounds' disturbed windows, and those counted from their clean slices, moved from
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
/** @typedef {{ planned: number; seed: number; isBusy: (repeat: number) => boolean; dir: string; switches: string }} RoundPlan */

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('busy-machine.mjs'), FLAGS, HELP, 'bench/busy-machine.mjs')
  const neighbour = neighbourPlan(flags)
  const profile = flags.profile ?? 'quick'
  const out = flags.out ?? join(repoRoot, 'results', `busy-machine-${profile}`)
  const planned = 2 * getProfile(profile).repeats
  const seed = Number(flags.seed ?? 1)
  if (!Number.isInteger(seed)) throw userError(`--seed ${flags.seed}`, 'not a whole number', 'Use e.g. 1')
  /** @type {RoundPlan} */
  const rounds = { planned, seed, isBusy: busyRounds(planned, seed), dir: join(out, 'run'), switches: join(out, 'rounds.jsonl') }
  if (!flags['finished-only']) await withHosts(flags['netns-hosts'] === true, (hosts) => measureRun(flags, profile, neighbour, rounds, hosts))
  if (!readManifest(rounds.dir)?.finished)
    throw userError(displayPath(rounds.dir), 'the run has not finished', 'Run without --finished-only: it resumes where it stopped')
  await printTables(loadRun(rounds.dir), rounds)
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
 * The run: reused when finished, else run (resumed when begun) until run-all gets the lock.
 * @param {Flags} flags
 * @param {string} profile
 * @param {NeighbourPlan} neighbour
 * @param {RoundPlan} rounds
 * @param {string | null} hosts the --hosts value, or null: one machine
 */
async function measureRun(flags, profile, neighbour, rounds, hosts) {
  if (readManifest(rounds.dir)?.finished) {
    process.stdout.write(`${displayPath(rounds.dir)} finished earlier, reused\n`)
    return
  }
  for (let attempt = 1; ; attempt++) {
    // Another run holds the machine's run lock: wait for it rather than fail (run-all would refuse).
    await untilLockFree()
    const status = await runAllOnce(flags, profile, neighbour, rounds, hosts)
    if (status === 0) return
    // Refused for the lock (exit 2, nothing measured): another run took it first.
    if (status === 2 && !lockFree() && attempt < 100) continue
    throw userError(displayPath(rounds.dir), `run-all exited ${status}`, 'Fix what it printed, then run this again: a finished run is reused, this one resumes')
  }
}

/**
 * One attempt at the run, following its progress lines (stderr, passed on): each task's start
 * is recorded, and the neighbour runs while the task's round is a busy one. Run-all's exit code or signal.
 * @param {Flags} flags
 * @param {string} profile
 * @param {NeighbourPlan} neighbour
 * @param {RoundPlan} rounds
 * @param {string | null} hosts
 */
async function runAllOnce(flags, profile, neighbour, rounds, hosts) {
  const started = readManifest(rounds.dir)
  process.stdout.write(
    `${displayPath(rounds.dir)}${started ? ' (resumed)' : ''}: ${rounds.planned} rounds, the neighbour on cpu${neighbour.cpu} at ${Math.round(neighbour.share * 100)}% in bursts of 1-3 s in one of each pair\n`,
  )
  const argv = runAllArgv({
    profile,
    series: flags.series ?? 'pooling,tls,h2,ws',
    seed: rounds.seed,
    out: rounds.dir,
    flags: {
      proxies: flags.proxies ?? 'haproxy,nginx,caddy',
      runtime: hosts ? 'docker' : flags.runtime,
      repeats: String(rounds.planned),
      ...(hosts ? { hosts } : {}),
    },
    resume: Boolean(started),
  })
  /** @type {Awaited<ReturnType<typeof startNeighbour>> | null} */
  let n = null
  const follower = roundFollower(rounds.isBusy, {
    record: (s) => writeFileDurable(rounds.switches, `${JSON.stringify(s)}\n`, 'a'),
    neighbour: async (on) => {
      if (on && !n) n = await startNeighbour({ cpu: neighbour.cpu, share: neighbour.share, burstS: [1, 3], maxS: neighbour.maxS })
      if (!on && n) await n.stop().then(() => (n = null))
    },
  })
  const child = spawn('npx', argv, { stdio: ['inherit', 'inherit', 'pipe'], cwd: repoRoot })
  createInterface({ input: child.stderr }).on('line', (line) => {
    process.stderr.write(`${line}\n`)
    follower.line(line)
  })
  // Asynchronous, so that the neighbour's stop also runs when this script is interrupted.
  // 'close': after the last progress line was read.
  const status = await new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)))
  await follower.end()
  return status
}

/**
 * Runs `f` on one machine (hosts null), or with the multi-host test's three namespaced hosts
 * built for it and torn down after, also on failure.
 * @param {boolean} netns
 * @param {(hosts: string | null) => Promise<void>} f
 */
async function withHosts(netns, f) {
  if (!netns) return f(null)
  const { netnsUnavailable, startNetnsEngines } = await import('../test/integration/support/netns-engines.ts')
  const why = await netnsUnavailable()
  if (why)
    throw userError(
      '--netns-hosts',
      `cannot build the hosts: ${why}`,
      'Run it as root on a machine with iproute2, dockerd, sshd and openssl (.ci/run installs them)',
    )
  const engines = await startNetnsEngines()
  try {
    await f(engines.hostsFlag())
  } finally {
    const forced = await engines.teardown()
    if (forced.length) process.stderr.write(`teardown had to force: ${forced.join('; ')}\n`)
  }
}

/**
 * The task starts recorded so far.
 * @param {string} file
 * @returns {import('../lib/bench/busy-machine.ts').RoundSwitch[]}
 */
function readSwitches(file) {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

/**
 * The verdicts of the idle and the busy rounds side by side, then the busy-machine table.
 * @param {ReturnType<typeof loadRun>} run
 * @param {RoundPlan} rounds
 */
async function printTables(run, rounds) {
  const { idle, busy } = splitByRound(run, rounds.isBusy)
  const ledger = loadLedger()
  const stability = [
    { name: 'idle', tables: idle, series: run.manifest.series },
    { name: 'busy', tables: busy, series: run.manifest.series },
  ]
  const lines = verdictLines(stability, ledger)
  const { markdown } = await buildArticle({
    run,
    aggregates: await aggregate(run),
    findings: runFindings(run),
    claims: evaluateClaims(ledger, run),
    openSeries: [],
    documentedReuse,
  })
  const at = markdown.indexOf('## Setup and fairness')
  const setup = markdown.slice(at, markdown.indexOf('\n## ', at + 3))
  const min = rounds.planned / 2
  process.stdout.write(`${formatStability(stability, lines, []).split('\n\n')[0]}\n\n`)
  process.stdout.write(
    `${formatBusyMachine({
      idle: sideFacts('idle', idle, min),
      busy: sideFacts('busy', busy, min),
      walls: wallByPhase(readSwitches(rounds.switches), rounds.isBusy, Date.parse(run.manifest.finished ?? '')),
      ratios: busyIdleRatios(run, rounds.planned, rounds.isBusy),
      changes: verdictChanges(lines),
      effects: disturbanceEffects(busy),
      neighbour: NEIGHBOUR_NAME,
      neighbourInReport: setup.includes(NEIGHBOUR_NAME.replace(/-/g, '\\-')) || setup.includes(NEIGHBOUR_NAME),
    })}\n`,
  )
}
