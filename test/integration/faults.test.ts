import assert from 'node:assert/strict'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../lib/core/log.ts'
import { cacheDir, certsDir, repoRoot } from '../../lib/core/paths.ts'
import { readManifest } from '../../lib/data/manifest.ts'
import { readRunTables } from '../../lib/data/run-data.ts'
import { isAlive } from '../../lib/runtime/native.ts'
import { engineInfo, ensureDockerEngine } from '../../lib/setup/docker-engine.ts'
import { skipNeeding } from '../support/needs.ts'

// Faults on real short runs (smoke profile, HAProxy): each must cost at most the cell it hit.
const ZX = join(repoRoot, 'node_modules', 'zx', 'build', 'cli.js')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const NOTEBOOK = { pooling: '03-pooling', tls: '04-tls', ws: '05-websocket', versions: '06-versions' } as const

interface Run {
  child: ChildProcess
  out: string
  output: () => string
  exit: Promise<number | null>
}

function startRun(series: keyof typeof NOTEBOOK, out: string, extra: string[] = [], runtime = 'native'): Run {
  const child = spawn(
    process.execPath,
    [ZX, `notebooks/${NOTEBOOK[series]}.mjs`, '--profile', 'smoke', '--proxies', 'haproxy', '--runtime', runtime, '--no-report', '--out', out, ...extra],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let text = ''
  child.stdout!.on('data', (d: Buffer) => (text += d))
  child.stderr!.on('data', (d: Buffer) => (text += d))
  const exit = new Promise<number | null>((r) => child.once('exit', (code, signal) => r(code ?? (signal ? 128 + 9 : null))))
  return { child, out, output: () => text, exit }
}

/** Every row of the run's three CSVs (none while a file is being replaced: the rename is atomic). */
function rows(dir: string) {
  try {
    const t = readRunTables(dir)
    return [...t.measurements, ...t.handshakes, ...t.websocket] as {
      series: string
      variant: string
      repeat: number
      status: string
      reason: string
      started_at: string
      invocation?: number | null
    }[]
  } catch {
    return []
  }
}
const rowId = (r: { series: string; variant: string; repeat: number; started_at: string }) => `${r.series}|${r.variant}|${r.repeat}|${r.started_at}`

/** The roles a harness process recorded in its native state file. */
function roles(harnessPid: number): { name: string; pid: number }[] {
  const dir = join(cacheDir(), 'native')
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => {
      try {
        const s = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { harness: { pid: number }; roles: { name: string; pid: number }[] }
        return s.harness.pid === harnessPid ? s.roles : []
      } catch {
        return []
      }
    })
}

