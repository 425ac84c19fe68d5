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
test("each kernel's processes: another's by its reader, this one's here; the harness's own on each (this process, the readers, the roles)", async () => {
  const topology = parseInlineHosts('proxy=ssh://h1 backend=ssh://h1 generator=unix:///var/run/docker.sock', { HOME: '/nonexistent' })
  const clients = new Map(topologyHosts(topology).map((h) => [h, new Docker({ socketPath: '/nonexistent' })]))
  const rt = new MultiHostRuntime('processes', topology, { clients })
  const remote = [proc(1, 0, 'systemd'), proc(7, 1, 'mawk'), proc(40, 1, 'pb-neighbour'), proc(41, 1, 'haproxy')]
  const reader = { boot: 'another-boot', pid: 7, broken: null, processes: async () => new Map(remote.map((p) => [p.pid, p])) }
  for (const h of rt.hosts) {
    if (h.host.protocol !== 'ssh') continue
    Object.assign(h.runtime, { reader, resolveImage: () => ({ image: 'backend', argv: [], env: {} }), startReader: async () => {} })
  }
  assert.deepEqual(await rt.startReaders({ proxy: '1', backend: '0', generator: '0' }), [])
  const role = (name: 'proxy' | 'generator', pid: number) => ({ pid, spec: { role: name, name } }) as unknown as RunningRole
  const kernels = await rt.processes([role('proxy', 41), role('generator', 12345)])

  const [far, here] = [rt.kernelOf('proxy'), rt.kernelOf('generator')]
  assert.notEqual(far, here)
  assert.deepEqual([...kernels[far]!.procs.values()], remote, "the other kernel's, as its reader listed them")
  assert.deepEqual(kernels[far]!.own, [7, 41], 'its reader and the proxy')
  assert.equal(kernels[here]!.procs.get(process.pid)?.command, readProcesses().get(process.pid)?.command, "this machine's, read here")
  assert.deepEqual(kernels[here]!.own, [process.pid, 12345], 'this process and the generator')

  // A reader that stopped answering: its kernel has no processes, the window goes on.
  reader.broken = 'gone' as never
  assert.equal((await rt.processes([]))[far]!.procs.size, 0)
})
