import { join } from 'node:path'
import { writeOutputs } from '../core/atomic.ts'
import { userError } from '../core/errors.ts'
import { consoleLogger, type Logger } from '../core/log.ts'
import { displayPath, repoRoot } from '../core/paths.ts'
import type { SeriesName } from '../data/series.ts'
import { formatFindings, formatVerdictCounts } from '../findings/format.ts'
import type { RunOptions } from '../run/run.ts'
import { flagChecker, parseFlags } from './flags.ts'
import { parseRunOptions } from './run-options.ts'
import { RUN_FLAGS, type RunFlagValues } from './run-flags.ts'
import { withLike } from './like.ts'
import { writeLike } from '../data/like.ts'
import { quietLine, quietSummary, tooBusyLines, type QuietSummary } from '../data/quiet.ts'
import { readRunTables } from '../data/run-data.ts'

export { RUN_FLAGS, RUN_FLAGS_HELP, type RunFlagValues } from './run-flags.ts'

export interface RunNotebookOptions {
  notebook: string
  help: string
  install: boolean
  fixedSeries?: SeriesName[]
  parse?: (argv: string[]) => RunFlagValues
  details?: (runDir: string) => string
  extra?: Pick<RunOptions['plan'], 'bisectTags'>
}

/**
 * Every check a run notebook makes before it measures: the flags, --like, the run options,
 * the baseline and the gates. A bad input is a UserError here, before anything is set up
 * (test/integration/bad-input.test.ts calls this for the run flags' corpus).
 */
export function parseRunFlags(argv: string[], o: RunNotebookOptions, log: Logger = consoleLogger()) {
  const parsed = o.parse ? o.parse(argv) : parseFlags(argv, RUN_FLAGS, o.help, o.notebook)
  if (o.fixedSeries && parsed.series !== undefined)
    throw userError('--series', `${o.notebook} runs the ${o.fixedSeries.join(',')} series only`, 'Drop --series, or use notebooks/run-all.mjs --series LIST')
  const { flags, like } = withLike(parsed, log, { fixedSeries: !!o.fixedSeries })
  const parsedOptions = parseRunOptions(flags, { install: o.install, log, fixedSeries: o.fixedSeries })
  const check = flagChecker(RUN_FLAGS, flags)
  const pairSame = check('pair-same', flags.like)
  const pairAt = check('pair-at', flags.like)
  // --like: the baseline's build of each proxy run measured beside today's (lib/series/then.ts).
  const pair = like && {
    baseline: like.id,
    versions: Object.fromEntries(parsedOptions.proxies.flatMap((p) => (like.then[p] ? [[p, like.then[p]]] : []))),
    pairSame,
    at: pairAt,
  }
  const options = { ...parsedOptions, plan: { ...parsedOptions.plan, ...o.extra, ...(pair ? { pair } : {}) } }
  if (like?.connections) options.profile = { ...options.profile, connections: like.connections }
  // An unknown baseline, or a malformed gate, is an error before anything is measured.
  const gates = check('fail-on', check('baseline'))
  return { flags, like, options, gates }
}

/**
 * Parses run flags, runs, prints the summary. Exit 0 once the run completed: a finding
 * that did not hold is a result, not a failure of the run.
 */
export async function runFromFlags(argv: string[], o: RunNotebookOptions): Promise<number> {
  const log = consoleLogger()
  const { flags, like, options, gates } = parseRunFlags(argv, o, log)
  // --json: stdout carries the one JSON document; every human line goes to stderr.
  const human = (text: string) => void (flags.json ? process.stderr : process.stdout).write(text)
  // Loaded once the flags are checked: a bad flag, and --help, answer without the measuring and report code.
  const [{ runBench }, { buildReport, evaluateRun }, { summaryOutputs }, { formatLedger }, { finishOutcome }] = await Promise.all([
    import('../run/run.ts'),
    import('../report/build.ts'),
    import('../analysis/summary.ts'),
    import('../claims/format.ts'),
    import('./report-outcome.ts'),
  ])
  const result = await runBench(options)
  if (like) writeLike(result.runDir, { baseline: like.id, flags: like.flags, notes: like.notes })
  const invalid = result.rows.filter((r) => r.status !== 'valid')
  const m = result.manifest
  human(
    [
      '',
      `run ${m.run_id} (${m.profile}, ${m.runtime}, ${m.cpu_source}) → ${result.runDir}`,
      `cpusets: proxy=${m.cpusets.proxy} backend=${m.cpusets.backend} generator=${m.cpusets.generator}${m.cpusets_shared ? ' (backend and generator share cores on this machine)' : ''}`,
      `measurements.csv rows: ${result.rows.length} (${invalid.length} invalid or failed${invalid.length ? `: ${reasonKinds(invalid)}` : ''}); harness peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
      ...otherWorkLines(quietSummary(readRunTables(result.runDir), m.quiet, m.profile_settings)),
      '',
      formatFindings(result.findings),
      `  ${formatVerdictCounts(result.findings)}`,
      '',
      // A step's own lines under the findings (capacity.mjs: every step of each search).
      ...(o.details ? [o.details(result.runDir), ''] : []),
    ].join('\n'),
  )
  const outcome = { runId: m.run_id, runDir: result.runDir, gates, json: !!flags.json, writeSummaryCsvs: true, human }
  if (flags['no-report'])
    return gates.length || flags.json ? finishOutcome({ ...outcome, result: { ...evaluateRun(result.runDir, flags.baseline), findings: result.findings } }) : 0
  const report = await buildReport({
    runDir: result.runDir,
    baseline: flags.baseline,
    siteDir: flags.site ?? join(repoRoot, 'site'),
    pdf: !flags['no-pdf'],
    log,
  })
  writeOutputs(result.runDir, summaryOutputs(report.aggregates))
  human(['', formatLedger(report.claims), '', `report: ${displayPath(report.page)}${report.pdf ? `, ${displayPath(report.pdf)}` : ''}`, ''].join('\n'))
  return finishOutcome({ ...outcome, result: report })
}

/** The end summary's other-work line, then each cell other work left unmeasured, indented under it. */
const otherWorkLines = (s: QuietSummary) => [quietLine(s), ...tooBusyLines(s).map((l) => `  ${l}`)]

/** `errors × 20, did not start × 1`: the kind of each reason (its words before any figure), counted. */
export function reasonKinds(rows: readonly { reason: string }[]): string {
  const kinds = new Map<string, number>()
  for (const r of rows) {
    const kind = r.reason.split(':')[0]!.replace(/\s*[\d(].*$/, '') || r.reason
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  return [...kinds].map(([k, n]) => `${k} × ${n}`).join(', ')
}
