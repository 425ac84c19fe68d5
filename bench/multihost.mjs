#!/usr/bin/env zx
// Benchmark: the same series on one host and on three Docker hosts (network namespaces
// of this machine, test/integration/support/netns-engines.ts), as run-all runs them.
// Prints ratios, not a test. The comparison is lib/bench/multihost.ts.
import '../notebooks/_ts.mjs'
import { spawn } from 'node:child_process'
import { join } from 'node:path'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { writeFileAtomic } = await import('../lib/core/atomic.ts')
const { repoRoot } = await import('../lib/core/paths.ts')
const { MEASUREMENTS, readTable } = await import('../lib/data/tables.ts')
const { formatHostsComparison } = await import('../lib/bench/multihost.ts')
const { netnsUnavailable, startNetnsEngines } = await import('../test/integration/support/netns-engines.ts')

const FLAGS = flagTable({
  ...commonFlags({ profile: 'quick', series: 'pooling', proxies: 'haproxy,nginx; F3 needs two', variants: "the series' own" }),
  ...commonFlags({ out: 'results/multihost-<time>' }),
})

const HELP = `Usage: npx zx bench/multihost.mjs [options]   (root)

Builds three Docker hosts on this machine (each a network namespace with its own dockerd:
the proxy's reached over SSH, the backend's over TCP with TLS, the generator's on a unix
socket, joined by veth pairs on 10.203.77.0/24), then runs the same series twice with
run-all --no-report: every role on this machine's engine (one host), and each role on its
own host (--hosts). Prints per cell the proxy CPU µs/req of both and their ratio, the
generator's CPU share, the wall time of each run and F3's pool-removed spread of each;
writes <out>/comparison.txt. Tears the hosts down, also on failure.

Options:
${flagHelp(FLAGS, { column: 21 })}`

/**
 * run-all with its output on this terminal; resolves to the seconds it took.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
function runAll(args) {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['zx', join(repoRoot, 'notebooks/run-all.mjs'), ...args], { stdio: ['ignore', 'inherit', 'inherit'], cwd: repoRoot })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve((Date.now() - started) / 1000) : reject(new Error(`run-all ${args.join(' ')} exited with ${code}`))))
  })
}

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('multihost.mjs'), FLAGS, HELP, 'bench/multihost.mjs')
  const why = await netnsUnavailable()
  if (why)
    throw userError(
      'bench/multihost.mjs',
      `cannot build the three hosts: ${why}`,
      'Run it as root on a machine with iproute2, dockerd, sshd and openssl (.ci/run installs them)',
    )
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 13)
  const out = flags.out ?? `${repoRoot}/results/multihost-${stamp}`
  const common = [
    '--profile',
    flags.profile ?? 'quick',
    '--series',
    flags.series ?? 'pooling',
    '--proxies',
    flags.proxies ?? 'haproxy,nginx',
    '--runtime',
    'docker',
    '--no-report',
    ...(flags.variants ? ['--variants', flags.variants] : []),
  ]
  const engines = await startNetnsEngines()
  try {
    process.stderr.write(`== one host (this machine's engine)\n`)
    const one = await runAll([...common, '--out', join(out, 'one-host')])
    process.stderr.write(`== three hosts: ${engines.hostsFlag()}\n`)
    const many = await runAll([...common, '--hosts', engines.hostsFlag(), '--out', join(out, 'three-hosts')])
    const text = formatHostsComparison(readTable(join(out, 'one-host'), MEASUREMENTS), readTable(join(out, 'three-hosts'), MEASUREMENTS), { one, many })
    writeFileAtomic(join(out, 'comparison.txt'), text + '\n')
    process.stdout.write(`\n${text}\n\nruns: ${out}/one-host, ${out}/three-hosts\n`)
  } finally {
    const forced = await engines.teardown()
    if (forced.length) process.stderr.write(`teardown had to force: ${forced.join('; ')}\n`)
  }
  return 0
})
