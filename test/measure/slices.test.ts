import assert from 'node:assert/strict'
import { test } from 'node:test'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CpuTimes } from '../../lib/measure/disturbance.ts'
import {
  countCleanSlices,
  disturbedShare,
  countedPart,
  countedNote,
  countingSlices,
  extendsWindow,
  extension,
  GUARD_SLICES,
  MAX_EXTENSION,
  MIN_COUNTED_SHARE,
  rampDropped,
  SLICE_S,
  slicesOf,
  slicesRecord,
  startSlicing,
  steadyCost,
  windowReadings,
  type Slice,
  type SliceReading,
} from '../../lib/measure/slices.ts'

// Two cores: the proxy alone on cpu1, backend and generator on cpu0 (the default layout here).
const cpus = { proxy: '1', backend: '0', generator: '0' }
const layout = { cpus, hasProxy: true, severalHosts: false }
const HZ = 100

/**
 * Readings 0.5 s apart of a proxy that is busy `proxyShare` of each slice, with `foreign[i]`
 * of slice i taken by a neighbour on its core; the run time is the root cgroup's (ns).
 */
function readings(foreign: number[], o: { proxyShare?: number; rps?: number; steal?: number[] } = {}): SliceReading[] {
  const { proxyShare = 0.8, rps = 10_000, steal = [] } = o
  const slice = SLICE_S
  const out: SliceReading[] = []
  let proxyNs = 0
  let work = 0
  let run1 = 0
  let total = 0
  let stolen = 0
  const reading = (i: number): SliceReading => {
    const stat = new Map<number, CpuTimes>([
      [0, { busy: 0, task: 0, steal: 0, total: i * slice * HZ, runNs: 0 }],
      [1, { busy: 0, task: 0, steal: stolen, total, runNs: run1 }],
    ])
    return {
      at: BigInt(Math.round(i * slice * 1e9)),
      stat,
      roles: [
        { cpus: '1', ns: proxyNs },
        { cpus: '0', ns: 0 },
        { cpus: '0', ns: 0 },
      ],
      work,
    }
  }
  out.push(reading(0))
  foreign.forEach((f, i) => {
    // A neighbour's share of the core slows the proxy: it serves less, at the same cost per request.
    const share = Math.min(proxyShare, 1 - f)
    proxyNs += share * slice * 1e9
    work += Math.round((rps * slice * share) / proxyShare)
    run1 += (share + f) * slice * 1e9
    total += slice * HZ
    stolen += (steal[i] ?? 0) * slice * HZ
    out.push(reading(i + 1))
  })
  return out
}

/** The window judged whole, as closed.ts judges it: one slice from its first reading to its last. */
const whole = (r: SliceReading[], l = layout) => slicesOf([r[0]!, r.at(-1)!], l)[0]!.disturbance
const counted = (r: SliceReading[], l = layout) => countCleanSlices(slicesOf(r, l), whole(r, l))
/** The readings with no core read (a host's reader gone on several hosts): nothing can be judged. */
const noCores = (r: SliceReading[]) => r.map((x) => ({ ...x, stat: new Map<number, CpuTimes>() }))

test('a window with no disturbed slice is counted whole (countCleanSlices: null)', () => {
  const r = readings([0, 0.02, 0, 0.05])
  const s = slicesOf(r, layout)
  assert.equal(s.length, 4)
  assert.ok(s.every((x) => x.clean))
  assert.equal(countCleanSlices(s, whole(r)), null)
})

test('a slice over the thresholds in a window that is not disturbed as a whole: counted whole, as before slices', () => {
  // One slice of ten at 30% (the counters attaching, say): 3% over the window, under its threshold.
  const r = readings([0, 0, 0, 0.3, 0, 0, 0, 0, 0, 0])
  assert.equal(slicesOf(r, layout).filter((x) => !x.clean).length, 1)
  assert.equal(counted(r), null)
})

