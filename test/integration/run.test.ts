import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { readManifest } from '../../lib/data/manifest.ts'
import { readMeasurements } from '../../lib/data/measurements.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { cacheDir, certsDir, repoRoot } from '../../lib/core/paths.ts'
import { assertNoKeyMaterial } from '../../lib/report/site.ts'
import { parseRunOptions } from '../../lib/cli/run-options.ts'
import { runBench } from '../../lib/run/run.ts'
import { isAlive } from '../../lib/runtime/native.ts'
import { isDisturbed } from '../../lib/data/precision.ts'
import { readLatencySpectra } from '../../lib/data/latency.ts'
import { repeatStem } from '../../lib/data/raw-files.ts'
import { OWN_RATE_SERIES } from '../../lib/data/series.ts'
import { MEASUREMENTS, readTable } from '../../lib/data/tables.ts'
import { poolingOpenRate } from '../../lib/series/open-rate.ts'

const ZX = join(repoRoot, 'node_modules', 'zx', 'build', 'cli.js')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// One real short pooling run (smoke profile: 1 repeat, 1 s window) on the real HAProxy, with a
// user config its checker rejects: what the manifest and the pooling series tests read.
let pooling: Promise<{ out: string; r: Awaited<ReturnType<typeof runBench>> }> | undefined
const poolingRun = () =>
  (pooling ??= (async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'pb-run-')), 'run')
    const bad = join(out, '..', 'broken.cfg')
    writeFileSync(bad, 'global\n  this-is-not-a-keyword\n')
    const r = await runBench(
      parseRunOptions(
        { profile: 'smoke', series: 'pooling', proxies: 'haproxy', runtime: 'auto', out, config: [`haproxy=${bad}`], seed: '1' },
        { install: false, log: memoryLogger() },
      ),
    )
    return { out, r }
  })())

test('a pooling run writes a valid manifest and one row per cell, with honest numbers', async () => {
  const { out, r } = await poolingRun()
  const m = readManifest(out)!
  assert.equal(m.order_seed, 1)
  assert.equal(m.steps.pooling, 'done')
  assert.ok(m.components.some((c) => c.component === 'haproxy' && /^[0-9a-f]{64}$/.test(c.sha256)))
  // Lossless latency: every repeat whose generator reported, closed (wrk) and open (loadgen; disturbed
  // windows included), left its whole distribution in raw/.
  const spectra = new Map(
    readLatencySpectra(out).map((e) => [repeatStem(e.cell, e.cell.repeat, e.cell.rate === null ? {} : { rate: e.cell.rate }), e.spectrum]),
  )
  const reported = readMeasurements(out).filter((x) => x.max_ms !== null)
  assert.ok(reported.some((x) => x.model === 'closed'))
  for (const x of reported) {
    const stem = repeatStem(
      { series: x.series, proxy: x.proxy, version: x.version, variant: x.variant, keyType: x.key_type, connections: x.connections },
      x.repeat,
      x.model === 'open' ? { rate: x.target_rps! } : {},
    )
    const s = spectra.get(stem)
    assert.ok(s, `${stem}: no latency spectrum`)
    assert.deepEqual([s.generator, s.measured_from], x.model === 'open' ? ['loadgen open', 'scheduled'] : ['wrk', 'sent'], stem)
    assert.equal(s.max_us / 1000, x.max_ms, `${stem}: the spectrum's max is the row's`)
    assert.equal(s.points.at(-1)!.percentile, 100, stem)
    if (x.model === 'open') assert.equal(s.total_count, x.requests, `${stem}: one sample per ok iteration`)
  }
  // A window disturbed by the machine is an invalid row that is measured again: judge the others.
  const rows = readMeasurements(out).filter((x) => x.model === 'closed' && !isDisturbed(x))
  assert.equal(new Set(rows.map((x) => x.variant)).size, 8) // direct + article, pool-added, pool-removed, reuse-never, server-close, httpclose + custom
  const by = (v: string) => rows.find((x) => x.variant === v)!
  // A busy machine may fail a window outright (a verification request timing out, no request
  // inside a 1 s window): such a row is invalid and names why; the figures are judged on the valid ones.
  const catalog = ['article', 'pool-added', 'pool-removed', 'reuse-never', 'server-close', 'httpclose'].map(by)
  const valid = catalog.filter((x) => x.status === 'valid')
  for (const x of catalog.filter((y) => y.status !== 'valid')) assert.ok(x.status === 'invalid' && x.reason.length > 0, JSON.stringify(x))
  assert.ok(valid.length >= catalog.length - 2, JSON.stringify(catalog.map((x) => [x.variant, x.status, x.reason])))
  for (const x of valid) assert.ok(x.proxy_cpu_us_per_req! > 0 && x.requests > 0, x.variant)
  assert.equal(by('direct').proxy_cpu_us_per_req, null)
  const conns = new Map(valid.map((x) => [x.variant, x.backend_conns_per_1k_req!]))
  for (const v of ['server-close', 'httpclose']) assert.ok((conns.get(v) ?? 1000) >= 900, v)
  assert.ok((conns.get('article') ?? 0) <= 50)
  // The user's broken config: a failed row with the checker's words; the run went on.
  assert.equal(by('custom:broken.cfg').status, 'failed')
  // The newest HAProxy of the catalog is the one measured and checked.
  const version = by('pool-added').version
  assert.ok(by('custom:broken.cfg').reason.startsWith('config rejected before the run: '))
  assert.match(
    by('custom:broken.cfg').reason,
    new RegExp(`broken\\.cfg: haproxy ${version.replace(/\./g, '\\.')} rejects the rendered config \\(.*this-is-not-a-keyword`),
  )
  // Checked once before the first cell, not per cell: every row of it says so, none started a role.
  assert.ok(
    readMeasurements(out)
      .filter((x) => x.variant === 'custom:broken.cfg')
      .every((x) => x.status === 'failed' && x.reason.startsWith('config rejected before the run')),
  )
  assert.equal(readManifest(out)!.invocations.length, 1)
  assert.ok(readMeasurements(out).every((x) => x.invocation === 1))
  assert.ok(r.findings.some((f) => f.id === 'F4' && f.verdict !== 'not measured'))
  assert.ok(existsSync(join(out, 'configs', `haproxy-${version}-pool-added.cfg`)))
  assert.ok(!readFileSync(join(out, 'configs', `haproxy-${version}-pool-added.cfg`), 'utf8').includes('PRIVATE KEY'))

  // Never overwrite a run by accident.
  await assert.rejects(
    runBench(parseRunOptions({ profile: 'smoke', series: 'pooling', proxies: 'haproxy', runtime: 'native', out }, { install: false, log: memoryLogger() })),
    /already holds a run\. Add --resume/,
  )
})

