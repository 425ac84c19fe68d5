#!/usr/bin/env zx
// Capacity search: per proxy, the highest open-model rate that meets an SLO.
import './_ts.mjs'

const { runNotebook } = await import('../lib/cli/notebook.ts')
const { flagHelp, flagTable, notebookArgs } = await import('../lib/cli/flags.ts')
const { commonFlags } = await import('../lib/cli/common-flags.ts')
const { runFromFlags, RUN_FLAGS_HELP } = await import('../lib/cli/run-notebook.ts')
const { capacityStepsOf } = await import('../lib/findings/capacity.ts')

/** This step's own names for run flags, rewritten before parsing (only their help lines here). */
const ALIASES = flagTable({
  ...commonFlags({ variant: 'pool-added' }),
})

const HELP = `Usage: npx zx notebooks/capacity.mjs [--proxies LIST] [--variant NAME] [--slo "p99<10ms,errors<0.1%"] [--budget S] [options]

For each proxy (and variant, default pool-added), finds the highest open-model rate that
meets the SLO: doubles from --start-rps while a rate passes, then halves the interval
between the highest pass and the lowest miss until they are within 5% (or 100 rps), or the
--budget is spent. Each step is one open-model cell with the usual verification and
validity rules (an invalid step never passes; a window only disturbed is measured again,
twice at most, then the search stops there), appended to <out>/measurements.csv as series
"capacity". Prints, per proxy, the rate found with the proxy's CPU share and µs/request
there; the report shows every step.

Options:
${flagHelp(ALIASES, { helpFlag: false })}
${RUN_FLAGS_HELP}`

// --variant is this step's name for the focus flag every series notebook has.
const argv = notebookArgs('capacity.mjs').map((a) => (a === '--variant' ? '--variants' : a.replace(/^--variant=/, '--variants=')))
await runNotebook(() =>
  runFromFlags(argv, { notebook: 'notebooks/capacity.mjs', help: HELP, install: false, fixedSeries: ['capacity'], details: capacityStepsOf }),
)
