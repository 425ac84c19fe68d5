#!/usr/bin/env zx
// Which reference cancels the machine: a run against a run baseline, per table and
// reference, the per-cell ratio run/baseline of raw and of calibrated medians.
import '../notebooks/_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { displayPath } = await import('../lib/core/paths.ts')
const { loadRun } = await import('../lib/data/run-data.ts')
const { loadBaseline } = await import('../lib/data/baselines.ts')
const { compareRuns } = await import('../lib/analysis/compare.ts')
const { agreementTable, referenceAgreement, runReferences, REFERENCES } = await import('../lib/analysis/calibrated.ts')
const { fingerprintDiff } = await import('../lib/analysis/fingerprint.ts')

const FLAGS = flagTable({
  run: { type: 'string', arg: 'DIR', help: ['a run directory (results/<id>)'] },
  ...commonFlags({ baseline: ['2026-11-30-quick-2core', 'here a promoted run only: a published baseline has no rows to calibrate'] }),
  'include-disturbed': {
    type: 'boolean',
    help: ["count this run's rows that are invalid only for being disturbed", "(foreign CPU on the proxy's cores, on a shared machine) as valid"],
  },
})

const HELP = `Usage: npx zx bench/calibration.mjs --run DIR [--baseline ID]

Prints the machine fingerprint differences, each run's references (the direct row, the
loopback round trip, openssl signs) and, for the cells both runs measured, the ratio
run/baseline of the raw medians and of the calibrated medians (median [min..max] over
cells). The reference whose calibrated ratios sit closest to 1 cancels the machine best
(docs/method/comparison.md#calibrated-unit). Reads CSVs and manifests only; measures nothing.

Options:
${flagHelp(FLAGS, { column: 19 })}`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('calibration.mjs'), FLAGS, HELP, 'bench/calibration.mjs')
  if (!flags.run) throw userError('--run', 'missing', 'Pass a run directory: --run results/<id>')
  const run = loadRun(flags.run)
  if (flags['include-disturbed']) {
    const { onlyDisturbed } = await import('../lib/data/precision.ts')
    /** @type {<R extends { status: string; reason: string }>(rows: R[]) => R[]} */
    const asValid = (rows) => rows.map((r) => (onlyDisturbed(r) ? { ...r, status: 'valid' } : r))
    run.measurements = asValid(run.measurements)
    run.handshakes = asValid(run.handshakes)
    run.websocket = asValid(run.websocket)
  }
  const id = flags.baseline ?? '2026-11-30-quick-2core'
  const b = loadBaseline(id)
  if (b.kind !== 'run') throw userError(`--baseline ${id}`, 'is a published baseline (no rows)', 'Pass a promoted run baseline')
  const out = (/** @type {string} */ s) => process.stdout.write(s + '\n')
  out(`run ${run.manifest.run_id} (${displayPath(flags.run)}) against baseline ${id}`)
  const [fb, fr] = [b.run.manifest.fingerprint, run.manifest.fingerprint]
  out(
    fb && fr
      ? `fingerprint: ${fingerprintDiff(fb, fr).join('; ') || 'the same'}`
      : `fingerprint: not recorded by ${[fb ? '' : 'the baseline', fr ? '' : 'this run'].filter(Boolean).join(' nor ')}`,
  )
  const [rb, rr] = [runReferences(b.run), runReferences(run)]
  for (const r of REFERENCES) out(`reference ${r}: baseline ${rb[r] ?? 'no calibration recorded'}, this run ${rr[r] ?? 'no calibration recorded'}`)
  out('')
  out(agreementTable(referenceAgreement(compareRuns(b.run, run), rb, rr)))
})
