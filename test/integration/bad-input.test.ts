import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { after, test } from 'node:test'
import { certsDir, repoRoot } from '../../lib/core/paths.ts'
import { runNotebook } from '../../lib/cli/notebook.ts'
import { parseRunFlags, RUN_FLAGS_HELP } from '../../lib/cli/run-notebook.ts'

/*
 * The malformed-input corpus: real notebooks, run as a user runs them, on inputs that
 * must be refused before anything is set up. Each must exit non-zero before it could set anything up,
 * print exactly one line on stderr that names the input and the fix, no stack trace, and
 * change no file (inputs, their folders, baselines/ and certs/ compared by mtime + size).
 *
 * run-all's run flags are checked in this process, through the notebook's own wrapper
 * (runNotebook) around the stage runFromFlags passes before it measures (parseRunFlags,
 * lib/cli/run-notebook.ts): the same line on stderr, the same exit code, no zx start per
 * case. Every other case, one of each stage of run-all's checks (`spawn`), and an unknown
 * flag for every notebook run as a user runs them: the notebooks' wiring.
 *
 * Not here: stack.yaml and templates (no flag or variable points a notebook at another
 * stacks/ dir; test/catalog/ covers their errors), claims.yaml / figures.yaml (likewise;
 * test/claims/ledger-files.test.ts loads broken copies through loadLedger(dir)), and a
 * custom config the proxy's checker rejects (by design a `failed` row and the run goes
 * on, docs/catalog.md#your-own-config).
 */

const T = mkdtempSync(join(tmpdir(), 'pb-bad-input-'))
const fixture = join(repoRoot, 'test/fixtures/run-quick')
after(() => rmSync(T, { recursive: true, force: true }))

/** A copy of the fixture run, with one file changed. */
function run(name: string, change: (dir: string) => void = () => {}): string {
  const dir = join(T, name)
  cpSync(fixture, dir, { recursive: true })
  change(dir)
  return dir
}
const editCsv = (dir: string, file: string, f: (lines: string[]) => void) => {
  const lines = readFileSync(join(dir, file), 'utf8').split('\n')
  f(lines)
  writeFileSync(join(dir, file), lines.join('\n'))
}
/** Line i (0 = the header) of a CSV with one column's value replaced: the fixture's own values, whatever they are. */
const setColumn = (lines: string[], i: number, column: string, value: string) => {
  const at = lines[0]!.split(',').indexOf(column)
  const cells = lines[i]!.split(',')
  // The columns up to this one hold no quoted field (a reason with a comma comes later).
  assert.ok(at >= 0 && !cells.slice(0, at + 1).some((c) => c.includes('"')), `${column} of line ${i + 1}`)
  cells[at] = value
  lines[i] = cells.join(',')
}
const file = (name: string, text: string) => {
  writeFileSync(join(T, name), text)
  return join(T, name)
}
const dir = (name: string) => {
  mkdirSync(join(T, name), { recursive: true })
  return join(T, name)
}

// A baseline with a broken CSV must live in baselines/runs/ (the only place --baseline reads):
// made for this test only, removed after.
const brokenBaselineId = `zz-bad-input-${process.pid}`
const brokenBaseline = join(repoRoot, 'baselines', 'runs', brokenBaselineId)
cpSync(fixture, brokenBaseline, { recursive: true })
editCsv(brokenBaseline, 'measurements.csv', (l) => setColumn(l, 2, 'status', 'splendid'))
after(() => rmSync(brokenBaseline, { recursive: true, force: true }))

