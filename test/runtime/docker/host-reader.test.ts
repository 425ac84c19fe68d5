import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { memoryLogger } from '../../../lib/core/log.ts'
import { parseProcStat, parseUsagePerCpu, rootPerCpuFile } from '../../../lib/measure/disturbance.ts'
import { cgroupCpuFile, parseInContainerRead } from '../../../lib/runtime/docker/cgroup.ts'
import { parseReaderAnswer } from '../../../lib/runtime/docker/host-reader.ts'
import { LABEL_RUN } from '../../../lib/runtime/docker/labels.ts'
import { DockerRuntime } from '../../../lib/runtime/docker/runtime.ts'
import { bootId, readProcesses } from '../../../lib/runtime/proc.ts'
import { ensureBaseImage } from '../../../lib/setup/images/base.ts'
import { BASE_IMAGE } from '../../../lib/setup/images/names.ts'
import { dockerClient } from '../../../lib/setup/docker-engine.ts'
import { dockerEngineOrReason } from '../../support/docker-engine.ts'
import { testNeeding } from '../../support/needs.ts'

test('a reader answer: the cpu lines, the per-CPU run time, its own CPU, each pid asked in order (gone: null)', () => {
  const a = parseReaderAnswer(['cpu0 1 2 3 4 5 6 7 8 0 0', 'cpu1 9 9 9 9 9 9 9 9 0 0', 'percpu 100 200 ', 'self ns 5000', 'p 12 us 7', 'p 9 -'], [9, 12, 4])
  assert.equal(a.stat, 'cpu0 1 2 3 4 5 6 7 8 0 0\ncpu1 9 9 9 9 9 9 9 9 0 0')
  assert.equal(a.percpu, '100 200 ')
  assert.equal(a.selfNs, 5000)
  assert.deepEqual(a.ns, [null, 7000, null])
  assert.equal(parseReaderAnswer(['cpu0 1 1 1 1 1 1 1 1 0 0', 'self -'], []).percpu, null, 'cgroup v2: no per-CPU run time')
  assert.throws(() => parseReaderAnswer(['self ns 1'], []), /no \/proc\/stat cpu lines/)
})

// A real reader on this machine's engine, read against this machine's own files.
const { missing } = await dockerEngineOrReason()
const root: string | false = process.getuid?.() === 0 ? false : 'not root: the cgroup files of containers are not readable'
const need = { id: 'runtime/host-reader', missing: missing || root }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Reads the bracket (before, reader, after) of one instant: every counter the reader gave lies between this machine's own reads. */
function between(before: number, got: number, after: number, what: string) {
  assert.ok(before <= got && got <= after, `${what}: ${before} ≤ ${got} ≤ ${after}`)
}