test('a burst in two of four slices: the clean two are counted, their CPU over their requests', () => {
  const r = readings([0, 0.6, 0.6, 0])
  assert.deepEqual(
    slicesOf(r, layout).map((x) => x.clean),
    [true, false, false, true],
  )
  const c = counted(r)!
  assert.equal(c.share, 0.5)
  assert.equal(c.seconds, 1)
  assert.equal(c.work, 10_000)
  assert.equal(c.rolesNs[0], 0.8e9)
  // The counted part states its own disturbance: the clean slices' (none here).
  assert.deepEqual(c.disturbance, { stealShare: 0, foreignShare: 0, loadForeignShare: 0 })
  assert.match(countedNote(c), /^counted 1\.0 of 2\.0 s \(2 of 4 slices\): the others disturbed \(foreign CPU up to 60%, steal up to 0\.0%\)$/)
  const record = slicesRecord(c.slices, c)
  assert.equal(record.counted_share, 0.5)
  assert.equal(record.slices.length, 4)
  assert.deepEqual(
    record.slices.map((x) => x.clean),
    [true, false, false, true],
  )
  assert.deepEqual(
    record.slices.map((x) => x.counted),
    [true, false, false, true],
  )
})

test(`the guard band: the ${GUARD_SLICES} clean-looking slices after a disturbed one are dropped too (docs/lab-notes/2026-12-05-guard-band.md)`, () => {
  const s = slicesOf(readings([0, 0.6, 0, 0, 0, 0.6, 0, 0]), layout)
  const clean = s.map((x) => x.clean)
  assert.deepEqual(clean, [true, false, true, true, true, false, true, true])
  // The band as chosen: GUARD_SLICES after each disturbed slice, never before one.
  assert.deepEqual(
    countingSlices(s),
    clean.map((c, i) => c && [1, 5].every((d) => i <= d || i > d + GUARD_SLICES)),
  )
  assert.deepEqual(countingSlices(s, 0), clean)
  assert.deepEqual(countingSlices(s, 1), [true, false, false, true, true, false, false, true])
  assert.deepEqual(countingSlices(s, 2), [true, false, false, false, true, false, false, false])
  // A disturbed slice inside the band starts the band again.
  const twice = slicesOf(readings([0.6, 0, 0.6, 0, 0]), layout)
  assert.deepEqual(countingSlices(twice, 1), [false, false, false, false, true])
})

test('a guard band counts only the slices outside it, says so, and can leave too little to count', () => {
  const r = readings([0.9, 0, 0, 0, 0, 0])
  const c = countCleanSlices(slicesOf(r, layout), whole(r), { guard: 1 })!
  assert.equal(c.share, 0.6667)
  assert.equal(c.work, 20_000)
  assert.deepEqual(c.counts, [false, false, true, true, true, true])
  assert.match(
    countedNote(c),
    /^counted 2\.0 of 3\.0 s \(4 of 6 slices\): the others disturbed \(foreign CPU up to 90%, steal up to 0\.0%\), or 1 in the guard band after one$/,
  )
  assert.deepEqual(
    slicesRecord(c.slices, c).slices.map((x) => [x.clean, x.counted]),
    [
      [false, false],
      [true, false],
      [true, true],
      [true, true],
      [true, true],
      [true, true],
    ],
  )
  // Half clean, but the band takes one: under MIN_COUNTED_SHARE, so judged whole (disturbed).
  const half = readings([0, 0.6, 0.6, 0, 0, 0.6])
  assert.ok(countCleanSlices(slicesOf(half, layout), whole(half), { guard: 0 }))
  assert.equal(countCleanSlices(slicesOf(half, layout), whole(half), { guard: 1 }), null)
})

test('steal disturbs a slice as it does a window', () => {
  const c = counted(readings([0, 0, 0, 0], { steal: [0, 0.3, 0, 0] }))!
  assert.equal(c.share, 0.75)
  assert.match(countedNote(c), /steal up to 30\.0%/)
})

test(`clean slices under ${MIN_COUNTED_SHARE} of the window: not counted (the window is judged whole, and disturbed)`, () => {
  assert.equal(counted(readings([0, 0.6, 0.6, 0.6])), null)
  assert.equal(counted(readings([0.6, 0.6])), null)
  // Its slices are kept all the same, the share counted null: the choice can be checked.
  const r = readings([0, 0.6, 0.6, 0.6])
  const record = slicesRecord(slicesOf(r, layout), counted(r))
  assert.equal(record.counted_share, null)
  assert.deepEqual(
    record.slices.map((x) => x.clean),
    [true, false, false, false],
  )
})