// The pooling series: the closed phase, then every cell again at one fixed rate derived from
// the closed ceilings (pooling-open). Timing is not asserted. The user's config is a failed
// row in both phases (the manifest test above judges it): the catalog's cells are judged here.
test('pooling series: closed cells, then the same cells at one fixed rate (pooling-open)', async () => {
  const { r } = await poolingRun()
  const all = readTable(r.runDir, MEASUREMENTS)
  const rows = all.filter((x) => x.series !== 'custom')
  const closed = rows.filter((x) => x.model === 'closed')
  // same-own-rate is the article cells again, each at its own ceiling's rate (s001's HAProxy claim), not pooling-open.
  const open = rows.filter((x) => x.model === 'open' && x.series !== OWN_RATE_SERIES)
  const name = (x: (typeof rows)[number]) => `${x.series} ${x.proxy} ${x.version} ${x.variant}`
  assert.ok(closed.length > 0)
  // Sets: an adaptive phase may add repeats of a cell in either model.
  assert.deepEqual([...new Set(open.map(name))].sort(), [...new Set(closed.map(name))].sort(), 'every closed cell, the direct row too, at the fixed rate')
  const rate = poolingOpenRate(all)!.rate
  for (const x of open) assert.equal(x.target_rps, rate, JSON.stringify(x))
  // A busy machine may fail one window (a verification request timing out): such a row names
  // its reason and is judged as invalid; the shape is asserted on the valid ones.
  const valid = open.filter((x) => x.status === 'valid')
  for (const x of open.filter((y) => y.status !== 'valid')) assert.ok(x.reason.length > 0, JSON.stringify(x))
  for (const x of valid) assert.ok(x.max_vus !== null && x.dropped !== null && x.rps! > 0, JSON.stringify(x))
  for (const x of valid.filter((y) => y.proxy === 'direct')) assert.ok(x.proxy_cpu_us_per_req === null && x.backend_cpu_us_per_req! > 0, JSON.stringify(x))
  assert.ok(
    valid.some((x) => x.proxy === 'haproxy' && x.proxy_cpu_us_per_req! > 0),
    JSON.stringify(open),
  )
})