const goodRun = run('good-run')
const aFile = file('a-file.txt', 'not a directory\n')
const unknownVar = file('unknown-var.cfg', 'frontend f\n  bind 127.0.0.1:{{listen_prot}}\n')
const certsCopy = dir('certs-copy')
cpSync(certsDir, certsCopy, { recursive: true, filter: (p) => !p.split('/').pop()!.startsWith('.') })
writeFileSync(join(certsCopy, 'certs.json'), '{"created": ')
// A finished run's CSVs as a new user breaks them: a header and no rows; a line pasted twice (same cell, same repeat).
const headerOnly = run('header-only', (d) => editCsv(d, 'measurements.csv', (l) => l.splice(1)))
const pasted = run('pasted', (d) => editCsv(d, 'measurements.csv', (l) => l.splice(l.length - 1, 0, l[3]!)))
const pastedLine = readFileSync(join(pasted, 'measurements.csv'), 'utf8').split('\n').length - 1
// A built site to publish (publish checks for index.html, keys and absolute links first).
const builtSite = dir('built-site')
writeFileSync(join(builtSite, 'index.html'), '<!doctype html><title>runs</title>\n')

interface Case {
  what: string
  argv: string[]
  /** Text the error line must contain: the input at fault. */
  names: string
  todo?: string
  /** A run-all case run as a user runs it (the others of run-all are checked in this process). */
  spawn?: true
}

const NOTEBOOKS = readdirSync(join(repoRoot, 'notebooks')).filter((f) => f.endsWith('.mjs') && !f.startsWith('_'))
const out = (name: string) => ['--out', join(T, `out-${name}`)]
const RUN = (...a: string[]) => ['notebooks/run-all.mjs', ...a, ...out(a.join('_').replace(/[^\w]/g, '').slice(0, 40) || 'x'), '--site', join(T, 'site')]

