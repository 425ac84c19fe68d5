#!/usr/bin/env zx
// Benchmark: aggregate + claims + article + charts + site + PDF for one run, against the
// 20 s budget; prints the seconds per stage and the ratio to the budget.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { memoryLogger } = await import('../lib/core/log.ts')
const { displayPath, repoRoot } = await import('../lib/core/paths.ts')
const { buildReport } = await import('../lib/report/build.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { median } = await import('../lib/core/stats.ts')
const { mkdtempSync } = await import('node:fs')
const { tmpdir } = await import('node:os')
const { join } = await import('node:path')

const FLAGS = flagTable({
  ...commonFlags({ run: 'test/fixtures/run-quick', repeats: { default: '3', more: ['each a whole build, timed'] } }),
})

const HELP = `Usage: npx zx bench/report.mjs [--run DIR] [--repeats N]

Builds the whole report of a run (danfojs aggregation, findings, claims ledger, comparison
with baseline 2026-08-23, Markdown, vega-lite SVG charts, site, A4 PDF in the system
Chromium) into a temp site/ N times (default 3) and prints each stage's seconds, the
first build's ratio to the 20 s budget (cold: what one npm run report costs) and the
warm median. Default run: test/fixtures/run-quick (a real quick run of run-all's default
series). Run it on a quiet machine.

Options:
${flagHelp(FLAGS, { column: 18 })}`

const BUDGET_S = 20

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('report.mjs'), FLAGS, HELP, 'bench/report.mjs')
  const runDir = flags.run ?? join(repoRoot, 'test/fixtures/run-quick')
  const repeats = Number(flags.repeats ?? 3)
  if (!Number.isInteger(repeats) || repeats < 1) throw userError(`--repeats ${flags.repeats}`, 'not a positive integer', 'Use e.g. --repeats 3')
  const run = loadRun(runDir)
  process.stdout.write(
    `run ${run.manifest.run_id} (${displayPath(runDir)}): profile ${run.manifest.profile}, series ${run.manifest.series.join(',')}, rows ${run.measurements.length} + ${run.handshakes.length} + ${run.websocket.length}\n`,
  )
  const totals = []
  for (let i = 1; i <= repeats; i++) {
    const site = join(mkdtempSync(join(tmpdir(), 'pb-bench-report-')), 'site')
    const t0 = performance.now()
    const r = await buildReport({ runDir, baseline: '2026-08-23', siteDir: site, pdf: true, log: memoryLogger() })
    const s = (performance.now() - t0) / 1000
    totals.push(s)
    process.stdout.write(
      `build ${i}: ${s.toFixed(2)} s (${Object.entries(r.timings)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
        .join(', ')})\n`,
    )
  }
  // The first build pays for loading danfojs and Chromium, as \`npm run report\` does every time.
  const cold = totals[0]
  const warm = totals.length > 1 ? median(totals.slice(1)) : cold
  process.stdout.write(
    `cold ${cold.toFixed(2)} s = ${(cold / BUDGET_S).toFixed(2)} × the ${BUDGET_S} s budget (${cold <= BUDGET_S ? 'within' : 'OVER'}); warm median ${warm.toFixed(2)} s\n`,
  )
})
