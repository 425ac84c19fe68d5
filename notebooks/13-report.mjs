#!/usr/bin/env zx
// A run (+ a baseline) → the article: site/runs/<id>/index.html, its CSVs and charts, the PDF.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagChecker, flagHelp, flagTable, notebookArgs, parseFlags } = await import('../lib/cli/flags.ts')
const { commonFlags, sharedFlag } = await import('../lib/cli/common-flags.ts')
const { userError } = await import('../lib/core/errors.ts')
const { buildReport } = await import('../lib/report/build.ts')
const { formatLedger } = await import('../lib/claims/format.ts')
const { consoleLogger } = await import('../lib/core/log.ts')
const { displayPath, repoRoot } = await import('../lib/core/paths.ts')
const { join, resolve } = await import('node:path')
const { loadBaseline } = await import('../lib/data/baselines.ts')
const { finishOutcome, OUTCOME_FLAGS } = await import('../lib/cli/report-outcome.ts')
const { parseSiteDir } = await import('../lib/cli/site-dir.ts')

const FLAGS = flagTable({
  ...commonFlags({ run: undefined }),
  baseline: { ...sharedFlag('baseline'), check: (id) => (id ? loadBaseline(id) : undefined) },
  site: { ...sharedFlag('site', 'site/'), check: (dir) => parseSiteDir(dir) ?? join(repoRoot, 'site') },
  ...commonFlags({ 'no-pdf': undefined }),
  ...OUTCOME_FLAGS,
})

const HELP = `Usage: npx zx notebooks/13-report.mjs --run DIR [--baseline ID]   (also: npm run report -- …)

Builds the run's article from its CSVs alone: aggregates (danfojs), findings, the claims
ledger (baselines/published/claims.yaml), the comparison with a baseline, SVG charts
(vega-lite, rendered here), then site/runs/<id>/index.html with every table's CSV under
data/, site/runs/<id>/report.pdf and site/report.pdf (system Chromium), and site/index.html
listing every published run and baseline. Everything is built in a temp folder and swapped
in: a failure leaves the previous site as it was. Open site/index.html from disk or
publish site/ on any static server (relative links only, nothing fetched at view time).

Options:
${flagHelp(FLAGS, { column: 19 })}

Exit status: 0, 2 for bad input (one line, nothing written), 3 when a gate failed.`

await runNotebook(async () => {
  const flags = parseFlags(notebookArgs('13-report.mjs'), FLAGS, HELP, 'notebooks/13-report.mjs')
  if (!flags.run) throw userError('notebooks/13-report.mjs', '--run DIR is required', 'Pass a run directory, e.g. --run results/<run-id>')
  const t0 = performance.now()
  const check = flagChecker(FLAGS, flags)
  // A malformed gate or an unknown baseline stops here, before anything is written.
  const gates = check('fail-on', check('baseline'))
  const siteDir = check('site')
  // --json: stdout carries the one JSON document; every human line goes to stderr.
  const human = (/** @type {string} */ text) => void (flags.json ? process.stderr : process.stdout).write(text)
  const r = await buildReport({ runDir: flags.run, baseline: flags.baseline, siteDir, pdf: !flags['no-pdf'], log: consoleLogger() })
  human(
    [
      formatLedger(r.claims),
      '',
      `report: ${displayPath(r.page)}${r.pdf ? `, ${displayPath(r.pdf)}` : ''} in ${((performance.now() - t0) / 1000).toFixed(1)} s (${Object.entries(r.timings)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
        .join(', ')})`,
      '',
    ].join('\n'),
  )
  // The run directory is read only here: summary/findings.csv and claims.csv go to the site's data/summary/.
  return finishOutcome({ runId: r.runId, runDir: resolve(flags.run), result: r, gates, json: !!flags.json, writeSummaryCsvs: false, human })
})