const CASES: Case[] = [
  ...NOTEBOOKS.map((n) => ({ what: `${n} unknown flag`, argv: [`notebooks/${n}`, '--bogus-flag'], names: '--bogus-flag', spawn: true as const })),
  { what: 'profile unknown', argv: RUN('--profile', 'turbo'), names: 'turbo', spawn: true },
  { what: 'series unknown', argv: RUN('--series', 'pooling,bogus'), names: 'bogus' },
  { what: 'series empty', argv: RUN('--series', ','), names: '--series' },
  { what: 'proxies unknown', argv: RUN('--proxies', 'nginx,apache'), names: 'apache' },
  { what: 'proxies empty', argv: RUN('--proxies', ''), names: '--proxies' },
  { what: 'runtime unknown', argv: RUN('--runtime', 'podman'), names: 'podman' },
  { what: 'images unknown', argv: RUN('--images', 'latest'), names: 'latest' },
  { what: 'network unknown', argv: RUN('--network', 'overlay'), names: 'overlay' },
  { what: 'network bridge on native', argv: RUN('--network', 'bridge', '--runtime', 'native'), names: '--network' },
  { what: 'cpus unknown role', argv: RUN('--cpus', 'proxy=1 database=0'), names: 'database' },
  { what: 'cpus not a cpu', argv: RUN('--cpus', 'proxy=99'), names: '99' },
  { what: 'cpus garbage', argv: RUN('--cpus', 'lots'), names: 'lots' },
  { what: 'seed not a number', argv: RUN('--seed', 'abc'), names: 'abc' },
  { what: 'seed negative', argv: RUN('--seed=-1'), names: '-1' },
  { what: 'seed value read as a flag', argv: RUN('--seed', '-1'), names: '--seed=-1' },
  { what: 'seed fractional', argv: RUN('--seed', '1.5'), names: '1.5' },
  { what: 'site is a file (run-all)', argv: ['notebooks/run-all.mjs', '--site', aFile, ...out('site')], names: 'a-file.txt' },
  { what: 'out is a file', argv: ['notebooks/run-all.mjs', '--out', aFile], names: 'a-file.txt', spawn: true },
  { what: 'config is a directory', argv: RUN('--config', `haproxy=${T}`), names: T },
  { what: 'config missing', argv: RUN('--config', `haproxy=${join(T, 'nope.cfg')}`), names: 'nope.cfg' },
  { what: 'config without PROXY=', argv: RUN('--config', aFile), names: 'a-file.txt' },
  { what: 'config unknown proxy', argv: RUN('--config', `apache=${aFile}`), names: 'apache' },
  { what: 'config unknown template variable', argv: RUN('--config', `haproxy=${unknownVar}`), names: 'listen_prot' },
  { what: 'config bridge without listen_host', argv: RUN('--runtime', 'docker', '--network', 'bridge', '--config', `haproxy=${aFile}`), names: 'a-file.txt' },
  { what: 'baseline unknown (run-all)', argv: RUN('--baseline', 'no-such-baseline'), names: 'no-such-baseline', spawn: true },
  { what: 'resume of nothing', argv: RUN('--resume'), names: 'out' },
  { what: '03-pooling --series', argv: ['notebooks/03-pooling.mjs', '--series', 'tls', ...out('p')], names: '--series' },
  { what: 'capacity slo without unit', argv: ['notebooks/capacity.mjs', '--slo', 'p99<10', ...out('c1')], names: 'p99<10' },
  { what: 'capacity slo lower bound', argv: ['notebooks/capacity.mjs', '--slo', 'p99>10ms', ...out('c2')], names: 'p99>10ms' },
  { what: 'capacity budget too short', argv: ['notebooks/capacity.mjs', '--budget', '5', ...out('c3')], names: '--budget 5' },
  { what: 'capacity variant unknown', argv: ['notebooks/capacity.mjs', '--variant', 'bogus', ...out('c4')], names: 'bogus' },
  { what: 'slo without the capacity series', argv: RUN('--series', 'pooling', '--slo', 'p99<10ms'), names: '--slo' },
  { what: 'positional argument', argv: ['notebooks/run-all.mjs', 'quick'], names: 'quick', spawn: true },
  { what: '00-setup proxies unknown', argv: ['notebooks/00-setup.mjs', '--check', '--proxies', 'apache'], names: 'apache' },
  { what: '02-stacks images unknown', argv: ['notebooks/02-stacks.mjs', '--images', 'latest'], names: 'latest' },
  { what: '02-stacks proxies unknown', argv: ['notebooks/02-stacks.mjs', '--proxies', 'apache'], names: 'apache' },
  { what: '01-certs dir is a file', argv: ['notebooks/01-certs.mjs', '--dir', aFile], names: 'a-file.txt' },
  { what: 'certs.json corrupt (a copy)', argv: ['notebooks/01-certs.mjs', '--dir', certsCopy], names: 'certs.json' },
  { what: 'aggregate without --run', argv: ['notebooks/12-aggregate.mjs'], names: '--run' },
  { what: 'aggregate --run missing', argv: ['notebooks/12-aggregate.mjs', '--run', join(T, 'no-such-run')], names: 'no-such-run' },
  { what: 'aggregate --run is a file', argv: ['notebooks/12-aggregate.mjs', '--run', aFile], names: 'a-file.txt' },
  { what: 'aggregate --run empty dir', argv: ['notebooks/12-aggregate.mjs', '--run', dir('empty-run')], names: 'empty-run' },
  {
    what: 'csv wrong header',
    argv: [
      'notebooks/12-aggregate.mjs',
      '--run',
      run('wrong-header', (d) => editCsv(d, 'measurements.csv', (l) => (l[0] = l[0]!.replace('proxy_cpu_us_per_req', 'cpu')))),
    ],
    names: 'measurements.csv',
  },
  {
    what: 'csv not a number',
    argv: ['notebooks/12-aggregate.mjs', '--run', run('nan', (d) => editCsv(d, 'measurements.csv', (l) => setColumn(l, 1, 'rps', 'fast')))],
    names: 'measurements.csv:2',
  },
  {
    what: 'csv bad status',
    argv: ['notebooks/12-aggregate.mjs', '--run', run('status', (d) => editCsv(d, 'measurements.csv', (l) => setColumn(l, 3, 'status', 'splendid')))],
    names: 'measurements.csv:4',
  },
  {
    what: 'csv short row',
    argv: ['notebooks/12-aggregate.mjs', '--run', run('short', (d) => editCsv(d, 'measurements.csv', (l) => (l[2] = l[2]!.split(',').slice(0, 5).join(','))))],
    names: 'measurements.csv:3',
  },
  {
    what: 'handshakes.csv not a number',
    argv: ['notebooks/12-aggregate.mjs', '--run', run('hs', (d) => editCsv(d, 'handshakes.csv', (l) => (l[1] = l[1]!.replace(/,(\d+),/, ',many,'))))],
    names: 'handshakes.csv:2',
  },
  {
    what: 'manifest bad JSON',
    argv: ['notebooks/12-aggregate.mjs', '--run', run('badjson', (d) => writeFileSync(join(d, 'manifest.json'), '{"run_id": "q1",'))],
    names: 'manifest.json',
  },
  {
    what: 'manifest schema_version',
    argv: [
      'notebooks/12-aggregate.mjs',
      '--run',
      run('schema', (d) =>
        writeFileSync(join(d, 'manifest.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(fixture, 'manifest.json'), 'utf8')), schema_version: 99 })),
      ),
    ],
    names: 'manifest.json',
  },
  {
    what: 'manifest not an object',
    argv: ['notebooks/12-aggregate.mjs', '--run', run('array', (d) => writeFileSync(join(d, 'manifest.json'), '[]'))],
    names: 'manifest.json',
  },
  {
    what: 'report csv bad status',
    argv: [
      'notebooks/13-report.mjs',
      '--run',
      run('rstatus', (d) => editCsv(d, 'measurements.csv', (l) => setColumn(l, 3, 'status', 'splendid'))),
      '--site',
      join(T, 'site'),
      '--no-pdf',
    ],
    names: 'measurements.csv:4',
  },
  {
    what: 'report manifest bad JSON',
    argv: ['notebooks/13-report.mjs', '--run', join(T, 'badjson'), '--site', join(T, 'site'), '--no-pdf'],
    names: 'manifest.json',
  },
  { what: 'report without --run', argv: ['notebooks/13-report.mjs', '--site', join(T, 'site')], names: '--run' },
  {
    what: 'report baseline unknown',
    argv: ['notebooks/13-report.mjs', '--run', goodRun, '--baseline', 'no-such-baseline', '--site', join(T, 'site'), '--no-pdf'],
    names: 'no-such-baseline',
  },
  {
    what: 'report baseline broken CSV',
    argv: ['notebooks/13-report.mjs', '--run', goodRun, '--baseline', brokenBaselineId, '--site', join(T, 'site'), '--no-pdf'],
    names: `${brokenBaselineId}/measurements.csv:3`,
  },
  { what: 'report site is a file', argv: ['notebooks/13-report.mjs', '--run', goodRun, '--site', aFile, '--no-pdf'], names: 'a-file.txt' },
  { what: 'promote without RUN_DIR', argv: ['notebooks/promote.mjs'], names: 'RUN_DIR' },
  { what: 'promote missing dir', argv: ['notebooks/promote.mjs', join(T, 'no-such-run')], names: 'no-such-run' },
  { what: 'promote bad id', argv: ['notebooks/promote.mjs', goodRun, '--id', '../escape'], names: '../escape' },
  { what: 'promote broken CSV', argv: ['notebooks/promote.mjs', join(T, 'nan'), '--id', `zz-never-${process.pid}`], names: 'measurements.csv:2' },
  { what: 'pool-table variants bogus', argv: ['notebooks/pool-table.mjs', '--variants', 'bogus'], names: 'bogus' },
  { what: 'pool-table proxies unknown', argv: ['notebooks/pool-table.mjs', '--proxies', 'apache'], names: 'apache' },
  // Finished runs a user broke, and places publish cannot write (docs/reliability.md "Bad input").
  { what: 'aggregate csv header only', argv: ['notebooks/12-aggregate.mjs', '--run', headerOnly], names: 'measurements.csv:1' },
  {
    what: 'report csv header only',
    argv: ['notebooks/13-report.mjs', '--run', headerOnly, '--site', join(T, 'site'), '--no-pdf'],
    names: 'measurements.csv:1',
  },
  { what: 'aggregate csv repeat twice', argv: ['notebooks/12-aggregate.mjs', '--run', pasted], names: `measurements.csv:${pastedLine}` },
  {
    what: 'report csv repeat twice',
    argv: ['notebooks/13-report.mjs', '--run', pasted, '--site', join(T, 'site'), '--no-pdf'],
    names: `measurements.csv:${pastedLine}`,
  },
  { what: 'promote csv repeat twice', argv: ['notebooks/promote.mjs', pasted, '--id', `zz-never-${process.pid}`], names: `measurements.csv:${pastedLine}` },
  { what: 'publish --to inside a file', argv: ['notebooks/publish.mjs', '--site', builtSite, '--to', join(aFile, 'pages')], names: '--to' },
  {
    what: 'publish --to not writable',
    argv: ['notebooks/publish.mjs', '--site', builtSite, '--to', `/proc/pb-pages-${process.pid}`],
    names: `/proc/pb-pages-${process.pid}`,
  },
  { what: 'publish --site without a site', argv: ['notebooks/publish.mjs', '--site', dir('no-site'), '--to', join(T, 'pages')], names: 'no-site' },
  { what: 'publish nothing to do', argv: ['notebooks/publish.mjs', '--site', builtSite], names: '--to' },
  // Every run flag added since this corpus was written (lib/cli/run-flags.ts RUN_FLAGS; the test below checks the list).
  { what: 'allow-changes without resume', argv: RUN('--allow-changes'), names: '--allow-changes' },
  {
    what: 'hosts unknown scheme',
    argv: RUN('--hosts', 'proxy=ftp://h1 backend=unix:///var/run/docker.sock generator=unix:///var/run/docker.sock'),
    names: 'ftp://',
  },
  {
    what: 'hosts with native',
    argv: RUN('--runtime', 'native', '--hosts', 'proxy=unix:///var/run/docker.sock backend=unix:///var/run/docker.sock generator=unix:///var/run/docker.sock'),
    names: '--hosts',
  },
  { what: 'hosts topology missing', argv: RUN('--hosts', join(T, 'no-topology.yaml')), names: 'no-topology.yaml' },
  { what: 'variants unknown', argv: RUN('--variants', 'article,bogus'), names: 'bogus' },
  { what: 'key-types unknown', argv: RUN('--key-types', 'rsa1024'), names: 'rsa1024' },
  { what: 'versions unknown', argv: RUN('--proxies', 'nginx', '--versions', '9.9.9'), names: '9.9.9' },
  { what: 'versions empty', argv: RUN('--versions', ','), names: '--versions' },
  { what: 'repeats zero', argv: RUN('--repeats', '0'), names: '--repeats 0' },
  { what: 'duration not a number', argv: RUN('--duration', 'long'), names: '--duration long' },
  { what: 'budget without capacity', argv: RUN('--series', 'pooling', '--budget', '60'), names: '--budget' },
  { what: 'start-rps without capacity', argv: RUN('--series', 'pooling', '--start-rps', '100'), names: '--start-rps' },
  { what: 'metric without bisect', argv: RUN('--series', 'pooling', '--metric', 'cpu'), names: '--metric' },
  { what: 'metric unknown', argv: RUN('--series', 'bisect', '--metric', 'speed'), names: 'speed' },
  { what: 'like unknown baseline', argv: RUN('--like', 'no-such-baseline'), names: 'no-such-baseline', spawn: true },
  { what: 'like a published baseline', argv: RUN('--like', '2026-08-23'), names: '2026-08-23' },
  { what: 'pair-same without like', argv: RUN('--pair-same'), names: '--pair-same' },
  { what: 'pair-at without like', argv: RUN('--pair-at', 'instant'), names: '--pair-at' },
  { what: 'pair-at unknown', argv: RUN('--pair-at', 'soon'), names: '--pair-at soon' },
  { what: 'fail-on not a gate', argv: RUN('--fail-on', 'sometimes'), names: 'sometimes' },
  { what: 'fail-on unknown claim', argv: RUN('--fail-on', 'claim:no-such-claim!=reproduced'), names: 'no-such-claim', spawn: true },
  { what: 'fail-on regression without baseline', argv: RUN('--fail-on', 'regression>10%'), names: '--fail-on' },
  {
    what: 'report fail-on unknown finding',
    argv: ['notebooks/13-report.mjs', '--run', goodRun, '--site', join(T, 'site'), '--no-pdf', '--fail-on', 'finding:F9'],
    names: 'F9',
  },
  { what: 'pin-versions without a version', argv: ['notebooks/run-all.mjs', '--pin-versions', 'nginx', ...out('pv1')], names: '--pin-versions' },
  { what: 'pin-versions not in the catalog', argv: ['notebooks/run-all.mjs', '--pin-versions', 'nginx=9.9.9', ...out('pv2')], names: '9.9.9' },
  { what: 'wait-quiet not a number', argv: ['notebooks/run-all.mjs', '--wait-quiet', 'abc', ...out('wq')], names: '--wait-quiet abc' },
  { what: 'tax-ns not a number', argv: ['notebooks/run-all.mjs', '--tax-ns', 'abc', ...out('tx')], names: '--tax-ns abc' },
  { what: 'stability apart not minutes', argv: ['bench/stability.mjs', '--runs', '2', '--apart', 'soon', '--out', join(T, 'stab')], names: '--apart soon' },
  { what: 'bisect without --proxy', argv: ['notebooks/bisect.mjs', ...out('b1')], names: '--proxy' },
  { what: 'bisect two proxies', argv: ['notebooks/bisect.mjs', '--proxy', 'nginx,haproxy', ...out('b2')], names: '--proxy nginx,haproxy' },
  {
    what: 'bisect tags-from with native',
    argv: ['notebooks/bisect.mjs', '--proxy', 'nginx', '--tags-from', '127.0.0.1:1/nginx', '--runtime', 'native', ...out('b3')],
    names: '--runtime native',
  },
]

/** Run flags the corpus has no bad value for, and why (a boolean or a path has no malformed form before setup). */
const FLAGS_WITHOUT_A_CASE: Record<string, string> = {
  'no-report': "a boolean: any value given to it is parseArgs' one-line error, as for every notebook's unknown flag",
  'no-pdf': 'a boolean (as no-report)',
  json: 'a boolean (as no-report)',
  'no-counts': 'a boolean (as no-report)',
  'strict-builds': 'a boolean (as no-report); what it refuses is tested on a real apt repository in test/integration/builds.test.ts',
  'accept-new-host-keys': 'a boolean (as no-report); the host keys it accepts are tested with real hosts in test/integration/multihost.test.ts',
}

test('the corpus names every run flag (lib/cli/run-flags.ts RUN_FLAGS), or says why not', async () => {
  const { RUN_FLAGS } = await import('../../lib/cli/run-flags.ts')
  const named = new Set(CASES.flatMap((c) => c.argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]!)))
  const missing = Object.keys(RUN_FLAGS).filter((f) => !named.has(f) && !(f in FLAGS_WITHOUT_A_CASE))
  assert.deepEqual(missing, [], 'run flags without a bad-input case')
})