test("a slice that cannot be judged (no core read: a host's reader gone) leaves the window whole", () => {
  const r = readings([0, 0.6, 0, 0])
  const s = slicesOf(noCores(r), layout)
  assert.ok(s.every((x) => x.disturbance === null && !x.clean))
  assert.equal(counted(noCores(r)), null)
  // Several hosts whose cores were read are judged as one machine is.
  assert.ok(counted(r, { ...layout, severalHosts: true }))
  // Even beside a window judged disturbed: one unjudged slice and nothing is counted from slices.
  assert.ok(counted(r), 'judged on one host, the window is counted from its clean slices')
  const oneUnjudged = slicesOf(r, layout).map((x, i) => (i === 0 ? { ...x, disturbance: null, clean: false } : x))
  assert.equal(countCleanSlices(oneUnjudged, whole(r)), null)
})

test('an extended window counts its clean slices against the planned window, not its own length', () => {
  // 2 s planned, extended to 3.5 s: 1.5 s clean is under the window, over half of it.
  const r = readings([0.6, 0.6, 0.6, 0, 0, 0.6, 0])
  assert.equal(countCleanSlices(slicesOf(r, layout), whole(r)), null, 'under half of its own 3.5 s')
  const c = countCleanSlices(slicesOf(r, layout), whole(r), { windowS: 2 })!
  assert.equal(c.seconds, 1.5)
  assert.equal(c.share, 0.4286)
  const short = readings([0.6, 0.6, 0.6, 0.6, 0, 0.6, 0.6])
  assert.equal(countCleanSlices(slicesOf(short, layout), whole(short), { windowS: 2 }), null, '0.5 s clean: under half the window')
})

test(`a window disturbed as a whole extends itself until its clean time reaches the window, up to ${1 + MAX_EXTENSION}× its length`, () => {
  const o = { ...layout, windowS: 2 }
  // Quiet: ends on time. A blip slice in a window under the thresholds as a whole: ends on time too.
  assert.equal(extendsWindow(readings([0, 0, 0, 0]), o), false)
  assert.equal(extendsWindow(readings([0, 0, 0.3, 0]), o), false, 'a blip the window absorbs')
  // Disturbed as a whole, 1 s clean of 2: goes on.
  assert.equal(extendsWindow(readings([0.6, 0.6, 0, 0]), o), true)
  // Clean time reached the window: ends.
  assert.equal(extendsWindow(readings([0.6, 0.6, 0, 0, 0, 0]), o), false)
  // At the bound: ends, whatever it lacks.
  assert.equal(extendsWindow(readings([0.6, 0.6, 0.6, 0, 0, 0, 0.6, 0.6]), o), false)
  // Can no longer reach half the window even if all that is left is clean: ends (it is redone).
  assert.equal(extendsWindow(readings([0.6, 0.6, 0.6, 0.6, 0.6]), o), true, '1.5 s left, 1 s needed')
  assert.equal(extendsWindow(readings([0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]), o), false, '0.5 s left, 1 s needed')
  // A window that cannot be judged (no core read: a host's reader gone) is not extended; several hosts read are.
  assert.equal(extendsWindow(noCores(readings([0.6, 0.6, 0, 0])), o), false)
  assert.equal(extendsWindow(readings([0.6, 0.6, 0, 0]), { ...o, severalHosts: true }), true)
})

test('startSlicing shows the readings taken so far', async () => {
  let n = 0
  const slicing = startSlicing(async () => ({ at: BigInt(++n), stat: new Map(), roles: [], work: n }))
  await new Promise((r) => setTimeout(r, SLICE_S * 1000 * 2.5))
  const sofar = slicing.readings.length
  const { readings: all } = await slicing.stop()
  assert.ok(sofar >= 1 && sofar <= all.length, `${sofar} of ${all.length}`)
})

test('startSlicing.stop waits a slice at most for a reading under way: a slow one does not move the window end', async () => {
  const slicing = startSlicing(() => new Promise<SliceReading>(() => {}))
  await new Promise((r) => setTimeout(r, SLICE_S * 1000 * 1.5))
  const t0 = Date.now()
  const { readings: got, reads } = await slicing.stop()
  assert.ok(Date.now() - t0 < SLICE_S * 1000 * 3, `${Date.now() - t0} ms`)
  assert.deepEqual([got.length, reads], [0, 1])
})

