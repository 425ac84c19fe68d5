import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROFILES } from '../../lib/catalog/profiles.ts'
import { memoryLogger } from '../../lib/core/log.ts'
import { HOST_PID_STRIDE, type MachineSample } from '../../lib/measure/culprits.ts'
import { HOST_CORE_STRIDE } from '../../lib/measure/disturbance.ts'
import { QuietBudget, quietSettings } from '../../lib/run/quiet.ts'
import type { Role, RunningRole, Runtime } from '../../lib/runtime/types.ts'

const cpus = { proxy: '1', backend: '0', generator: '0' }
const profile = PROFILES.smoke!

// The proxy's host is another kernel (1), the backend's and generator's this one (0).
const hosts = {
  generatorElsewhere: true,
  kernelOf: (r: Role) => (r === 'proxy' ? 1 : 0),
  readHosts: async () => ({ kernels: ['here' as const, { stat: 'cpu0 0 0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0 0 0', percpu: null }], ns: [] }),
  processes: async (roles: readonly RunningRole[]) => [
    { procs: new Map(), own: [process.pid] },
    { procs: new Map(), own: roles.map((r) => r.pid) },
  ],
} as unknown as Runtime

test("on several hosts the wait judges each host's own cores, sampled there, the roles the harness's own; on one machine, this one's /proc", async () => {
  const one = quietSettings(profile, cpus)
  assert.deepEqual([one.groups, one.sample], [['1', '0'], undefined])
  const several = quietSettings(profile, cpus, { runtime: hosts })
  assert.deepEqual(several.groups, [String(HOST_CORE_STRIDE + 1), '0'], "the proxy's core on its kernel, the load's on theirs")

  const log = memoryLogger()
  const asked: { roots?: readonly number[] | undefined; sample?: MachineSample }[] = []
  const quiet = new QuietBudget(several, log, undefined, null, async (o) => {
    asked.push({ roots: o.roots, sample: await o.sample!() })
    return { waitedS: 0.5, quiet: true, processes: [] }
  })
  const proxy = { pid: 77, spec: { role: 'proxy', name: 'proxy' } } as unknown as RunningRole
  assert.equal(await quiet.waitForQuiet([proxy]), 0.5)
  assert.deepEqual(asked[0]!.roots, [], "no pid of this machine's stands for another kernel's")
  assert.deepEqual([...asked[0]!.sample!.stat.keys()], [0, 1, HOST_CORE_STRIDE, HOST_CORE_STRIDE + 1], "every kernel's cores")
  assert.deepEqual(asked[0]!.sample!.own, [process.pid, HOST_PID_STRIDE + 77], 'this process here, the proxy at its kernel')

  // A host that cannot be read: the wait is skipped and said, the run goes on.
  const failing = new QuietBudget(several, log, undefined, null, async () => {
    throw new Error('the host reader on ssh://h1 stopped answering: it exited (code 137)')
  })
  assert.equal(await failing.waitForQuiet([proxy]), 0)
  assert.match(log.lines.at(-1)!, /^warning: no wait for quiet: the host reader on ssh:\/\/h1 stopped answering/)
})
