import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import {
  byCommand,
  coreNamer,
  coresLoad,
  culpritsText,
  foreignLoadByCpu,
  foreignProcesses,
  HOST_PID_STRIDE,
  hostsProcesses,
  lookAtMachine,
  preflightLine,
  processTree,
  sampleNow,
  waitForQuiet,
  withCulprits,
  type MachineSample,
} from '../../lib/measure/culprits.ts'
import { NEIGHBOUR_NAME, startNeighbour } from '../../lib/measure/neighbour.ts'
import { HOST_CORE_STRIDE } from '../../lib/measure/disturbance.ts'
import { readProcesses, type ProcessSample } from '../../lib/runtime/proc.ts'
import { MAX_FOREIGN_SHARE } from '../../lib/measure/validity.ts'

const proc = (pid: number, ppid: number, command: string, ticks: number, cpu = 0, start = pid): ProcessSample => ({ pid, ppid, command, ticks, cpu, start })

test('processTree holds the roots and every descendant, and nothing else', () => {
  const procs = new Map(
    [
      proc(1, 0, 'init', 0),
      proc(10, 1, 'node', 0),
      proc(11, 10, 'wrk', 0),
      proc(12, 11, 'sh', 0),
      proc(20, 1, 'python3', 0),
      proc(30, 1, 'containerd-shim', 0),
      proc(31, 30, 'nginx', 0),
    ].map((p) => [p.pid, p]),
  )
  assert.deepEqual(
    [...processTree(procs, [10, 31])].sort((a, b) => a - b),
    [10, 11, 12, 31],
  )
})

test('foreignProcesses: CPU over the interval as a share of a core, own tree left out, a reused pid counted from zero; culpritsText never holds arguments', () => {
  const a = new Map([proc(10, 1, 'node', 100), proc(20, 1, 'python3', 1000), proc(21, 1, 'cc1', 50), proc(22, 1, 'old', 500)].map((p) => [p.pid, p]))
  const b = new Map(
    [proc(10, 1, 'node', 300), proc(20, 1, 'python3', 1126), proc(21, 1, 'cc1', 60), proc(22, 1, 'new', 40, 0, 999), proc(23, 1, 'cc1', 20)].map((p) => [
      p.pid,
      p,
    ]),
  )
  const f = foreignProcesses(a, b, 2, new Set([10]))
  assert.deepEqual(
    f.map((p) => [p.command, p.share]),
    [
      ['python3', 0.63],
      ['new', 0.2],
      ['cc1', 0.1],
      ['cc1', 0.05],
    ],
  )
  assert.deepEqual(byCommand(f)[1], { command: 'new', share: 0.2 })
  assert.equal(culpritsText(f), 'python3 63%, new 20%, cc1 15%')
  assert.equal(culpritsText(f, 1), 'python3 63%')
  // Separators in a command name cannot break the column apart.
  assert.equal(culpritsText([{ pid: 1, command: 'a, b;c', share: 0.5, cpu: 0 }]), 'a_ b_c 50%')
})

const sample = (at: number, cpus: Record<number, { run: number; total: number }>, procs: ProcessSample[] = []): MachineSample => ({
  at: BigInt(Math.round(at * 1e9)),
  stat: new Map(Object.entries(cpus).map(([c, v]) => [Number(c), { busy: v.run, task: v.run, steal: 0, total: v.total }])),
  procs: new Map(procs.map((p) => [p.pid, p])),
})

test("foreignLoadByCpu: each CPU's run time less the harness's own CPU placed on its last CPU", () => {
  const a = sample(0, { 0: { run: 0, total: 0 }, 1: { run: 0, total: 0 } }, [proc(10, 1, 'node', 0, 1), proc(20, 1, 'python3', 0, 1)])
  const b = sample(1, { 0: { run: 5, total: 100 }, 1: { run: 70, total: 100 } }, [proc(10, 1, 'node', 20, 1), proc(20, 1, 'python3', 50, 1)])
  const load = foreignLoadByCpu(a, b, new Set([10]))
  assert.deepEqual(
    [...load],
    [
      [0, 0.05],
      [1, 0.5],
    ],
  )
  assert.equal(coresLoad(load, '0-1'), 0.275)
  assert.equal(coresLoad(load, '7'), 0)
})

