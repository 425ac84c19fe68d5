// Each run's closed HAProxy cells, round by round (B busy, I idle, as bench/busy-machine.mjs drew them
// from its seed), and each cell's busy/idle over its pairs of rounds: what the bench's median-cell line reads.
// node --import tsx docs/lab-notes/2026-12-07-hosts/figures.ts docs/lab-notes/2026-12-07-hosts/run2:1 ...
import { busyRounds } from '../../../lib/bench/busy-machine.ts'
import { readMeasurements } from '../../../lib/data/measurements.ts'

const PLANNED = 4
for (const arg of process.argv.slice(2)) {
  const [dir, seed] = arg.split(':')
  const isBusy = busyRounds(PLANNED, Number(seed ?? 1))
  const rows = readMeasurements(`${dir}/run`).filter((r) => r.status === 'valid' && r.model === 'closed' && r.proxy_cpu_us_per_req !== null)
  const cells = new Map<string, Map<number, number>>()
  for (const r of rows) {
    const k = `${r.series} ${r.variant}`
    cells.set(k, (cells.get(k) ?? new Map()).set(r.repeat, r.proxy_cpu_us_per_req!))
  }
  console.log(`${dir} (seed ${seed ?? 1}): rounds ${[1, 2, 3, 4].map((r) => (isBusy(r) ? 'B' : 'I')).join('')}`)
  for (const [k, m] of cells) {
    const byRound = [...m].sort((a, b) => a[0] - b[0])
    console.log(`  ${k.padEnd(30)} ${byRound.map(([r, v]) => `${r}${isBusy(r) ? 'B' : 'I'} ${v.toFixed(1)}`).join('  ')}`)
  }
}