test('windowReadings drops a reading closer than half a slice to the end, and any before the start', () => {
  const r = readings([0, 0, 0])
  const end = { ...r[3]!, at: r[2]!.at + BigInt(Math.round((SLICE_S / 4) * 1e9)) }
  assert.deepEqual(
    windowReadings(r[0]!, [r[0]!, r[1]!, r[2]!], end).map((x) => x.at),
    [r[0]!.at, r[1]!.at, end.at],
  )
})

test('startSlicing reads every slice until stopped, and counts every read (each opens a backend connection)', async () => {
  let n = 0
  const s = startSlicing(async () => ({ ...readings([])[0]!, work: ++n }))
  await new Promise((r) => setTimeout(r, SLICE_S * 1000 * 2.5))
  const { readings: got, reads } = await s.stop()
  assert.ok(got.length >= 1 && got.length <= 3, `${got.length} readings`)
  assert.ok(reads >= got.length)
  // A read that fails ends the sampling; what was read stays.
  let calls = 0
  const failing = startSlicing(async () => {
    if (++calls > 1) throw new Error('backend gone')
    return readings([])[0]!
  })
  await new Promise((r) => setTimeout(r, SLICE_S * 1000 * 3.5))
  const out = await failing.stop()
  assert.equal(out.readings.length, 1)
  assert.equal(out.reads, 2)
})

// A run with no warm-up cut off: its first slice holds the ramp (10× dearer per unit here).
const slice = (work: number, proxyNs: number, foreign = 0): Slice => ({
  seconds: 0.5,
  work,
  rolesNs: [proxyNs],
  disturbance: { stealShare: 0, foreignShare: foreign, loadForeignShare: 0 },
  clean: foreign === 0,
})
const disturbedWhole = { stealShare: 0, foreignShare: 0.4, loadForeignShare: 0 }
const keep = () => join(mkdtempSync(join(tmpdir(), 'pb-slices-')), 'x.slices.json')

test('a run with a ramp counts as a quiet run would: its disturbed slices at the clean steady cost per unit, the ramp spread over all the work', () => {
  // Quiet, the run costs 100e6 (ramp) + 4 × 100e6 over 4100 units; the neighbour tripled the cost of the last two slices.
  const slices = [slice(100, 100e6), slice(1000, 100e6), slice(1000, 100e6), slice(1000, 300e6, 0.6), slice(1000, 300e6, 0.6)]
  const run = { seconds: 2.5, ns: [900e6], work: 4100 }
  const ramp = countedPart(keep(), slices, disturbedWhole, run, { ramp: true })
  assert.ok(ramp.counted)
  assert.equal(ramp.workShare, 1)
  assert.equal(ramp.seconds, 2.5)
  assert.equal(ramp.ns[0], 500e6)
  assert.deepEqual(steadyCost(ramp.counted), [1e5])
  // Without the ramp rule, the clean slices alone weigh the ramp over half the work: dearer than the quiet run.
  const plain = countedPart(keep(), slices, disturbedWhole, run)
  assert.ok(plain.ns[0]! / plain.work > ramp.ns[0]! / run.work)
})

test("a run with a ramp whose first slice is disturbed drops it: its steady slices count, as a closed window's clean ones do", () => {
  const slices = [slice(100, 300e6, 0.6), slice(1000, 100e6), slice(1000, 100e6), slice(1000, 100e6)]
  const file = keep()
  const part = countedPart(file, slices, disturbedWhole, { seconds: 2, ns: [600e6], work: 3100 }, { ramp: true })
  assert.ok(rampDropped(part.counted))
  assert.deepEqual([part.seconds, part.ns, part.work], [1.5, [300e6], 3000])
  assert.equal(part.workShare, 3000 / 3100, "the generator's whole-run units scaled to the steady slices' work")
  assert.deepEqual(
    JSON.parse(readFileSync(file, 'utf8')).slices.map((s: { counted: boolean }) => s.counted),
    [false, true, true, true],
  )
})

