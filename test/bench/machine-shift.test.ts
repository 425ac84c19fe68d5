import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadLedger } from '../../lib/claims/ledger.ts'
import { loadRun } from '../../lib/data/run-data.ts'
import { formatMachineShift, machineShift, type ShiftRun } from '../../lib/bench/machine-shift.ts'
import { FIXTURE_RUN } from '../fixtures/run.ts'

const first = (): ShiftRun => {
  const run = loadRun(FIXTURE_RUN)
  return { name: 'as-is', tables: run, series: run.manifest.series }
}

/** The fixture run on a machine whose every HTTP cost (proxies and the direct row alike) is `http`× and every handshake `hs`×; each window's reference read `ref`× its first reading. */
function shifted(http: number, hs: number, ref: number, extra: Record<string, number> = {}): [ShiftRun, ShiftRun] {
  const a = first()
  const withRef = <T extends object>(rows: T[], metric: string, k: number) =>
    rows.map((r) => {
      const v = (r as Record<string, unknown>)[metric]
      return {
        ...r,
        [metric]: typeof v === 'number' ? v * k : v,
        ...(typeof v === 'number' ? { proxy_cpu_per_reference: (v * k) / (50 * (k === 1 ? 1 : ref)) } : {}),
        ...extra,
      }
    })
  const base = {
    ...a.tables,
    measurements: withRef(
      a.tables.measurements.map((r) => ({ ...r, backend_cpu_us_per_req: r.backend_cpu_us_per_req })),
      'proxy_cpu_us_per_req',
      1,
    ),
    handshakes: withRef(a.tables.handshakes, 'proxy_cpu_us_per_handshake', 1),
  }
  const moved = {
    ...a.tables,
    measurements: withRef(
      a.tables.measurements.map((r) => ({ ...r, backend_cpu_us_per_req: r.backend_cpu_us_per_req === null ? null : r.backend_cpu_us_per_req * http })),
      'proxy_cpu_us_per_req',
      http,
    ),
    handshakes: withRef(a.tables.handshakes, 'proxy_cpu_us_per_handshake', hs),
  }
  return [
    { ...a, tables: base as ShiftRun['tables'] },
    { name: 'taxed', tables: moved as ShiftRun['tables'], series: a.series },
  ]
}

test('a machine that moves every HTTP cost alike: raw moves, the direct unit and the same-instant reference hold, counts hold', () => {
  const [a, b] = shifted(1.8, 1.5, 1.8)
  const r = machineShift(a, b, loadLedger())
  const unit = (name: string) => r.units.find((u) => u.name === name)!
  const pooling = r.groups.find((g) => g.group === 'same')!.units
  assert.ok(Math.abs(pooling.find((u) => u.name === 'raw')!.median! - 1.8) < 1e-9)
  assert.ok(Math.abs(pooling.find((u) => u.name === 'direct row')!.median! - 1) < 1e-9)
  assert.equal(pooling.find((u) => u.name === 'direct row')!.within['±15%'], 1)
  // Handshakes moved 1.5× against the direct row's 1.8×: 0.83 in its unit, outside ±15%.
  const hs = r.groups.find((g) => g.group === 'handshakes')!.units.find((u) => u.name === 'direct row')!
  assert.ok(Math.abs(hs.median! - 1.5 / 1.8) < 1e-9 && hs.within['±15%'] === 0)
  // The reference read 1.8× in the taxed half's windows: HTTP cells hold in its unit, handshakes read 1.5/1.8.
  assert.ok(Math.abs(pooling.find((u) => u.name === 'same-instant reference')!.median! - 1) < 1e-9)
  // No proxy_cpu_calibrated column (branch counts adds it): not recorded, said so.
  assert.equal(unit('calibrated').cells, 0)
  assert.equal(unit('raw').cells, unit('direct row').cells + 1, 'the direct row only in raw')
  const conns = r.counts.find((c) => c.name === 'backend_conns_per_1k_req')!
  assert.ok(conns.cells > 0 && conns.median === 1 && conns.within['±3%'] === 1)
  assert.equal(r.counts.find((c) => c.name === 'proxy_syscalls_per_req')!.cells, 0)
  const text = formatMachineShift(['as-is', 'taxed'], r, undefined)
  assert.match(text, /calibrated: not recorded \(column proxy_cpu_calibrated\)/)
  assert.match(text, /proxy_syscalls_per_req: not recorded/)
  assert.match(text, /taxed ran without a system-call tax/)
  const direct = r.references.find((x) => x.name.startsWith('direct row'))!
  assert.ok(Math.abs(direct.second! / direct.first! - 1.8) < 1e-9, JSON.stringify(direct))
})

test('the calibrated column and the counts are read where the rows carry them; a run against itself differs in no verdict', () => {
  const [a, b] = shifted(2, 2, 2, { proxy_cpu_calibrated: 3, proxy_syscalls_per_req: 7.4 })
  const r = machineShift(a, b, loadLedger())
  const cal = r.units.find((u) => u.name === 'calibrated')!
  assert.ok(cal.cells > 0 && cal.median === 1 && cal.within['±10%'] === 1)
  assert.equal(r.counts.find((c) => c.name === 'proxy_syscalls_per_req')!.median, 1)
  const self = machineShift(first(), first(), loadLedger())
  assert.ok(self.decidedInBoth > 0)
  assert.deepEqual(self.differing, [])
  assert.match(
    formatMachineShift(['a', 'b'], self, { target_ns: 2000, insns: 6873, measured_ns: 2012, base_ns: 181, cpuset: '1', measured_at: '', note: '' }),
    /6873 filter instructions, measured \+2012 ns per system call on cpuset 1/,
  )
})

test('disturbed windows are compared only when asked, and the printout says so', () => {
  const [a, b] = shifted(1.5, 1.5, 1.5)
  const disturb = (run: ShiftRun): ShiftRun => ({
    ...run,
    tables: {
      ...run.tables,
      measurements: run.tables.measurements.map((r) =>
        r.status === 'valid' ? { ...r, status: 'invalid' as const, reason: "disturbed: steal 0.0% / foreign CPU 60% on the proxy's cores" } : r,
      ),
    },
  })
  const [da, db] = [disturb(a), disturb(b)]
  const plain = machineShift(da, db, loadLedger())
  assert.ok(!plain.groups.some((g) => g.group === 'same'), 'no valid HTTP cell left')
  const withDisturbed = machineShift(da, db, loadLedger(), { disturbed: true })
  assert.ok(Math.abs(withDisturbed.groups.find((g) => g.group === 'same')!.units[0]!.median! - 1.5) < 1e-9)
  assert.match(formatMachineShift(['a', 'b'], withDisturbed, undefined), /valid repeats and disturbed windows: --include-disturbed/)
})
