import { join } from 'node:path'
import { writeSummary } from '../analysis/summary.ts'
import { formatLedger } from '../claims/format.ts'
import { userError } from '../core/errors.ts'
import { consoleLogger } from '../core/log.ts'
import { displayPath, repoRoot } from '../core/paths.ts'
import { loadBaseline } from '../data/baselines.ts'
import { DEFAULT_SERIES, SERIES, type SeriesName } from '../data/series.ts'
import { SLO_HELP } from '../data/slo.ts'
import { formatFindings, formatVerdictCounts } from '../findings/format.ts'
import { buildReport, evaluateRun } from '../report/build.ts'
import { runBench, type RunOptions } from '../run/run.ts'
import { CAPACITY_DEFAULT_SLO, CAPACITY_DEFAULTS } from '../series/capacity.ts'
import { parseFlags } from './flags.ts'
import { finishOutcome, OUTCOME_FLAGS, OUTCOME_FLAGS_HELP, parseFailOn } from './report-outcome.ts'
import { parseRunOptions } from './run-options.ts'
import { BISECT_METRIC_HELP } from './bisect-options.ts'
import { withLike } from './like.ts'
import { writeLike } from '../data/like.ts'
import { PROFILES } from '../catalog/profiles.ts'
import { quietLine, quietSummary } from '../data/quiet.ts'
import { readRunTables } from '../data/run-data.ts'

