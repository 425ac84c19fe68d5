import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DISTURBED_PREFIX, isDisturbed } from '../../lib/data/precision.ts'
import {
  coresOutside,
  cpuIds,
  disturbance,
  disturbanceColumns,
  HOST_CORE_STRIDE,
  hostCores,
  hostsCpuTimes,
  measuredCores,
  parseProcStat,
  parseUsagePerCpu,
  readCpuTimes,
  rolesOnNs,
  rootPerCpuFile,
  windowDisturbance,
  type CpuTimes,
} from '../../lib/measure/disturbance.ts'
import { irqAccountingFromConfig } from '../../lib/setup/fingerprint.ts'
import { disturbedReason, MAX_FOREIGN_SHARE, MAX_STEAL_SHARE } from '../../lib/measure/validity.ts'
import { sliceLayout } from '../../lib/measure/slices.ts'

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
  assert.deepEqual(m.get(1), {
    busy: 69063 + 123 + 26496 + 0 + 9065 + 40,
    task: 69063 + 123 + 26496,
    steal: 40,
    total: 69063 + 123 + 26496 + 107285 + 941 + 9065 + 40,
  })
  // Old kernels print fewer columns (no steal): missing ones are 0.
  assert.deepEqual(parseProcStat('cpu3 10 0 5 100 0 0 1\n').get(3), { busy: 16, task: 15, steal: 0, total: 116 })
  assert.equal(parseProcStat('garbage\n').size, 0)
})

test('cpuIds and the measured cores', () => {
  assert.deepEqual(cpuIds('0-2,5'), [0, 1, 2, 5])
  assert.equal(measuredCores({ proxy: '1', backend: '0' }, true), '1')
  assert.equal(measuredCores({ proxy: '1', backend: '0' }, false), '0')
  // 2 cores: the proxy alone on 1; backend and generator share 0. 1 core: everyone is on the proxy's core.
  assert.equal(
    rolesOnNs('1', [
      { cpus: '1', ns: 5 },
      { cpus: '0', ns: 7 },
      { cpus: '0', ns: 11 },
    ]),
    5,
  )
  assert.equal(
    rolesOnNs('0', [
      { cpus: '0', ns: 5 },
      { cpus: '0', ns: 7 },
      { cpus: '0-1', ns: 11 },
    ]),
    23,
  )
  // The load cores: the generator's and backend's outside the measured ones.
  assert.equal(coresOutside('0,0', '1'), '0')
  assert.equal(coresOutside('2-5,4-5', '0-1'), '2,3,4,5')
  assert.equal(coresOutside('0,0', '0'), '')
})

test('disturbance: the process ticks not accounted to the roles on those cores, and steal, as shares of the window', () => {
  // Nothing of the bench ran on cpu1: all 85 process ticks of 98 are foreign.
  const d = disturbance(parseProcStat(A), parseProcStat(B), '1', 0, 'separate')!
  assert.deepEqual(d, { stealShare: 0, foreignShare: Number((85 / 98).toFixed(4)) })
  // The proxy accounts for 0.8 s of the 0.85 s busy: 5 ticks foreign.
  assert.equal(disturbance(parseProcStat(A), parseProcStat(B), '1', 0.8e9, 'separate')!.foreignShare, Number((5 / 98).toFixed(4)))
  // More role CPU than busy ticks (counter skew): 0, never negative.
  assert.equal(disturbance(parseProcStat(A), parseProcStat(B), '1', 2e9, 'separate')!.foreignShare, 0)
  // Both cores, steal included.
  const s = disturbance(
    parseProcStat('cpu0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0\n'),
    parseProcStat('cpu0 50 0 0 40 0 0 0 10\ncpu1 90 0 0 10 0 0 0 0\n'),
    '0-1',
    1.3e9,
    'separate',
  )!
  assert.deepEqual(s, { stealShare: 0.05, foreignShare: 0.05 })
  // On a kernel with IRQ time accounting, softirq (the proxy's own packets, never in its cgroup) is not foreign.
  assert.equal(disturbance(parseProcStat('cpu1 0 0 0 0 0 0 0 0\n'), parseProcStat('cpu1 60 0 10 0 0 0 30 0\n'), '1', 0.7e9, 'separate')!.foreignShare, 0)
  assert.equal(disturbance(parseProcStat(A), parseProcStat(B), '7', 0, 'separate'), null, 'a CPU not in /proc/stat')
})

