// The paired cells of the year-later bench runs: node --import tsx docs/lab-notes/2026-12-05-year-later/cells.ts [results/year-later-quick]
import { loadRun } from '../../../lib/data/run-data.ts'
import { pairedCells } from '../../../lib/analysis/pairs.ts'
const dir = process.argv[2] ?? 'results/year-later-quick'
const baseline = loadRun(`${dir}/baselines/year-later`)
for (const name of ['aa', 'planted', 'machine']) {
  const run = loadRun(`${dir}/${name}`)
  console.log(`\n## ${name}\n| cell | pairs | now/then [95% family-wise] | verdict | detectable | machine | syscalls/req now, then, baseline | conns/1k then, baseline |\n|---|---|---|---|---|---|---|---|`)
  for (const c of pairedCells(run as never, baseline as never)) {
    const f = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? '—' : x.toFixed(d))
    const s = c.counts.proxy_syscalls_per_req, k = c.counts.backend_conns_per_1k_req
    console.log(`| ${c.table === 'measurements' ? '' : c.table + ' '}${c.id} | ${c.pairs} | ${c.change ? `${f(c.change.value)} [${f(c.change.lo)}, ${f(c.change.hi)}]` : '—'} | ${c.verdict} | ${c.detectable === null ? '—' : (c.detectable * 100).toFixed(1) + '%'} | ${f(c.machine)} | ${f(s?.now, 2)}, ${f(s?.thenToday, 2)}, ${f(s?.baseline, 2)} | ${f(k?.thenToday, 0)}, ${f(k?.baseline, 0)} |`)
  }
}