test('a run with a ramp whose steady slices do not suffice is not counted, its first slice disturbed or not', () => {
  // The ramp slice and two more disturbed: 1 s clean of 2.5 planned is under half.
  const slices = [slice(100, 300e6, 0.6), slice(1000, 300e6, 0.6), slice(1000, 300e6, 0.6), slice(1000, 100e6), slice(1000, 100e6)]
  const file = keep()
  const part = countedPart(file, slices, disturbedWhole, { seconds: 2.5, ns: [1100e6], work: 4100 }, { ramp: true, windowS: 2.5 })
  assert.equal(part.counted, null)
  assert.deepEqual(part.ns, [1100e6])
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).counted_share, null, 'the slices are kept, marked not counted')
  // A clean ramp slice with no clean work after it has no steady cost: not counted either.
  const idle = [slice(100, 100e6), slice(0, 0), slice(1000, 300e6, 0.6)]
  assert.equal(countedPart(keep(), idle, disturbedWhole, { seconds: 1.5, ns: [400e6], work: 1100 }, { ramp: true }).counted, null)
})

test("an extended run with a ramp counts as a quiet run of its planned window: the ramp spread over the planned work, not the longer run's", () => {
  // Planned 2 s: ramp 100 units for 100e6, then 1000 units per slice at 1e5 each; extended to 3.5 s, its middle disturbed.
  const slices = [slice(100, 100e6), slice(1000, 100e6), ...Array.from({ length: 3 }, () => slice(1000, 300e6, 0.6)), slice(1000, 100e6), slice(1000, 100e6)]
  const run = { seconds: 3.5, ns: [1300e6], work: 6100 }
  const part = countedPart(keep(), slices, disturbedWhole, run, { ramp: true, windowS: 2, extended: true })
  // The planned window's work: the ramp's 100, then 1.5 s at the steady 2000/s.
  assert.equal(part.seconds, 2)
  assert.equal(part.workShare, 3100 / 6100)
  assert.equal(part.ns[0], 100e6 + 3000 * 1e5)
  // As the quiet 2 s run: (ramp + 3 steady slices) over its 3100 units.
  assert.equal(part.ns[0]! / (run.work * part.workShare), (100e6 + 300e6) / 3100)
  // Not extended, the same slices spread the ramp over the whole run's work.
  const whole = countedPart(keep(), slices, disturbedWhole, run, { ramp: true, windowS: 2 })
  assert.deepEqual([whole.seconds, whole.workShare, whole.ns[0]], [3.5, 1, 100e6 + 6000 * 1e5])
})

test('extension waits a slice at a time while the window extends itself, and stops when its generator has ended', async () => {
  // Disturbed as a whole, 1 s clean of a 2 s window: it goes on. The readings do not move, so the clock bounds it:
  // its first reading 3.5 s ago, the bound (twice the window) is half a slice away.
  const r = readings([0.6, 0.6, 0, 0])
  const at = (ago: number) => process.hrtime.bigint() - BigInt(ago * 1e9)
  const from = (first: SliceReading, rs = r) => rs.slice(1).map((x) => ({ ...x, at: first.at + x.at }))
  const late = { ...r[0]!, at: at(3.5) }
  const t0 = Date.now()
  assert.equal(await extension(late, from(late), layout, 2), true, 'went on until the bound')
  assert.ok(Date.now() - t0 < 3 * SLICE_S * 1000, `${Date.now() - t0} ms`)
  // Its generator ended (going false): it stops, though the window would go on.
  const first = { ...r[0]!, at: at(0) }
  let calls = 0
  const t1 = Date.now()
  assert.equal(await extension(first, from(first), layout, 2, () => ++calls < 3), true)
  assert.ok(Date.now() - t1 < 4 * SLICE_S * 1000, `${Date.now() - t1} ms: two slices`)
  const quiet = readings([0, 0, 0, 0])
  const now = { ...quiet[0]!, at: at(0) }
  assert.equal(await extension(now, from(now, quiet), layout, 2), false, 'quiet: ends on time')
})

test("a window's disturbed share: its time in disturbed slices; none when a slice could not be judged", () => {
  assert.equal(disturbedShare(slicesOf(readings([0, 0, 0, 0]), layout)), 0)
  assert.equal(disturbedShare(slicesOf(readings([0.6, 0, 0, 0.6]), layout)), 0.5)
  assert.equal(disturbedShare(slicesOf(noCores(readings([0.6, 0, 0, 0])), layout)), null)
  assert.equal(disturbedShare([]), null)
})
