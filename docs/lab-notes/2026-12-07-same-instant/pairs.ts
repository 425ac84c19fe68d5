// Each closed cell's pair as the report reads it (lib/analysis/pairs.ts): now / then, its interval,
// the change detected at 80% power, the verdict.
// node --import tsx docs/lab-notes/2026-12-07-same-instant/pairs.ts RUN_DIR...
import { pairedCells } from '../../../lib/analysis/pairs.ts'
import { loadRun } from '../../../lib/data/run-data.ts'

const pct = (x: number) => `${(x * 100).toFixed(1)}%`
for (const dir of process.argv.slice(2)) {
  const cells = pairedCells(loadRun(dir)).filter((c) => c.table === 'measurements' && c.key.model === 'closed')
  console.log(dir)
  for (const c of cells)
    console.log(
      `  ${c.proxy} ${c.thenVersion} → ${c.nowVersion} ${c.variant}: ${c.change ? `${c.change.value.toFixed(3)} [${c.change.lo.toFixed(3)}, ${c.change.hi.toFixed(3)}]` : '—'} ${c.verdict}, detectable ${c.detectable === null ? '—' : pct(c.detectable)}, ${c.pairs} pairs, df ${c.df}`,
    )
  const d = cells.flatMap((c) => (c.detectable === null ? [] : [c.detectable])).sort((a, b) => a - b)
  if (d.length) console.log(`  median closed cell detectable at 80% power: ${pct(d[Math.floor((d.length - 1) / 2)]!)} (${d.length} cells)`)
}