test('killed mid-run, --resume finishes without redoing done cells and leaves no process', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'pb-resume-')), 'run')
  // Native: the roles a SIGKILL leaves are processes its state file names (rolesOf), which the resume must end.
  const args = [ZX, 'notebooks/03-pooling.mjs', '--profile', 'smoke', '--proxies', 'haproxy', '--runtime', 'native', '--out', out]
  const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: 'ignore' })
  const deadline = Date.now() + 120_000
  while (readMeasurementsSafe(out).length < 2 && Date.now() < deadline) await sleep(200)
  const before = readMeasurementsSafe(out)
  assert.ok(before.length >= 2, 'two rows before the kill')
  child.kill('SIGKILL')
  await new Promise((r) => child.once('exit', r))
  assert.equal(readManifest(out)!.steps.pooling, 'running') // SIGKILL: no chance to say more
  const orphans = rolesOf(child.pid!)

  // The finished run also builds its report (summary/, ledger, site, PDF): into a temp site.
  const site = join(out, '..', 'site')
  const resumed = spawn(process.execPath, [...args, '--resume', '--site', site], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  resumed.stdout!.on('data', (d: Buffer) => (output += d))
  resumed.stderr!.on('data', (d: Buffer) => (output += d))
  const code = await new Promise((r) => resumed.once('exit', r))
  assert.equal(code, 0, output)
  assert.match(output, /resume pooling: \d+ repeats already measured, \d+ to go/)
  const after = readMeasurements(out)
  const closedCells = (rows: typeof after) => new Set(rows.filter((r) => r.model === 'closed').map((r) => `${r.series}|${r.variant}`))
  assert.equal(closedCells(after).size, 7) // direct + article, pool-added, pool-removed, reuse-never, server-close, httpclose
  const keys = after.map((r) => `${r.series}|${r.variant}|${r.model}|${r.repeat}`)
  assert.equal(new Set(keys).size, keys.length, 'no cell measured twice')
  for (const row of before)
    assert.ok(
      after.some((a) => a.variant === row.variant && a.started_at === row.started_at),
      `${row.variant} kept, not redone`,
    )
  assert.equal(readManifest(out)!.steps.pooling, 'done')
  assert.match(output, /\d+ claims: \d+ reproduced, \d+ not reproduced, \d+ inconclusive, \d+ not measured, \d+ not runnable here/)
  for (const f of ['summary/measurements.csv', 'summary/ratios.csv']) assert.ok(existsSync(join(out, f)), f)
  const runId = readManifest(out)!.run_id
  for (const f of ['index.html', 'report.pdf', `runs/${runId}/index.html`, `runs/${runId}/report.pdf`, `runs/${runId}/data/measurements.csv`])
    assert.ok(existsSync(join(site, f)), f)
  // The run's certificates (private keys included) exist; none of them reached the site.
  assert.ok(
    readdirSync(certsDir).some((f) => f.endsWith('.key')),
    'the run had private keys',
  )
  assertNoKeyMaterial(site)
  for (const f of readdirSync(certsDir).filter((f) => f.endsWith('.key') || f.endsWith('.pem'))) {
    const key = readFileSync(join(certsDir, f), 'utf8')
      .split('\n')
      .find((l) => l && !l.startsWith('-----'))!
    assert.ok(!siteText(site).includes(key), `${f} appears in the site`)
  }
  // What the killed run left (proxy, backend, wrk) is gone, and so is its state file.
  for (const pid of orphans) assert.equal(isAlive(pid), false, `pid ${pid} of the killed run`)
  assert.deepEqual(rolesOf(child.pid!), [])
})

test('SIGINT stops the run cleanly and marks the manifest interrupted', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'pb-int-')), 'run')
  const child = spawn(process.execPath, [ZX, 'notebooks/03-pooling.mjs', '--profile', 'smoke', '--proxies', 'haproxy', '--runtime', 'native', '--out', out], {
    cwd: repoRoot,
    stdio: 'ignore',
  })
  const deadline = Date.now() + 120_000
  while (readMeasurementsSafe(out).length < 1 && Date.now() < deadline) await sleep(200)
  child.kill('SIGINT')
  const code = await new Promise((r) => child.once('exit', (c) => r(c)))
  assert.equal(code, 130)
  assert.equal(readManifest(out)!.steps.pooling, 'interrupted')
  assert.ok(readMeasurements(out).length >= 1)
  assert.deepEqual(rolesOf(child.pid!), [], 'the run removed its own state: nothing left to clean')
})

/** Pids of the roles a harness process recorded as running. */
function rolesOf(harnessPid: number): number[] {
  const dir = join(cacheDir(), 'native')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      const s = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { harness: { pid: number }; roles: { pid: number }[] }
      return s.harness.pid === harnessPid ? s.roles.map((r) => r.pid) : []
    })
}

function readMeasurementsSafe(dir: string) {
  try {
    return readMeasurements(dir)
  } catch {
    return []
  }
}

/** Every file of a site as one text, to look for key bytes in whatever form they were copied. */
function siteText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath ?? e.path, e.name), 'latin1'))
    .join('\n')
}
