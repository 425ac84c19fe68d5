import assert from 'node:assert/strict'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { testNeeding } from '../support/needs.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import {
  cgroupOfPid,
  countingUnavailable,
  involuntaryBetween,
  openCounting,
  parsePerfStat,
  perfStatArgs,
  userShareBetween,
  type RoleCounts,
} from '../../lib/runtime/counts.ts'
import { NativeRuntime } from '../../lib/runtime/native.ts'
import type { RunningRole, Runtime } from '../../lib/runtime/types.ts'
import { ensureGoBuild, goBinaryPath } from '../../lib/setup/gobuild.ts'
import { BASE_IMAGE } from '../../lib/setup/images/names.ts'

const dir = mkdtempSync(join(tmpdir(), 'pb-counts-'))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('perf stat CSV: counts by event, <not counted> is null, other lines skipped', () => {
  const text =
    'Events disabled\nEvents enabled\n1000668,,raw_syscalls:sys_enter,376619305,100.00,,\n440,,context-switches,376619305,100.00,,\n<not counted>,,cpu-migrations,0,100.00,,\n'
  const m = parsePerfStat(text)
  assert.equal(m.get('raw_syscalls:sys_enter'), 1000668)
  assert.equal(m.get('context-switches'), 440)
  assert.equal(m.get('cpu-migrations'), null)
  assert.equal(m.size, 3)
})

test('perf stat arguments: disabled until enabled on fd 3, acknowledged on fd 4, attached to every pid', () => {
  const a = perfStatArgs([12, 34])
  assert.deepEqual(a.slice(a.indexOf('-p')), ['-p', '12,34'])
  assert.ok(a.includes('-D') && a[a.indexOf('-D') + 1] === '-1')
  assert.equal(a[a.indexOf('--control') + 1], 'fd:3,4')
})

test('user share: the tick-sampled split between two readings; null when nothing was sampled or a reading is missing', () => {
  assert.equal(userShareBetween({ user: 100, sys: 300 }, { user: 400, sys: 1200 }), 0.25)
  assert.equal(userShareBetween({ user: 5, sys: 5 }, { user: 5, sys: 5 }), null)
  assert.equal(userShareBetween(null, { user: 1, sys: 1 }), null)
})

test('involuntary switches: summed over the threads alive at both readings', () => {
  const a = new Map([
    [1, { voluntary: 0, involuntary: 10 }],
    [2, { voluntary: 0, involuntary: 5 }],
  ])
  const b = new Map([
    [1, { voluntary: 9, involuntary: 17 }],
    [3, { voluntary: 0, involuntary: 99 }],
  ])
  assert.equal(involuntaryBetween(a, b), 7)
  assert.equal(involuntaryBetween(new Map(), b), null)
})

test('cgroup of a pid: v1 cpuacct directory, else v2', () => {
  const root = mkdtempSync(join(tmpdir(), 'pb-cg-'))
  mkdirSync(join(root, 'proc', '7'), { recursive: true })
  writeFileSync(join(root, 'proc', '7', 'cgroup'), '3:cpuset:/\n2:cpuacct:/proxybench/r/proxy-x\n0::/\n')
  mkdirSync(join(root, 'cg', 'cpuacct', 'proxybench', 'r', 'proxy-x'), { recursive: true })
  writeFileSync(join(root, 'cg', 'cpuacct', 'proxybench', 'r', 'proxy-x', 'cpuacct.usage'), '1\n')
  assert.deepEqual(cgroupOfPid(7, join(root, 'proc'), join(root, 'cg')), { dir: join(root, 'cg', 'cpuacct', 'proxybench', 'r', 'proxy-x'), v2: false })
  writeFileSync(join(root, 'proc', '7', 'cgroup'), '0::/a/b\n')
  mkdirSync(join(root, 'cg', 'a', 'b'), { recursive: true })
  writeFileSync(join(root, 'cg', 'a', 'b', 'cpu.stat'), 'usage_usec 1\n')
  assert.deepEqual(cgroupOfPid(7, join(root, 'proc'), join(root, 'cg')), { dir: join(root, 'cg', 'a', 'b'), v2: true })
  assert.equal(cgroupOfPid(8, join(root, 'proc'), join(root, 'cg')), null)
})