test('waitForQuiet: goes on only once the load stayed under the threshold for the settle time, else at its bound', async () => {
  // Samples 0.5 s apart: loud for the first 2 s on cpu1, quiet after.
  const at = (i: number) => sample(i * 0.5, { 0: { run: 0, total: 50 * i }, 1: { run: i <= 4 ? 40 * i : 160 + 2 * (i - 4), total: 50 * i } })
  let i = 0
  const w = await waitForQuiet({ groups: ['0', '1'], threshold: MAX_FOREIGN_SHARE, settleS: 1, maxS: 30, pollS: 0.001, sample: () => at(i++) })
  // Loud until 2.0 s, then two quiet half-seconds.
  assert.deepEqual([w.quiet, w.waitedS], [true, 3])
  // Only the group judged counts: cpu0 alone was quiet all along.
  i = 0
  assert.equal((await waitForQuiet({ groups: ['0'], threshold: MAX_FOREIGN_SHARE, settleS: 1, maxS: 30, pollS: 0.001, sample: () => at(i++) })).waitedS, 1)
  // Never quiet within the bound: it stops there and says so.
  i = 0
  const loud = (k: number) => sample(k * 0.5, { 0: { run: 40 * k, total: 50 * k } })
  const bounded = await waitForQuiet({ groups: ['0'], threshold: MAX_FOREIGN_SHARE, settleS: 1, maxS: 4, pollS: 0.001, sample: () => loud(i++) })
  assert.deepEqual([bounded.quiet, bounded.waitedS], [false, 4])
})

test("hostsProcesses: each kernel's pids apart and its CPUs in HOST_CORE_STRIDE's numbering; a sample's own are the harness's in the wait", async () => {
  const kernels = [
    { procs: new Map([[5, proc(5, 1, 'node', 10, 1)]]), own: [5] },
    { procs: new Map([proc(5, 1, 'pb-neighbour', 90, 1), proc(6, 1, 'mawk', 50, 0)].map((p) => [p.pid, p])), own: [6] },
  ]
  const { procs, own } = hostsProcesses(kernels)
  assert.deepEqual(
    [...procs.values()].map((p) => [p.pid, p.ppid, p.command, p.cpu]),
    [
      [5, 1, 'node', 1],
      [HOST_PID_STRIDE + 5, HOST_PID_STRIDE + 1, 'pb-neighbour', HOST_CORE_STRIDE + 1],
      [HOST_PID_STRIDE + 6, HOST_PID_STRIDE + 1, 'mawk', HOST_CORE_STRIDE],
    ],
  )
  assert.deepEqual(own, [5, HOST_PID_STRIDE + 6])
  // Waiting on the other host's core: its neighbour loud, its reader (the sample's own) not foreign.
  const core = HOST_CORE_STRIDE + 1
  const at = (i: number, neighbour: number): MachineSample => ({
    ...sample(i, { [core]: { run: neighbour + 5 * i, total: 100 * i } }, [
      proc(HOST_PID_STRIDE + 5, 1, 'pb-neighbour', neighbour, core),
      proc(HOST_PID_STRIDE + 6, 1, 'mawk', 5 * i, core),
    ]),
    own,
  })
  let i = 0
  const next = async () => {
    const s = at(i, 50 * Math.min(i, 3))
    i++
    return s
  }
  const w = await waitForQuiet({ groups: [String(core)], threshold: MAX_FOREIGN_SHARE, settleS: 1, maxS: 10, pollS: 0.001, roots: [], sample: next })
  assert.deepEqual([w.quiet, w.processes.map((p) => p.command)], [true, ['pb-neighbour']])
})

test("the preflight's look on several hosts: every kernel sampled, a core named by its host's roles, pids as their kernel numbers them", async () => {
  const core = HOST_CORE_STRIDE + 1
  const neighbour = (ticks: number) => proc(HOST_PID_STRIDE + 88, HOST_PID_STRIDE + 1, 'pb-neighbour', ticks, core)
  let i = 0
  const samples = [sample(0, { [core]: { run: 0, total: 0 } }, [neighbour(0)]), sample(1, { [core]: { run: 60, total: 100 } }, [neighbour(60)])]
  const look = await lookAtMachine(0.001, { roots: [], sample: async () => samples[i++]! })
  const name = coreNamer({ kernelOf: (r) => (r === 'proxy' ? 1 : 0) })
  assert.equal(name(1), "cpu1 of the backend's and generator's host")
  assert.equal(
    preflightLine(look, `${core},1`, MAX_FOREIGN_SHARE, { where: 'the hosts', coreName: name }),
    "other work on the hosts: pb-neighbour (pid 88) 60% of a core; foreign load cpu1 of the proxy's host 60%; results will take longer",
  )
  assert.equal(coreNamer({})(3), 'cpu3', 'one machine: its own numbers')
})