/** mtime + size of every file under the given roots (dot-named entries of certs/ excepted: a concurrent run's key copies). */
function snapshot(roots: string[]): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (p: string) => {
    if (!existsSync(p)) return
    const st = statSync(p)
    if (st.isDirectory()) {
      out.set(
        p + '/',
        String(
          readdirSync(p)
            .filter((f) => !(p === certsDir && f.startsWith('.')))
            .sort(),
        ),
      )
      for (const f of readdirSync(p)) if (!(p === certsDir && f.startsWith('.'))) walk(join(p, f))
    } else out.set(p, `${st.mtimeMs}:${st.size}`)
  }
  for (const r of roots) walk(r)
  return out
}

interface Result {
  code: number | null
  ms: number
  stderr: string
}

/** A case of run-all's flags checked in this process: what run-all does before it measures, in the notebook's wrapper. */
const inProcess = (c: Case) => c.argv[0] === 'notebooks/run-all.mjs' && !c.spawn && !c.argv.slice(1).some((a) => a === '--help' || a === '-h')

async function checkInProcess(c: Case): Promise<Result> {
  const t0 = Date.now()
  let stderr = ''
  const [err, out, exitCode] = [process.stderr.write, process.stdout.write, process.exitCode]
  // What the notebook would print: stderr kept for the checks, stdout dropped as a spawned case's is.
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += chunk.toString()
    return true
  }) as typeof process.stderr.write
  process.stdout.write = (() => true) as typeof process.stdout.write
  let code: number | null
  try {
    process.exitCode = undefined
    // Returning is the failure here: run-all would go on to set up and measure.
    await runNotebook(async () => {
      parseRunFlags(c.argv.slice(1), { notebook: 'notebooks/run-all.mjs', help: RUN_FLAGS_HELP, install: true })
      return 0
    })
    code = Number(process.exitCode ?? 0)
  } catch (e) {
    // Not a UserError: the notebook would print its stack trace and exit 1.
    stderr += `${(e as Error).stack ?? e}\n`
    code = 1
  } finally {
    process.stderr.write = err
    process.stdout.write = out
    process.exitCode = exitCode
  }
  return { code, ms: Date.now() - t0, stderr }
}

