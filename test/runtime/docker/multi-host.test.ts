import assert from 'node:assert/strict'
import { test } from 'node:test'
import Docker from 'dockerode'
import { parseInlineHosts } from '../../../lib/cli/hosts-options.ts'
import { MultiHostRuntime } from '../../../lib/runtime/docker/multi-host.ts'
import { topologyHosts } from '../../../lib/runtime/docker/topology.ts'
import { readProcesses, type ProcessSample } from '../../../lib/runtime/proc.ts'
import type { RunningRole } from '../../../lib/runtime/types.ts'

const proc = (pid: number, ppid: number, command: string): ProcessSample => ({ pid, ppid, command, ticks: 1, cpu: 0, start: 1 })

// Two kernels: the proxy's and backend's host another machine (its reader stands in: the logic around it is tested here,
// the real reader in host-reader.test.ts), the generator's this one.
test("a window's processes on two kernels: each kernel's own, pids apart, the harness's own (this process, the readers, the roles) at theirs", async () => {
  const topology = parseInlineHosts('proxy=ssh://h1 backend=ssh://h1 generator=unix:///var/run/docker.sock', { HOME: '/nonexistent' })
  const clients = new Map(topologyHosts(topology).map((h) => [h, new Docker({ socketPath: '/nonexistent' })]))
  const rt = new MultiHostRuntime('processes', topology, { clients })
  const remote = [proc(1, 0, 'systemd'), proc(7, 1, 'mawk'), proc(40, 1, 'pb-neighbour'), proc(41, 1, 'haproxy'), proc(process.pid, 1, 'other')]
  const reader = { boot: 'another-boot', pid: 7, processes: async () => new Map(remote.map((p) => [p.pid, p])) }
  for (const h of rt.hosts) {
    if (h.host.protocol !== 'ssh') continue
    Object.assign(h.runtime, { reader, resolveImage: () => ({ image: 'backend', argv: [], env: {} }), startReader: async () => {} })
  }
  assert.deepEqual(await rt.startReaders({ proxy: '1', backend: '0', generator: '0' }), [])
  const role = (name: 'proxy' | 'generator', pid: number) => ({ pid, spec: { role: name, name } }) as unknown as RunningRole
  const { procs, own } = await rt.processes([role('proxy', 41), role('generator', 12345)])

  const kernel = rt.kernelOf('proxy')
  const far = [...procs.values()].filter((p) => p.pid > 4 * 1024 * 1024)
  assert.deepEqual(
    far.map((p) => p.command),
    remote.map((p) => p.command),
    "the other kernel's processes, all of them",
  )
  const at = (pid: number) => far.find((p) => p.command === remote.find((r) => r.pid === pid)!.command)!.pid
  assert.equal(procs.get(process.pid)?.command, readProcesses().get(process.pid)?.command, "this machine's read here")
  assert.notEqual(procs.get(process.pid)?.command, 'other', "a pid of the other kernel never stands for this machine's")
  assert.equal(procs.get(at(7))!.ppid, at(1), 'parents moved with their children')
  assert.deepEqual(own, [process.pid, at(7), at(41), 12345], "this process, the reader, the proxy at its kernel's pids, the generator here")
  assert.equal(kernel, rt.kernelOf('backend'))
  assert.notEqual(kernel, rt.kernelOf('generator'))
  assert.ok(!own.includes(at(40)), 'the neighbour is not the harness')
})