// ------------------------------------------------------------------ with a real neighbour

/** Whether a pid runs (a zombie waiting to be reaped does not). */
const runs = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

const busyCpu = () => Math.max(0, ...[...sampleNow().stat.keys()])

test("a real neighbour outside the harness's tree is named by the sampler, with its share of a core; the harness's own child is not", {
  timeout: 30_000,
}, async () => {
  const cpu = busyCpu()
  const n = await startNeighbour({ cpu, share: 1, burstS: [5, 5], maxS: 8 })
  // A busy child of the harness itself: its own tree, never a culprit.
  const child = spawn('sh', ['-c', 'end=$(($(date +%s)+3)); while [ $(date +%s) -lt $end ]; do :; done'], { stdio: 'ignore' })
  try {
    const look = await lookAtMachine(1.5)
    const mine = look.processes.find((p) => p.pid === n.pid)
    assert.ok(
      mine,
      `neighbour ${n.pid} not among ${look.processes
        .slice(0, 5)
        .map((p) => `${p.command}/${p.pid}`)
        .join(' ')}`,
    )
    assert.equal(mine.command, NEIGHBOUR_NAME)
    // It spins all along; on a core shared with other work it gets some of it, never more than all.
    assert.ok(mine.share > 0.03 && mine.share < 1.1, `share ${mine.share}`)
    assert.ok(!look.processes.some((p) => p.pid === child.pid), "the harness's own child counted as foreign")
    // The core it spins on is loud; the preflight names it there.
    assert.ok(look.loadByCpu.get(cpu)! > MAX_FOREIGN_SHARE, `cpu${cpu} load ${look.loadByCpu.get(cpu)}`)
    // Other work may take more than it on a shared machine: the line names the top three, the neighbour among them when alone.
    const line = preflightLine({ ...look, processes: [mine] }, String(cpu), MAX_FOREIGN_SHARE)
    assert.match(
      line ?? '',
      new RegExp(`^other work on this machine: ${NEIGHBOUR_NAME} \\(pid ${n.pid}\\) \\d+% of a core; foreign load cpu${cpu} \\d+%; results will take longer$`),
    )
    assert.equal(preflightLine({ ...look, loadByCpu: new Map([[cpu, 0.05]]) }, String(cpu), MAX_FOREIGN_SHARE), null, 'a quiet core: nothing to say')
    // A disturbed window names it in its column; a quiet one names nobody.
    const a = { procs: readProcesses(), own: [process.pid] }
    await new Promise((r) => setTimeout(r, 1000))
    const b = { procs: readProcesses(), own: [process.pid] }
    assert.ok(
      foreignProcesses(a.procs, b.procs, 1, processTree(b.procs, b.own)).some((p) => p.pid === n.pid),
      'the neighbour is foreign over the window',
    )
    const disturbed = withCulprits({ stealShare: 0, foreignShare: 0.5, loadForeignShare: null }, a, b, 1)
    assert.match(disturbed!.culprits!, /^[^,]+ \d+%(, [^,]+ \d+%){0,2}$/)
    assert.equal(withCulprits({ stealShare: 0, foreignShare: 0.01, loadForeignShare: 0 }, a, b, 1)!.culprits, undefined)
  } finally {
    child.kill('SIGKILL')
    await n.stop()
  }
  assert.ok(!runs(n.pid), 'neighbour still running after stop()')
})

test('waitForQuiet never lets a window start while a real neighbour spins on the judged core, and names it', { timeout: 30_000 }, async () => {
  const cpu = busyCpu()
  const n = await startNeighbour({ cpu, share: 1, burstS: [2, 2], maxS: 2 })
  const t0 = Date.now()
  try {
    const w = await waitForQuiet({ groups: [String(cpu)], threshold: 0.5, settleS: 0.5, maxS: 6 })
    const neighbourLeftS = 2 - (Date.now() - t0) / 1000 + w.waitedS
    // Whatever else runs here: it cannot have been quiet before the neighbour ended, plus the settle time.
    assert.ok(w.waitedS >= Math.min(6, 1.5), `waited ${w.waitedS} s (neighbour ran ~${neighbourLeftS.toFixed(1)} s of it)`)
    assert.ok(w.waitedS <= 6 + 1, `waited ${w.waitedS} s beyond its bound`)
    assert.ok(
      w.processes.some((p) => p.pid === n.pid && p.command === NEIGHBOUR_NAME),
      'the neighbour is not among what ran meanwhile',
    )
  } finally {
    await n.stop()
  }
})
