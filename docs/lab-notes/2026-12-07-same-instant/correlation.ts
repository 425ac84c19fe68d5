// Within-pair correlation of log proxy µs/req in runs --like (each run's rows and its then/ rows):
// node --import tsx docs/lab-notes/2026-12-07-same-instant/correlation.ts RUN_DIR...
import { pairCorrelation, roundPairs } from '../../../lib/analysis/pair-correlation.ts'
import { MEASUREMENTS, readTable } from '../../../lib/data/tables.ts'
import { thenTable } from '../../../lib/data/then.ts'

for (const dir of process.argv.slice(2)) {
  const now = readTable(dir, MEASUREMENTS) as never[]
  const then = readTable(dir, thenTable(MEASUREMENTS)) as never[]
  for (const [what, accept] of [
    ['valid', (r: { status: string }) => r.status === 'valid'],
    ['measured (valid or disturbed)', (r: { status: string }) => r.status !== 'failed'],
  ] as const) {
    const c = pairCorrelation(roundPairs(now, then, { accept }))
    console.log(`${dir} ${what}: pooled r ${c.pooled?.toFixed(3)} over ${c.pairs} pairs; ratio keeps ${c.ratioVarianceShare?.toFixed(3)} of the sides' variance`)
    for (const x of c.cells) console.log(`  ${x.cell}: ${x.pairs} pairs, r ${x.r?.toFixed(3) ?? '-'}`)
  }
}
