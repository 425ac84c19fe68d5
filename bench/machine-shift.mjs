#!/usr/bin/env zx
// Benchmark: does a calibrated figure survive a change of the machine? The same selection
// twice in one run, interleaved series by series, as is and under a system-call tax on every
// role and on the calibration; then how far each unit and count moved (docs/benchmarks.md#machine-shift).
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { parseSeries, parseTaxNs } = await import('../lib/cli/run-options.ts')
const { userError } = await import('../lib/core/errors.ts')
const { displayPath, repoRoot } = await import('../lib/core/paths.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { readManifest } = await import('../lib/data/manifest.ts')
const { loadLedger } = await import('../lib/claims/ledger.ts')
const { formatMachineShift, machineShift } = await import('../lib/bench/machine-shift.ts')
const { lockPath } = await import('../lib/run/lock.ts')
const { spawnSync } = await import('node:child_process')
const { join, basename } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({ profile: 'quick' }),
  series: { type: 'string', arg: 'LIST', help: ['passed to run-all one series at a time (default pooling,tls)'] },
  'tax-ns': { type: 'string', arg: 'N', help: ['the tax per system call (default 2000)'] },
  ...commonFlags({ proxies: 'all five' }),
  runtime: { type: 'string', arg: 'KIND', help: ['passed to run-all (default auto)'] },
  reference: { type: 'string', arg: 'KIND', help: ['passed to run-all (default rtt; none to measure without it)'] },
  seed: { type: 'string', arg: 'N', help: ['the order seed of both halves (default 1)'] },
  ...commonFlags({ out: 'results/machine-shift-<profile>: both halves' }),
  'include-disturbed': {
    type: 'boolean',
    help: ['compare the windows made invalid only as disturbed (foreign CPU, steal)', 'too, and say so: on a busy machine they may be all there is'],
  },
})

const HELP = `Usage: npx zx bench/machine-shift.mjs [--profile NAME] [--series LIST] [--tax-ns N] [--proxies LIST] [--out DIR]
       npx zx bench/machine-shift.mjs DIR DIR

Measures the selection twice, interleaved: for each series in turn, one half as is
(<out>/as-is) and one half with every system call of every role and of the calibration
made about N ns dearer (<out>/taxed; a seccomp filter installed by stacks/syscall-tax
before exec, its cost measured on the proxy's core), the order of the two halves
alternating from series to series (AB, BA, …). Both halves run with --reference rtt and
one seed. A finished half is reused, an interrupted one resumed; while another run holds
the machine's run lock the bench waits for it.
Given two run directories (e.g. two runs minutes apart), it only compares them.

Prints, second / first per cell: the raw ratio (median over cells, 10th-90th percentile,
the median cell's), the same in the direct row's unit, the run calibration's round trip,
the calibrated unit (column proxy_cpu_calibrated; "not recorded" where absent) and the
same-instant reference (column proxy_cpu_per_reference), the share of cells within ±15%
and ±10%; the counts' movement (backend connections, and system calls and context
switches per request where recorded); and whether any verdict decided in both halves differs.

Options:
${flagHelp(FLAGS, { column: 20 })}`

const LOCK_TAKEN = /is measuring on this machine/

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('machine-shift.mjs'), FLAGS, HELP, 'bench/machine-shift.mjs', { positionals: 2 })
  let dirs = flags._
  if (dirs.length === 1) throw userError('bench/machine-shift.mjs', 'one run directory compares with nothing', 'Pass two, or none to measure both halves')
  if (dirs.length === 0) {
    const profile = flags.profile ?? 'quick'
    const series = parseSeries(flags.series ?? 'pooling,tls')
    const taxNs = parseTaxNs(flags['tax-ns'] ?? '2000', false)
    const out = flags.out ?? join(repoRoot, 'results', `machine-shift-${profile}`)
    const halves = [
      { name: 'as-is', dir: join(out, 'as-is'), extra: [] },
      { name: 'taxed', dir: join(out, 'taxed'), extra: ['--tax-ns', String(taxNs)] },
    ]
    dirs = halves.map((h) => h.dir)
    const started = Date.now()
    for (const [i, s] of series.entries()) {
      for (const h of i % 2 === 0 ? halves : [...halves].reverse()) {
        const m = readManifest(h.dir)
        if (m?.steps[s] === 'done') {
          process.stdout.write(`${s} ${h.name}: done earlier, reused\n`)
          continue
        }
        const argv = [
          'zx',
          join(repoRoot, 'notebooks/run-all.mjs'),
          '--profile',
          profile,
          '--series',
          s,
          '--seed',
          flags.seed ?? '1',
          '--out',
          h.dir,
          '--no-report',
          '--reference',
          flags.reference ?? 'rtt',
          ...h.extra,
        ]
        if (flags.proxies) argv.push('--proxies', flags.proxies)
        if (flags.runtime) argv.push('--runtime', flags.runtime)
        if (m) argv.push('--resume')
        for (let waited = 0; ; waited++) {
          process.stdout.write(`${s} ${h.name}: ${displayPath(h.dir)}${m ? ' (resumed)' : ''} · ${Math.round((Date.now() - started) / 1000)} s elapsed\n`)
          const r = spawnSync('npx', argv, { stdio: ['inherit', 'inherit', 'pipe'], cwd: repoRoot, encoding: 'utf8' })
          process.stderr.write(r.stderr ?? '')
          if (r.status === 0) break
          if (r.status === 2 && LOCK_TAKEN.test(r.stderr ?? '')) {
            process.stdout.write(`another run holds the machine's run lock: waiting for it (${waited + 1})\n`)
            // Blocks until the lock is free, then lets it go at once: run-all takes it next.
            spawnSync('flock', [lockPath(), 'true'], { stdio: 'ignore' })
            continue
          }
          throw userError(
            displayPath(h.dir),
            `run-all exited ${r.status ?? r.signal}`,
            'Fix what it printed, then run this again: finished halves are reused, this one resumes',
          )
        }
      }
    }
  }
  const runs = dirs.map((d) => {
    const run = loadRun(d)
    return { name: basename(d), tables: run, series: run.manifest.series }
  })
  const names = /** @type {[string, string]} */ ([runs[0].name, runs[1].name])
  process.stdout.write(
    formatMachineShift(names, machineShift(runs[0], runs[1], loadLedger(), { disturbed: !!flags['include-disturbed'] }), runs[1].tables.manifest.syscall_tax) +
      '\n',
  )
})