function runCase(c: Case): Promise<Result> {
  const t0 = Date.now()
  return new Promise((resolve) => {
    const child = spawn(join(repoRoot, 'node_modules/.bin/zx'), c.argv, {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
      env: { ...process.env, FORCE_COLOR: '0' },
    })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    // Past 60 s it has gone beyond parsing into setup: stopped, and a failure (exit null).
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, ms: Date.now() - t0, stderr })
    })
  })
}

test(`malformed inputs: ${CASES.length} cases, each one clear line, no stack trace, no file changed`, async () => {
  const roots = [T, join(repoRoot, 'baselines'), certsDir]
  const before = snapshot(roots)
  const results: { c: Case; r: Result; problems: string[] }[] = []
  const judge = (c: Case, r: Result) => {
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '')
    const problems: string[] = []
    if (r.code === 0 || r.code === null) problems.push(`exit ${r.code}`)
    // Parsing alone: zx + tsx start in 2-4 s idle, but up to ~21 s with four at once on a 2-core machine other sessions load.
    if (r.ms > 45_000) problems.push(`took ${(r.ms / 1000).toFixed(1)} s`)
    if (lines.some((l) => l.startsWith('    at '))) problems.push('stack trace')
    if (lines.length !== 1) problems.push(`${lines.length} stderr lines`)
    else {
      if (!/^proxybench: .+: .+\. .+/.test(lines[0]!)) problems.push('not "proxybench: where: what. fix"')
      if (!lines[0]!.includes(c.names)) problems.push(`does not name ${c.names}`)
    }
    results.push({ c, r, problems })
  }
  // In this process first, one at a time: stderr is captured while each runs.
  for (const c of CASES.filter(inProcess)) judge(c, await checkInProcess(c))
  const queue = CASES.filter((c) => !inProcess(c))
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) judge(c, await runCase(c))
    }),
  )
  const after = snapshot(roots)
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k)).map((k) => relative(repoRoot, k))
  results.sort((a, b) => CASES.indexOf(a.c) - CASES.indexOf(b.c))
  const clear = results.filter((x) => x.problems.length === 0).length
  const traces = results.filter((x) => x.problems.includes('stack trace')).length
  for (const x of results) {
    const line = x.r.stderr.split('\n').filter((l) => l.trim())[0] ?? ''
    console.log(
      `${x.problems.length ? '✗' : '✓'} ${x.c.what.padEnd(34)} ${inProcess(x.c) ? 'in' : 'zx'} ${String(x.r.code).padStart(3)} ${(x.r.ms / 1000).toFixed(1)}s  ${x.problems.length ? `[${x.problems.join('; ')}] ` : ''}${line.slice(0, 160)}`,
    )
  }
  for (const c of changed) console.log(`changed: ${c}`)
  console.log(`${clear}/${CASES.length} clear one-line errors, ${traces} stack traces, ${changed.length} files changed`)
  assert.deepEqual(changed, [], 'files changed')
  assert.deepEqual(
    results.filter((x) => x.problems.length).map((x) => `${x.c.what}: ${x.problems.join('; ')}`),
    [],
  )
})
