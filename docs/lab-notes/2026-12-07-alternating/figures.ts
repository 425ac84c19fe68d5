// The year-later figures of this note from its data (node --import tsx docs/lab-notes/2026-12-07-alternating/figures.ts DIR...):
// each closed cell's pair as the report reads it (lib/analysis/pairs.ts), the median cell's change detected at 80% power,
// and, for a run holding the planted config as a user's config, the plant's size (lib/bench/year-later.ts plantSize).
import { pairedCells } from '../../../lib/analysis/pairs.ts'
import { PLANT_PROXY, plantSize } from '../../../lib/bench/year-later.ts'
import { loadRun } from '../../../lib/data/run-data.ts'

const pct = (x: number) => `${(x * 100).toFixed(1)}%`
const iv = (c: { value: number; lo: number; hi: number }) => `${c.value.toFixed(3)} [${c.lo.toFixed(3)}, ${c.hi.toFixed(3)}]`
for (const dir of process.argv.slice(2)) {
  const run = loadRun(dir)
  const cells = pairedCells(run).filter((c) => c.table === 'measurements' && c.key.model === 'closed')
  console.log(dir)
  for (const c of cells)
    console.log(`  ${c.proxy} ${c.variant}: ${c.change ? iv(c.change) : '—'} ${c.verdict}, detectable ${c.detectable === null ? '—' : pct(c.detectable)}, ${c.pairs} pairs, df ${c.df}`)
  const d = cells.flatMap((c) => (c.detectable === null ? [] : [c.detectable])).sort((a, b) => a - b)
  if (d.length) console.log(`  median closed cell detectable at 80% power: ${pct(d[Math.floor((d.length - 1) / 2)]!)} (${d.length} cells)`)
  const plant = plantSize(run, PLANT_PROXY, 'custom:article.cfg')
  if (plant) console.log(`  plant: ${plant.value.toFixed(3)}× (range ${plant.min.toFixed(3)}-${plant.max.toFixed(3)}, ${plant.rounds} rounds)`)
}