async function until<T>(what: string, f: () => T | undefined | false, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = f()
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

/** The generator of the cell in flight (one cell at a time: a cell's roles stop before the next starts), not one of `seen`. */
const generatorOf = (pid: number, seen: Set<string> = new Set()) => roles(pid).find((r) => r.name.startsWith('generator-') && !seen.has(r.name))

/** A proxy role that was not running before: a new cell has started. */
const newProxy = (pid: number, seen: Set<string>) => roles(pid).find((r) => r.name.startsWith('proxy-') && !seen.has(r.name))

/** What a harness may leave behind: processes, cgroups, state files, key copies. */
function leftovers(harnessPid: number, rolePids: number[]): string[] {
  const left = rolePids.filter(isAlive).map((p) => `process ${p}`)
  for (const base of ['/sys/fs/cgroup/cpuacct/proxybench', '/sys/fs/cgroup/proxybench']) {
    if (existsSync(base))
      left.push(
        ...readdirSync(base)
          .filter((d) => d.endsWith(`-${harnessPid}`))
          .map((d) => `cgroup ${join(base, d)}`),
      )
  }
  if (roles(harnessPid).length) left.push(`state file of ${harnessPid}`)
  if (existsSync(join(certsDir, `.docker-${harnessPid}`))) left.push(`key copies certs/.docker-${harnessPid}`)
  return left
}

test('kill -9 of the proxy, then of the backend, mid-window: each cell is an invalid row naming the exit, and the run goes on', async () => {
  const run = startRun('pooling', join(mkdtempSync(join(tmpdir(), 'pb-fault-')), 'run'))
  const pid = run.child.pid!
  const seen = new Set<string>()
  const all = new Set<number>()
  // Cell 1 of the kills: the proxy; the next cell: the backend. Once the cell's generator runs: past verification, in the warm-up or window.
  for (const victim of ['proxy', 'backend'] as const) {
    const proxy = await until('a proxy role', () => newProxy(pid, seen))
    seen.add(proxy.name)
    await until(`the load through ${proxy.name}`, () => generatorOf(pid))
    const target = victim === 'proxy' ? proxy : roles(pid).find((r) => r.name.startsWith('backend-'))
    assert.ok(target, `a ${victim} role`)
    for (const r of roles(pid)) all.add(r.pid)
    process.kill(target.pid, 'SIGKILL')
  }
  // Rows written before the backend's cell ends (the direct row, the proxy's cell): the later cell's row comes after its.
  const beforeLast = rows(run.out).length
  // The run goes on: a cell after the kills is measured, then it is stopped to keep the test short.
  await until('a proxy role after the kills', () => newProxy(pid, seen))
  // Its row, not only its roles gone: the row is written after the roles stop.
  await until('a row of a later cell', () => rows(run.out).length >= beforeLast + 2)
  for (const r of roles(pid)) all.add(r.pid)
  run.child.kill('SIGINT')
  assert.equal(await run.exit, 130, run.output())
  const got = rows(run.out)
  assert.ok(
    got.some((r) => r.status === 'invalid' && /proxy exited during the (window|run) \(code (SIGKILL|137)/.test(r.reason)),
    got.map((r) => `${r.variant}: ${r.status} ${r.reason}`).join('\n'),
  )
  assert.ok(
    got.some((r) => r.status === 'invalid' && /backend exited during the (window|run) \(code (SIGKILL|137)/.test(r.reason)),
    got.map((r) => `${r.variant}: ${r.status} ${r.reason}`).join('\n'),
  )
  // A later cell was measured: valid, or invalid only because other work disturbed its window (a busy machine), never a failure of its own.
  const later = got.slice(beforeLast + 1)
  assert.ok(
    later.length >= 1 && later.every((r) => r.status === 'valid' || (r.status === 'invalid' && /^disturbed: /.test(r.reason) && !/exited/.test(r.reason))),
    `cells after the kills are measured:\n${got.map((r) => `${r.variant}: ${r.status} ${r.reason}`).join('\n')}`,
  )
  assert.deepEqual(leftovers(pid, [...all]), [])
})

test('a full disk while a CSV is written: one clear error line, no trace, every row already written kept', async (t) => {
  if (process.getuid?.() !== 0) return skipNeeding(t, 'integration/faults', 'needs root to mount a tmpfs')
  const mnt = mkdtempSync(join(tmpdir(), 'pb-full-'))
  assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]).status, 0, 'mount a 1 MiB tmpfs')
  try {
    const run = startRun('pooling', join(mnt, 'run'))
    const seen = new Map<string, number>()
    let done = false
    void run.exit.then(() => (done = true))
    // Once rows are on disk, the rest of the tmpfs is filled: the next write of the CSV has no room.
    await until('two rows', () => done || rows(run.out).length >= 2)
    for (const r of rows(run.out)) seen.set(rowId(r), 1)
    spawnSync('dd', ['if=/dev/zero', `of=${join(mnt, 'ballast')}`, 'bs=1k'], { stdio: 'ignore' })
    while (!done) {
      for (const r of rows(run.out)) seen.set(rowId(r), (seen.get(rowId(r)) ?? 0) + 1)
      await sleep(100)
    }
    const code = await run.exit
    const lines = run
      .output()
      .split('\n')
      .filter((l) => l.startsWith('proxybench: '))
    assert.equal(code, 2, run.output())
    assert.equal(lines.length, 1, run.output())
    assert.match(lines[0]!, /no space left on the device \(ENOSPC\).*Free space on .*--resume/)
    assert.doesNotMatch(run.output(), /^\s+at .*\(.*:\d+:\d+\)$/m, 'no stack trace')
    const after = new Set(rows(run.out).map(rowId))
    for (const id of seen.keys()) assert.ok(after.has(id), `row ${id} kept`)
    assert.ok(seen.size >= 1, 'some rows were written before the disk filled')
    assert.ok(readManifest(run.out), 'the manifest still parses')
    assert.deepEqual(leftovers(run.child.pid!, []), [])
  } finally {
    spawnSync('umount', ['-l', mnt])
  }
})