test('counting off or impossible: every role reads a reason, no counts', async () => {
  const role = { spec: { role: 'proxy', name: 'p', argv: [], cpus: '0', logFile: '' }, pid: 1, exited: new Promise(() => {}) } as RunningRole
  const off = await openCounting({ kind: 'native' } as Runtime, [role], { enabled: false })
  await off.begin()
  await off.end()
  assert.deepEqual((await off.read()).get(role), { ok: false, reason: 'counting switched off (--no-counts)' })
  if (await countingUnavailable()) return
  // A runtime that cannot say where its roles run (no countingGroup): a reason, not a guess.
  const blind = await openCounting({ kind: 'docker' } as Runtime, [role])
  await blind.begin()
  await blind.end()
  const r = (await blind.read()).get(role)!
  assert.equal(r.ok, false)
  assert.match((r as { reason: string }).reason, /cannot say where/)
  const remote = await openCounting(
    { kind: 'docker', countingGroup: () => "proxy runs on ssh://h, another host's kernel: counts need perf there" } as unknown as Runtime,
    [role],
  )
  assert.match(((await remote.read()).get(role) as { reason: string }).reason, /another host/)
})

/** Counts a role running `loadgen syscalls -n N` (a wait before and after the loop): the window brackets the whole loop. */
async function countKnownLoop(
  rt: Runtime,
  n: number,
  extra: Partial<Parameters<Runtime['start']>[0]> = {},
  binary = goBinaryPath('loadgen'),
): Promise<RoleCounts> {
  const log = join(dir, `loop-${rt.kind}-${n}.log`)
  const role = await rt.start({
    role: 'proxy',
    name: `loop-${n}`,
    argv: [binary, 'syscalls', '-n', String(n), '-delay', '1500ms', '-linger', '3s'],
    cpus: '0',
    logFile: log,
    ...extra,
  })
  try {
    await sleep(300)
    const w = await openCounting(rt, [role], { perfCpus: '1' })
    await w.begin()
    // The loop prints its result when done; the role then lingers inside the window.
    for (let i = 0; i < 600 && !(existsSync(log) && readFileSync(log, 'utf8').includes('"kind":"syscalls"')); i++) await sleep(50)
    assert.match(readFileSync(log, 'utf8'), /"kind":"syscalls"/, 'the loop finished inside the window')
    await w.end()
    return (await w.read()).get(role)!
  } finally {
    await rt.stop(role)
  }
}

const unavailable = await countingUnavailable()
testNeeding(
  'native: a loop of N getppid calls counts N ±1% system calls; user/system split and switches read',
  { id: 'runtime/counts', missing: unavailable ?? false, timeout: 120_000 },
  async () => {
    assert.equal((await ensureGoBuild('loadgen')).error, undefined)
    const rt = new NativeRuntime(`test-${process.pid}-counts`)
    try {
      for (const n of [200_000, 1_000_000]) {
        const c = await countKnownLoop(rt, n)
        assert.ok(c.ok, JSON.stringify(c))
        if (!c.ok) return
        assert.ok(Math.abs(c.syscalls - n) <= n * 0.01, `counted ${c.syscalls} system calls for a loop of ${n}`)
        assert.ok(c.contextSwitches >= 1, 'the role slept and woke: at least one switch')
        // getppid is kernel work: most of the loop's CPU is system time (the split is sampled at the tick).
        if (c.userShare !== null) assert.ok(c.userShare < 0.9, `user share ${c.userShare}`)
        assert.ok(c.involuntarySwitches === null || c.involuntarySwitches >= 0)
      }
    } finally {
      await rt.stopAll()
    }
  },
)

let dockerSkip: string | false = unavailable ?? false
let docker: typeof import('../../lib/runtime/docker/runtime.ts') | undefined
if (!dockerSkip) {
  try {
    const { ensureDockerEngine } = await import('../../lib/setup/docker-engine.ts')
    await ensureDockerEngine(memoryLogger())
    docker = await import('../../lib/runtime/docker/runtime.ts')
  } catch (e) {
    dockerSkip = `no Docker engine: ${(e as Error).message}`
  }
}

testNeeding(
  "docker: the same loop in a container counts N ±1% (the container's cgroup)",
  { id: 'runtime/counts-docker', missing: dockerSkip, timeout: 180_000 },
  async () => {
    assert.equal((await ensureGoBuild('loadgen')).error, undefined)
    const rt = new docker!.DockerRuntime(`test-${process.pid}-counts`)
    try {
      const n = 500_000
      // The base image and the loop binary of these sources, mounted from the host in the role's working directory (mounted), where the container's user may run it.
      const shared = mkdtempSync(join(tmpdir(), 'pb-counts-bin-'))
      chmodSync(shared, 0o755)
      copyFileSync(goBinaryPath('loadgen'), join(shared, 'loadgen'))
      chmodSync(join(shared, 'loadgen'), 0o755)
      const c = await countKnownLoop(rt, n, { image: BASE_IMAGE, cwd: shared }, join(shared, 'loadgen'))
      assert.ok(c.ok, JSON.stringify(c))
      if (!c.ok) return
      assert.ok(Math.abs(c.syscalls - n) <= n * 0.01, `counted ${c.syscalls} system calls for a loop of ${n}`)
    } finally {
      await rt.stopAll()
    }
  },
)