/** Flags shared by run-all and the series steps (docs/running.md#run-all-flags). */
export const RUN_FLAGS = {
  profile: { type: 'string' },
  series: { type: 'string' },
  proxies: { type: 'string' },
  runtime: { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  'allow-changes': { type: 'boolean' },
  baseline: { type: 'string' },
  'no-report': { type: 'boolean' },
  config: { type: 'string', multiple: true },
  cpus: { type: 'string' },
  images: { type: 'string' },
  network: { type: 'string' },
  hosts: { type: 'string' },
  'accept-new-host-keys': { type: 'boolean' },
  seed: { type: 'string' },
  site: { type: 'string' },
  'no-pdf': { type: 'boolean' },
  'no-counts': { type: 'boolean' },
  variants: { type: 'string' },
  'key-types': { type: 'string' },
  versions: { type: 'string' },
  'pin-versions': { type: 'string' },
  repeats: { type: 'string' },
  duration: { type: 'string' },
  'wait-quiet': { type: 'string' },
  slo: { type: 'string' },
  budget: { type: 'string' },
  'start-rps': { type: 'string' },
  metric: { type: 'string' },
  like: { type: 'string' },
  'tax-ns': { type: 'string' },
  reference: { type: 'string' },
  ...OUTCOME_FLAGS,
} as const

export const RUN_FLAGS_HELP = `  --profile NAME        quick (2 repeats of short windows), standard (3 to 12 × 5 s), full (5 × 30 s); default quick
  --series LIST         any of ${SERIES.join(',')} (default: ${DEFAULT_SERIES.join(',')}; smoke leaves out h2, quick runs one h2 cell a proxy,
                        standard and full add h3);
                        versions = every catalog version, article and pool-added (smoke, quick: article);
                        capacity = the highest open-model rate meeting --slo per proxy (notebooks/capacity.mjs);
                        bisect = which catalog version of a proxy changed a variant (notebooks/bisect.mjs)
  --proxies LIST        haproxy,nginx,envoy,traefik,caddy (default: all five)
  --runtime KIND        auto | docker | native (default auto: docker when an engine answers, else native)
  --images MODE         docker only: offline (build from Debian packages and cached binaries), official, auto
  --network MODE        docker only: host (default; loopback, least overhead) or bridge (each role in its own
                        container network namespace, the generator in its own container); an error with native
  --hosts SPEC          docker only: each role on its own Docker engine, e.g. "proxy=ssh://u@h1 backend=ssh://u@h2
                        generator=tcp://h3:2376?certs=DIR", or a topology.yaml; see docs/hosts.md.
                        ssh host keys must be in ~/.ssh/known_hosts (or known_hosts=FILE, fingerprint=SHA256:…
                        per host): an unknown or changed key is refused (docs/hosts.md)
  --accept-new-host-keys  with --hosts: record an ssh host key no known_hosts lists yet (as ssh's
                        StrictHostKeyChecking=accept-new); a changed key is still refused
  --out DIR             run directory (default results/<run-id>)
  --resume              finish the run in --out, skipping repeats already measured; refused when a
                        setting differs from the run's (profile, repeats, duration, proxies, cpus, runtime, network, seed, configs)
  --allow-changes       with --resume: accept those differences (the manifest and report tell which rows came from which)
  --baseline ID         compare with a baseline in the report: an id under baselines/runs/ (e.g. 2026-08-23)
  --no-report           stop after the measurements and findings (no summary/, ledger, site or PDF)
  --no-pdf              build the site but not the PDF
  --no-counts           do not count system calls and context switches per window (docs/method/counts.md):
                        the count columns are then empty and say why (for measuring what counting costs)
  --site DIR            where the report goes (default site/)
  --seed N              order the repeats with this seed (default random, recorded in the manifest)
  --config PROXY=PATH   also measure your own config file (repeatable); see docs/catalog.md#your-own-config
  --cpus "ROLE=LIST …"  cpusets, e.g. "proxy=1 backend=0 generator=0" (default from nproc)
  --variants LIST       only the planned cells with these variants, in every series (e.g. article,custom:my.conf);
                        the direct row always runs (the floor and the calibrated unit's reference)
  --key-types LIST      only the planned cells with these key types: ec256,rsa2048,rsa4096
  --versions WHICH      catalog versions of the versions series and nginx's all-version extras: all, newest,
                        ends (oldest, newest, April 2025) or a list (1.26.3,3.0.11); default ends for smoke
                        and quick, all for standard and full (npm run doctor lists the catalog)
  --pin-versions LIST   proxy=version pairs (haproxy=2.8.25,nginx=1.31.3): the version each series that measures
                        one version per proxy runs instead of the newest (pooling, tls, ws, scenarios, l4, h2…)
  --repeats N           minimum repeats per cell instead of the profile's (recorded in the manifest)
  --duration S          measurement window in seconds instead of the profile's (recorded in the manifest)
  --wait-quiet S        seconds the run may lose to other work on the machine: after a disturbed window it waits
                        until the bench's cores are quiet, then redoes the window in a later round (default per
                        profile: ${Object.values(PROFILES).map((p) => `${p.name} ${p.quietBudgetS}`).join(', ')}; 0: never wait); docs/method/disturbance.md
  --slo "TERMS"         capacity: what a rate must meet, default "${CAPACITY_DEFAULT_SLO}" (${SLO_HELP})
  --budget S            capacity: seconds of steps each proxy's search may take (default ${CAPACITY_DEFAULTS.budgetS})
  --start-rps N         capacity: the first rate tried, then doubled while it passes (default ${CAPACITY_DEFAULTS.startRps})
${BISECT_METRIC_HELP}
  --like ID             repeat a promoted baseline (baselines/runs/<id>): its profile, series, proxies, repeats,
                        window, connections, variants, key types, runtime and versions, in every series (the newest
                        where its own are no longer in the catalog, said in the report); flags given beside it win; compares with it
  --tax-ns N            make every system call of every role and of the calibration about N ns dearer (a
                        seccomp filter, measured on the proxy's core; docs/benchmarks.md#machine-shift)
  --reference KIND      rtt: a fixed loopback ping-pong on the proxy's core during every closed-model window
                        and handshake window, each row divided by its own window's reading; none (default)
                        (docs/method/reference.md)
${OUTCOME_FLAGS_HELP}
  -h, --help            this help

Exit status: 0 once the run completed (a finding that did not hold is a result), 2 for a bad flag
or input (one line, before anything runs), 3 when a --fail-on gate failed (everything is written first).`

/** The run flags as parseFlags returns them. */
export type RunFlagValues = ReturnType<typeof parseFlags<typeof RUN_FLAGS>>

/**
 * Parses run flags, runs, prints the summary. Exit 0 once the run completed: a finding
 * that did not hold is a result, not a failure of the run.
 */
export async function runFromFlags(argv: string[], o: { notebook: string; help: string; install: boolean; fixedSeries?: SeriesName[]; parse?: (argv: string[]) => RunFlagValues; details?: (runDir: string) => string; extra?: Pick<RunOptions, 'bisectTags'> }): Promise<number> {
  const parsed = o.parse ? o.parse(argv) : parseFlags(argv, RUN_FLAGS, o.help, o.notebook)
  if (o.fixedSeries && parsed.series !== undefined) throw userError('--series', `${o.notebook} runs the ${o.fixedSeries.join(',')} series only`, 'Drop --series, or use notebooks/run-all.mjs --series LIST')
  const log = consoleLogger()
  const { flags, like } = withLike(parsed, log, { fixedSeries: !!o.fixedSeries })
  const options = { ...parseRunOptions(flags, { install: o.install, log, fixedSeries: o.fixedSeries }), ...o.extra }
  if (like?.connections) options.profile = { ...options.profile, connections: like.connections }
  // An unknown baseline, or a malformed gate, is an error before anything is measured.
  const base = flags.baseline ? loadBaseline(flags.baseline) : undefined
  const gates = parseFailOn(flags['fail-on'], base)
  // --json: stdout carries the one JSON document; every human line goes to stderr.
  const human = (text: string) => void (flags.json ? process.stderr : process.stdout).write(text)
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
      quietLine(quietSummary(readRunTables(result.runDir), m.quiet)),
      '',
      formatFindings(result.findings),
      `  ${formatVerdictCounts(result.findings)}`,
      '',
      // A step's own lines under the findings (capacity.mjs: every step of each search).
      ...(o.details ? [o.details(result.runDir), ''] : []),
    ].join('\n'),
  )
  const outcome = { runId: m.run_id, runDir: result.runDir, gates, json: !!flags.json, writeSummaryCsvs: true, human }
  if (flags['no-report']) return gates.length || flags.json ? finishOutcome({ ...outcome, result: { ...evaluateRun(result.runDir, flags.baseline), findings: result.findings } }) : 0
  const report = await buildReport({ runDir: result.runDir, baseline: flags.baseline, siteDir: flags.site ?? join(repoRoot, 'site'), pdf: !flags['no-pdf'], log })
  writeSummary(result.runDir, report.aggregates)
  human(['', formatLedger(report.claims), '', `report: ${displayPath(report.page)}${report.pdf ? `, ${displayPath(report.pdf)}` : ''}`, ''].join('\n'))
  return finishOutcome({ ...outcome, result: report })
}

/** `errors × 20, did not start × 1`: the kind of each reason (its words before any figure), counted. */
export function reasonKinds(rows: readonly { reason: string }[]): string {
  const kinds = new Map<string, number>()
  for (const r of rows) {
    const kind = r.reason.split(':')[0]!.replace(/\s*[\d(].*$/, '') || r.reason
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  return [...kinds].map(([k, n]) => `${k} × ${n}`).join(', ')
}