testNeeding(
  "the reader's answers are the host's own files: /proc/stat, the root per-CPU run time, a container's cgroup counter; a reader killed is said, and nothing is left",
  need,
  async () => {
    await ensureBaseImage(memoryLogger())
    const runId = `test-${process.pid}-reader`
    const work = mkdtempSync(join(tmpdir(), 'pb-reader-'))
    const rt = new DockerRuntime(runId, { images: [], cpu: 'exec', engineName: 'docker (test)' })
    try {
      const role = await rt.start({
        role: 'backend',
        name: 'ticker',
        image: BASE_IMAGE,
        argv: ['/bin/sh', '-c', 'while :; do sleep 0.05; done'],
        cpus: '0',
        logFile: join(work, 'ticker.log'),
      })
      await rt.startReader(BASE_IMAGE, '0')
      assert.equal(rt.hostBoot, bootId, "the reader's host is this machine")
      const counter = cgroupCpuFile(role.pid)!
      const ownNs = () =>
        counter.v2 ? Number(/^usage_usec (\d+)/m.exec(readFileSync(counter.path, 'utf8'))![1]) * 1000 : Number(readFileSync(counter.path, 'utf8'))
      const percpuFile = rootPerCpuFile()
      const percpu = () => parseUsagePerCpu(readFileSync(percpuFile!, 'utf8'))!
      for (let i = 0; i < 5; i++) {
        const stat0 = parseProcStat(readFileSync('/proc/stat', 'utf8'))
        const run0 = percpuFile ? percpu() : null
        const ns0 = ownNs()
        const { kernel, ns } = await rt.readHost([role])
        const stat1 = parseProcStat(readFileSync('/proc/stat', 'utf8'))
        const run1 = percpuFile ? percpu() : null
        const ns1 = ownNs()
        assert.notEqual(kernel, 'here')
        if (kernel === 'here') return
        const got = parseProcStat(kernel.stat)
        assert.deepEqual([...got.keys()], [...stat0.keys()], 'every CPU')
        for (const [c, t] of got) {
          for (const k of ['busy', 'task', 'steal', 'total'] as const) between(stat0.get(c)![k], t[k], stat1.get(c)![k], `cpu${c} ${k}`)
        }
        if (run0 && run1) {
          const r = parseUsagePerCpu(kernel.percpu ?? '')!
          for (const [c, v] of r.entries()) between(run0[c]!, v, run1[c]!, `cpu${c} run time`)
        } else assert.equal(kernel.percpu, null)
        between(ns0, ns[0]!, ns1, "the container's cgroup counter")
        assert.ok(ns[0]! > 0)
        // cpuNs goes through the reader too: between the file's reads.
        const a = ownNs()
        const b = await rt.cpuNs(role)
        between(a, b, ownNs(), 'cpuNs by the reader')
        await sleep(100)
      }
      assert.match(rt.cpuSource, /read by the host's reader/)
      const cost = rt.hostReader!.cost!
      assert.ok(cost.reads >= 10 && cost.ns >= 0, JSON.stringify(cost))

      // Every process of the host, as the reader lists them at their host pids: the container's shell, the reader itself, this process.
      const procs = await rt.hostReader!.processes()
      assert.ok(
        [...procs.values()].some((p) => p.ppid === role.pid && p.command === 'sh'),
        "a container's process, its parent the role's init",
      )
      assert.equal(procs.get(rt.hostReader!.pid)?.command, 'mawk', 'the reader itself')
      assert.equal(procs.get(process.pid)?.start, readProcesses().get(process.pid)?.start, 'this process, as /proc here tells it')

      // Killed: the next read rejects saying which reader and why; CPU reads go on by an exec.
      const [reader] = await dockerClient().listContainers({ filters: { label: [`${LABEL_RUN}=${runId}`, 'proxybench.role=reader'] } })
      assert.ok(reader, 'the reader is a labelled container of the run')
      await dockerClient().getContainer(reader.Id).kill()
      await assert.rejects(
        rt.readHost([role]),
        /^Error: the host reader on docker \(test\) stopped answering: (it exited \(code \d+\)|its stream (ended|closed))/,
      )
      assert.ok((await rt.cpuNs(role)) > 0, 'an exec reads it once the reader is gone')
      assert.match(rt.cpuSource, /; by an exec for \d+ reads after the host reader on docker \(test\) stopped answering/)
    } finally {
      await rt.stopAll()
      rmSync(work, { recursive: true, force: true })
    }
    assert.deepEqual(await dockerClient().listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`] } }), [], 'nothing left')
  },
)

testNeeding("the reader's cost at the slice rate: its own container's CPU and its shim's, over 10 s of three reads a second", need, async () => {
  await ensureBaseImage(memoryLogger())
  const runId = `test-${process.pid}-reader-cost`
  const rt = new DockerRuntime(runId, { images: [], cpu: 'exec', engineName: 'docker (test)' })
  try {
    await rt.startReader(BASE_IMAGE)
    const [reader] = await dockerClient().listContainers({ filters: { label: [`${LABEL_RUN}=${runId}`] } })
    // The container's shim (containerd-shim … -id <container>): the engine's side of its stdio on the host.
    const shim = (await dockerClient().getContainer(reader!.Id).inspect()).State.Pid
    const shimPid = Number(readFileSync(`/proc/${shim}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
    const ticks = (pid: number) => {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return Number(f[11]) + Number(f[12])
    }
    await rt.readHost([])
    const t0 = process.hrtime.bigint()
    const shim0 = ticks(shimPid)
    for (let i = 0; i < 30; i++) {
      await rt.readHost([])
      await sleep(1000 / 3)
    }
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9
    const cost = rt.hostReader!.cost!
    const own = cost.ns / 1e9 / seconds
    const shimShare = (ticks(shimPid) - shim0) / 100 / seconds
    console.log(
      `host reader: ${(cost.ns / 1e6).toFixed(1)} ms of CPU in its container over ${seconds.toFixed(1)} s, ${cost.reads} reads: ${(100 * own).toFixed(3)}% of a core; its shim ${(100 * shimShare).toFixed(3)}%`,
    )
    assert.ok(own < 0.01, `under 1% of a core (${(100 * own).toFixed(3)}%)`)
    assert.ok(parseInContainerRead('ns 1') === 1)
  } finally {
    await rt.stopAll()
  }
})
