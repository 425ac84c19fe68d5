import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DISTURBED_PREFIX, isDisturbed } from '../../lib/data/precision.ts'
import { cpuIds, disturbance, measuredCores, parseProcStat, rolesOnNs } from '../../lib/measure/disturbance.ts'
import { disturbedReason, MAX_FOREIGN_SHARE, MAX_STEAL_SHARE } from '../../lib/measure/validity.ts'

// /proc/stat of this 2-core machine read 1 s apart while another job kept cpu1 ~85% busy
// (the head of the file, as the kernel writes it).
const A = `cpu  128566 199 54470 215503 1161 0 16558 60 0 0
cpu0 60353 76 28723 114596 245 0 7716 20 0 0
cpu1 69063 123 26496 107285 941 0 9065 40 0 0
intr 6709878 0 0 0
ctxt 17704238
`
const B = `cpu  128700 199 54490 215530 1161 0 16558 60 0 0
cpu0 60416 76 28729 114625 245 0 7716 20 0 0
cpu1 69139 123 26505 107298 941 0 9065 40 0 0
`

test('parseProcStat reads the per-CPU lines only: busy = user+nice+system+irq+softirq+steal, task = user+nice+system, total adds idle and iowait', () => {
  const m = parseProcStat(A)
  assert.deepEqual([...m.keys()], [0, 1])
  assert.deepEqual(m.get(1), { busy: 69063 + 123 + 26496 + 0 + 9065 + 40, task: 69063 + 123 + 26496, steal: 40, total: 69063 + 123 + 26496 + 107285 + 941 + 9065 + 40 })
  // Old kernels print fewer columns (no steal): missing ones are 0.
  assert.deepEqual(parseProcStat('cpu3 10 0 5 100 0 0 1\n').get(3), { busy: 16, task: 15, steal: 0, total: 116 })
  assert.equal(parseProcStat('garbage\n').size, 0)
})

test('cpuIds and the measured cores', () => {
  assert.deepEqual(cpuIds('0-2,5'), [0, 1, 2, 5])
  assert.equal(measuredCores({ proxy: '1', backend: '0' }, true), '1')
  assert.equal(measuredCores({ proxy: '1', backend: '0' }, false), '0')
  // 2 cores: the proxy alone on 1; backend and generator share 0. 1 core: everyone is on the proxy's core.
  assert.equal(rolesOnNs('1', [{ cpus: '1', ns: 5 }, { cpus: '0', ns: 7 }, { cpus: '0', ns: 11 }]), 5)
  assert.equal(rolesOnNs('0', [{ cpus: '0', ns: 5 }, { cpus: '0', ns: 7 }, { cpus: '0-1', ns: 11 }]), 23)
})

test('disturbance: the process ticks not accounted to the roles on those cores, and steal, as shares of the window', () => {
  // Nothing of the bench ran on cpu1: all 85 process ticks of 98 are foreign.
  const d = disturbance(parseProcStat(A), parseProcStat(B), '1', 0)!
  assert.deepEqual(d, { stealShare: 0, foreignShare: Number((85 / 98).toFixed(4)) })
  // The proxy accounts for 0.8 s of the 0.85 s busy: 5 ticks foreign.
  assert.equal(disturbance(parseProcStat(A), parseProcStat(B), '1', 0.8e9)!.foreignShare, Number((5 / 98).toFixed(4)))
  // More role CPU than busy ticks (counter skew): 0, never negative.
  assert.equal(disturbance(parseProcStat(A), parseProcStat(B), '1', 2e9)!.foreignShare, 0)
  // Both cores, steal included.
  const s = disturbance(parseProcStat('cpu0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0\n'), parseProcStat('cpu0 50 0 0 40 0 0 0 10\ncpu1 90 0 0 10 0 0 0 0\n'), '0-1', 1.3e9)!
  assert.deepEqual(s, { stealShare: 0.05, foreignShare: 0.05 })
  // softirq (the proxy's own packets, never in its cgroup) is not foreign.
  assert.equal(disturbance(parseProcStat('cpu1 0 0 0 0 0 0 0 0\n'), parseProcStat('cpu1 60 0 10 0 0 0 30 0\n'), '1', 0.7e9)!.foreignShare, 0)
  assert.equal(disturbance(parseProcStat(A), parseProcStat(B), '7', 0), null, 'a CPU not in /proc/stat')
})

test('the disturbed rule: above either threshold the row says what and where, with the prefix resume and the stop rule look for', () => {
  assert.equal(disturbedReason({ steal_share: 0, foreign_cpu_share: MAX_FOREIGN_SHARE }, 'proxy'), null)
  assert.equal(disturbedReason({ steal_share: MAX_STEAL_SHARE, foreign_cpu_share: 0 }, 'proxy'), null)
  assert.equal(disturbedReason({ steal_share: null, foreign_cpu_share: null }, 'proxy'), null, 'not measured is not disturbed')
  const r = disturbedReason({ steal_share: 0.041, foreign_cpu_share: 0.12 }, 'proxy')!
  assert.equal(r, 'disturbed: steal 4.1% / foreign CPU 12% on the proxy\'s cores')
  assert.ok(r.startsWith(DISTURBED_PREFIX))
  assert.match(disturbedReason({ steal_share: 0, foreign_cpu_share: 0.5 }, 'backend')!, /on the backend's cores$/)
  // The sample above (another job at 85% of the proxy core) is far above the threshold.
  const d = disturbance(parseProcStat(A), parseProcStat(B), '1', 0)!
  assert.ok(disturbedReason({ steal_share: d.stealShare, foreign_cpu_share: d.foreignShare }, 'proxy'))
  assert.equal(isDisturbed({ status: 'invalid', reason: r }), true)
  assert.equal(isDisturbed({ status: 'invalid', reason: 'errors 5.0% >= 1%' }), false)
  assert.equal(isDisturbed({ status: 'valid', reason: r }), false)
})