test('the disturbed rule: above either threshold the row says what and where, with the prefix resume and the stop rule look for', () => {
  assert.equal(disturbedReason({ steal_share: 0, foreign_cpu_share: MAX_FOREIGN_SHARE }, 'proxy'), null)
  assert.equal(disturbedReason({ steal_share: MAX_STEAL_SHARE, foreign_cpu_share: 0 }, 'proxy'), null)
  assert.equal(disturbedReason({ steal_share: null, foreign_cpu_share: null }, 'proxy'), null, 'not measured is not disturbed')
  const r = disturbedReason({ steal_share: 0.041, foreign_cpu_share: 0.12 }, 'proxy')!
  assert.equal(r, "disturbed: steal 4.1% / foreign CPU 12% on the proxy's cores")
  assert.ok(r.startsWith(DISTURBED_PREFIX))
  assert.match(disturbedReason({ steal_share: 0, foreign_cpu_share: 0.5 }, 'backend')!, /on the backend's cores$/)
  // A neighbour on the generator's and backend's cores slows the load: disturbed too, and said where.
  assert.equal(disturbedReason({ steal_share: 0, foreign_cpu_share: 0.01, load_foreign_cpu_share: MAX_FOREIGN_SHARE }, 'proxy'), null)
  assert.equal(
    disturbedReason({ steal_share: 0, foreign_cpu_share: 0.01, load_foreign_cpu_share: 0.3 }, 'proxy'),
    "disturbed: steal 0.0% / foreign CPU 1% on the proxy's cores, 30% on the generator's and backend's",
  )
  // The sample above (another job at 85% of the proxy core) is far above the threshold.
  const d = disturbance(parseProcStat(A), parseProcStat(B), '1', 0, 'separate')!
  assert.ok(disturbedReason({ steal_share: d.stealShare, foreign_cpu_share: d.foreignShare }, 'proxy'))
  assert.equal(isDisturbed({ status: 'invalid', reason: r }), true)
  assert.equal(isDisturbed({ status: 'invalid', reason: 'errors 5.0% >= 1%' }), false)
  assert.equal(isDisturbed({ status: 'valid', reason: r }), false)
})

test('the kernel config says how irq time is accounted: apart (separate) or charged to the interrupted task', () => {
  assert.equal(irqAccountingFromConfig('CONFIG_HZ=250\nCONFIG_IRQ_TIME_ACCOUNTING=y\n'), 'separate')
  // This machine's 6.18 kernel (/proc/config.gz).
  assert.equal(irqAccountingFromConfig('# CONFIG_IRQ_TIME_ACCOUNTING is not set\nCONFIG_HAVE_IRQ_TIME_ACCOUNTING=y\n'), 'charged')
  // An architecture without the option: always charged.
  assert.equal(irqAccountingFromConfig('CONFIG_HZ=100\n'), 'charged')
  assert.equal(irqAccountingFromConfig('not a config'), null)
})

// 10 s windows of cpu1 (1000 ticks), shaped like this machine's (irq time charged to tasks).
// QUIET: the proxy's cgroup counted 9.0 s, /proc/stat gave 700 user+system and 200 softirq
// ticks. BUSY: a neighbour took 150 user ticks; the proxy's cgroup counted 7.5 s (600 ticks
// of its own and the 150 softirq ticks of its packets).
const Z = 'cpu1 0 0 0 0 0 0 0 0\n'
const QUIET = 'cpu1 500 0 200 100 0 0 200 0\n'
const BUSY = 'cpu1 550 0 200 100 0 0 150 0\n'

test('foreign CPU where the kernel charges irq time to tasks: softirq is counted, so a neighbour the cgroup overshoot hid shows', () => {
  const z = parseProcStat(Z)
  // Task ticks alone (700) fall 200 short of the cgroup (900): a neighbour of up to 20% reads 0.
  assert.equal(disturbance(z, parseProcStat(QUIET), '1', 9e9, 'separate')!.foreignShare, 0)
  assert.equal(disturbance(z, parseProcStat(BUSY), '1', 7.5e9, 'separate')!.foreignShare, 0, 'the neighbour is hidden by the wrong accounting')
  assert.equal(disturbance(z, parseProcStat(QUIET), '1', 9e9, 'charged')!.foreignShare, 0)
  // busy - steal = 900 ticks, the proxy's counter 750: 150 foreign.
  assert.equal(disturbance(z, parseProcStat(BUSY), '1', 7.5e9, 'charged')!.foreignShare, 0.15)
  // Unknown config: counters above the task ticks by more than tick sampling (3%) mean charged ...
  assert.equal(disturbance(z, parseProcStat('cpu1 500 0 200 0 0 0 300 0\n'), '1', 8.5e9, null)!.foreignShare, 0.15)
  // ... and counters within the task ticks mean separate (softirq not foreign).
  assert.equal(disturbance(z, parseProcStat('cpu1 600 0 100 100 0 0 200 0\n'), '1', 7e9, null)!.foreignShare, 0)
})

test("foreign CPU from the root cgroup's per-CPU run time where there is one: the counters' own clock, whatever the ticks say", () => {
  assert.deepEqual(parseUsagePerCpu('30720185250901 34798313454642 \n'), [30720185250901, 34798313454642])
  assert.equal(parseUsagePerCpu('garbage'), null)
  const withRun = (text: string, ns: number) => new Map([...parseProcStat(text)].map(([c, t]): [number, CpuTimes] => [c, { ...t, runNs: ns }]))
  // Ticks say 650 busy of 1000 (sampling missed the periodic load); the run time says 9.4 s,
  // the roles' counters 9.0 s: 0.4 s of 10 foreign, in either irq accounting.
  const a = withRun(Z, 0)
  const b = withRun('cpu1 400 0 100 350 0 0 150 0\n', 9.4e9)
  assert.equal(disturbance(a, b, '1', 9e9, 'separate')!.foreignShare, 0.04)
  assert.equal(disturbance(a, b, '1', 9e9, 'charged')!.foreignShare, 0.04)
  // One snapshot without it: the ticks decide.
  assert.equal(disturbance(parseProcStat(Z), b, '1', 9e9, 'charged')!.foreignShare, 0)
  // This machine: every CPU of /proc/stat, with run time where the root cgroup has it.
  const here = readCpuTimes()
  assert.ok(here.size >= 1)
  for (const t of here.values()) assert.equal(t.runNs !== undefined && t.runNs > 0, rootPerCpuFile() !== null, JSON.stringify(t))
})

test('windowDisturbance: the measured cores and, apart, the load cores with the roles pinned there', () => {
  // 2 cores: proxy on 1; backend and generator on 0, where a neighbour took 30 of 100 ticks.
  const a = parseProcStat('cpu0 0 0 0 0 0 0 0 0\ncpu1 0 0 0 0 0 0 0 0\n')
  const b = parseProcStat('cpu0 90 0 0 10 0 0 0 0\ncpu1 80 0 0 20 0 0 0 0\n')
  const cpus = { proxy: '1', backend: '0', generator: '0' }
  const roles = [
    { cpus: '1', ns: 0.8e9 },
    { cpus: '0', ns: 0.35e9 },
    { cpus: '0', ns: 0.25e9 },
  ]
  const d = windowDisturbance(a, b, { cpus, hasProxy: true, severalHosts: false }, roles)!
  assert.equal(d.foreignShare, 0)
  assert.equal(d.loadForeignShare, 0.3)
  assert.deepEqual(disturbanceColumns(d), { steal_share: 0, foreign_cpu_share: 0, load_foreign_cpu_share: 0.3, foreign_processes: '' })
  // The direct row measures the backend's core 0; the generator has no other core: no load cores apart.
  assert.equal(windowDisturbance(a, b, { cpus, hasProxy: false, severalHosts: false }, roles)!.loadForeignShare, null)
  // 1 core: everything on it.
  assert.equal(
    windowDisturbance(a, b, { cpus: { proxy: '0', backend: '0', generator: '0' }, hasProxy: true, severalHosts: false }, roles)!.loadForeignShare,
    null,
  )
  // Several hosts read as one kernel (the namespaced test hosts: one boot id): judged as one machine.
  assert.deepEqual(windowDisturbance(a, b, { cpus, hasProxy: true, severalHosts: true }, roles), d)
  assert.deepEqual(disturbanceColumns(null), { steal_share: null, foreign_cpu_share: null, load_foreign_cpu_share: null, foreign_processes: '' })
})

test('several hosts: each kernel judged on its own cores, the same cpuset on two hosts kept apart', () => {
  // The proxy alone on its host's cores 0-1; backend and generator on core 0 of another host, where a neighbour took 30 of 100 ticks.
  const proxyHost = (busy: number, total: number) => ({
    stat: `cpu0 ${busy} 0 0 ${total - busy} 0 0 0 0\ncpu1 ${busy} 0 0 ${total - busy} 0 0 0 0\n`,
    percpu: null,
  })
  const loadHost = (busy: number, total: number) => ({ stat: `cpu0 ${busy} 0 0 ${total - busy} 0 0 0 0\n`, percpu: null })
  const a = hostsCpuTimes([proxyHost(0, 0), loadHost(0, 0)])
  const b = hostsCpuTimes([proxyHost(50, 100), loadHost(90, 100)])
  assert.deepEqual([...b.keys()], [0, 1, HOST_CORE_STRIDE])
  const layout = sliceLayout(
    { cpus: { proxy: '0-1', backend: '0', generator: '0' }, runtime: { generatorElsewhere: true, kernelOf: (r) => (r === 'proxy' ? 0 : 1) } },
    true,
  )
  assert.deepEqual(layout.cpus, { proxy: '0-1', backend: String(HOST_CORE_STRIDE), generator: String(HOST_CORE_STRIDE) })
  const roles = [
    { cpus: layout.cpus.proxy, ns: 1e9 },
    { cpus: layout.cpus.backend, ns: 0.2e9 },
    { cpus: layout.cpus.generator, ns: 0.4e9 },
  ]
  const d = windowDisturbance(a, b, layout, roles)!
  assert.equal(d.foreignShare, 0, "the load host's roles are not subtracted from the proxy host's core 0, nor counted there")
  assert.equal(d.loadForeignShare, 0.3)
  // A host whose cores were not read (its reader gone): not judged.
  assert.equal(windowDisturbance(new Map(), b, layout, roles), null)
  assert.equal(hostCores(2, '0-1,3'), `${2 * HOST_CORE_STRIDE},${2 * HOST_CORE_STRIDE + 1},${2 * HOST_CORE_STRIDE + 3}`)
  assert.equal(hostCores(0, '0-1'), '0-1')
  // A kernel read here is this machine's /proc/stat.
  assert.deepEqual([...hostsCpuTimes(['here']).keys()], [...readCpuTimes().keys()])
})