// One signal per series: SIGINT and SIGTERM share one handler (lib/runtime/shutdown.ts), and each is
// sent during two series here (plus SIGINT by the kill test above), so every series' step
// bookkeeping and both exit codes are covered without the full series × signal matrix.
for (const [series, signal, code] of [
  ['pooling', 'SIGTERM', 143],
  ['tls', 'SIGINT', 130],
  ['ws', 'SIGTERM', 143],
  ['versions', 'SIGINT', 130],
] as const) {
  test(`${signal} during ${series}: exit ${code}, step interrupted, no row after the signal, nothing left behind`, async () => {
    const run = startRun(series, join(mkdtempSync(join(tmpdir(), 'pb-sig-')), 'run'))
    const pid = run.child.pid!
    await until('a first row', () => rows(run.out).length > 0)
    // Mid-cell: a role of the next cell has started, and then its load.
    const seen = new Set(roles(pid).map((r) => r.name))
    const role = await until('a role of a later cell', () => roles(pid).find((r) => !seen.has(r.name)))
    await until('the load of that cell', () => generatorOf(pid, seen))
    const pids = roles(pid).map((r) => r.pid)
    const before = rows(run.out).map(rowId)
    run.child.kill(signal)
    assert.equal(await run.exit, code, run.output())
    const m = readManifest(run.out)!
    assert.equal(m.steps[series], 'interrupted', JSON.stringify(m.steps))
    assert.equal(m.invocations.length, 1)
    assert.ok(m.invocations[0]!.finished, 'the invocation records when it ended')
    assert.deepEqual(rows(run.out).map(rowId), before, `no row from after the signal (role ${role.name} was running)`)
    assert.ok(rows(run.out).every((r) => r.invocation === 1))
    assert.deepEqual(leftovers(pid, pids), [])
  })
}

test('a resume with other settings is refused in one line; --allow-changes records both invocations', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'pb-prov-')), 'run')
  const first = startRun('tls', out, ['--seed', '5'])
  await until('a first row', () => rows(out).length > 0)
  first.child.kill('SIGINT')
  assert.equal(await first.exit, 130)
  const refused = startRun('tls', out, ['--resume', '--seed', '6'])
  assert.equal(await refused.exit, 2, refused.output())
  assert.match(
    refused.output(),
    /proxybench: --resume: .* differs from the run it resumes: --seed 5 → 6\. Resume with the run's settings, or add --allow-changes/,
  )
  const allowed = startRun('tls', out, ['--resume', '--seed', '6', '--allow-changes'])
  await until('a row of the second invocation', () => rows(out).some((r) => r.invocation === 2))
  allowed.child.kill('SIGTERM')
  assert.equal(await allowed.exit, 143, allowed.output())
  const m = readManifest(out)!
  assert.deepEqual(
    m.invocations.map((i) => [i.id, i.seed, i.changes]),
    [
      [1, 5, []],
      [2, 6, ['--seed 5 → 6']],
    ],
  )
  assert.ok(m.invocations.every((i) => /^[0-9a-f]{12}$/.test(i.commit) && i.fingerprint && i.started && i.finished))
  assert.deepEqual([...new Set(rows(out).map((r) => r.invocation))].sort(), [1, 2])
})

// Last: it stops the machine's Docker engine and starts it again.
test('dockerd stopped and restarted mid-run (docker runtime): the run says so, fails only the cell in flight, goes on; no orphan container', async (t) => {
  if (process.getuid?.() !== 0 || !(await engineInfo())) return skipNeeding(t, 'integration/faults', 'needs root and a running Docker engine')
  const dir = join(mkdtempSync(join(tmpdir(), 'pb-dockerd-')), 'run')
  const run = startRun('pooling', dir, [], 'docker')
  await until('a first row', () => rows(dir).length > 0, 240_000)
  await sleep(2500) // into the next cell
  const pidFile = '/var/run/docker.pid'
  const dockerd = Number(readFileSync(pidFile, 'utf8').trim())
  process.kill(dockerd, 'SIGTERM')
  await until('dockerd to stop', () => !isAlive(dockerd), 60_000)
  const stoppedRows = rows(dir).length
  await sleep(3000)
  await ensureDockerEngine(memoryLogger())
  // The run goes on after the engine is back: a new measured row, valid, or invalid only because
  // other work on a busy machine disturbed its window (a cell that ran, not one that failed).
  const measured = (r: { status: string; reason: string }) =>
    r.status === 'valid' || (r.status === 'invalid' && r.reason.split('; ').every((part) => part.startsWith('disturbed:')))
  await until('a measured row after the restart', () => rows(dir).slice(stoppedRows).some(measured), 180_000)
  run.child.kill('SIGTERM')
  assert.equal(await run.exit, 143, run.output())
  assert.match(run.output(), /docker: the engine does not answer; waiting up to \d+ s/)
  assert.match(run.output(), /docker: the engine answers again; the run goes on/)
  // Windows disturbed by the engine's own restart are invalid and measured again: not failures of a cell.
  const failed = rows(dir).filter((r) => r.status !== 'valid' && r.reason.split('; ').some((part) => !part.startsWith('disturbed:')))
  assert.ok(failed.length <= 2, failed.map((r) => `${r.variant}: ${r.reason}`).join('\n'))
  const ps = spawnSync('docker', ['ps', '-a', '-q', '--filter', `label=proxybench.run=${readManifest(dir)!.run_id}-${run.child.pid}`], { encoding: 'utf8' })
  assert.equal(ps.stdout.trim(), '', 'no container of the run left')
  assert.ok(!existsSync(join(certsDir, `.docker-${run.child.pid}`)), 'no key copies left')
})
