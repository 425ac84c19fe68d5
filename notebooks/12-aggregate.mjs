#!/usr/bin/env zx
// A run's CSVs → per-cell aggregates and derived ratios in <run>/summary/*.csv.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { aggregate, summaryOutputs } = await import('../lib/analysis/summary.ts')
const { writeOutputs } = await import('../lib/core/atomic.ts')
const { displayPath } = await import('../lib/core/paths.ts')

const FLAGS = flagTable({
  ...commonFlags({ run: { more: ['or a promoted baseline (baselines/runs/<id>)'] } }),
})

const HELP = `Usage: npx zx notebooks/12-aggregate.mjs --run DIR

Reads DIR/measurements.csv, handshakes.csv and websocket.csv (every row checked against
its schema), groups the repeats of each cell with danfojs and writes DIR/summary/:
measurements.csv, handshakes.csv, websocket.csv (per cell: rows, valid/invalid/failed,
status, median, min, max, 95% CI of the median, CV, medians of the other metrics,
reasons, warnings) and ratios.csv (pool effect, pool-removed spread, key-type cost,
isolation variants, proxy vs direct). run-all and 13-report do this too.

Options:
${flagHelp(FLAGS, { column: 16 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('12-aggregate.mjs'), FLAGS, HELP, 'notebooks/12-aggregate.mjs')
  if (!flags.run) throw userError('notebooks/12-aggregate.mjs', '--run DIR is required', 'Pass a run directory, e.g. --run results/<run-id>')
  const run = loadRun(flags.run)
  const a = await aggregate(run)
  const files = writeOutputs(flags.run, summaryOutputs(a))
  const warned = Object.values(a.cells)
    .flat()
    .filter((c) => c.warnings.length).length
  process.stdout.write(
    `${files.map((f) => displayPath(`${flags.run}/${f}`)).join('\n')}\n${Object.values(a.cells).flat().length} cells (${warned} with warnings), ${a.ratios.length} ratios\n`,
  )
})
