import { PROXIES, parseProxyList } from './catalog.ts'
import { parseFlags } from './cli.ts'
import { userError } from './errors.ts'
import { formatFindings } from './findings.ts'
import { consoleLogger } from './log.ts'
import { BUILT_SERIES, parseSeries, runBench, SERIES } from './run.ts'

/** Flags shared by run-all and the series steps (README "run-all flags"). */
export const RUN_FLAGS = {
  profile: { type: 'string' },
  series: { type: 'string' },
  proxies: { type: 'string' },
  runtime: { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  baseline: { type: 'string' },
  'no-report': { type: 'boolean' },
  config: { type: 'string', multiple: true },
  cpus: { type: 'string' },
  images: { type: 'string' },
} as const

export const RUN_FLAGS_HELP = `  --profile NAME        quick (2 repeats of short windows), standard (3 × 15 s), full (5 × 30 s); default quick
  --series LIST         ${BUILT_SERIES.join(',')} (not built yet: ${SERIES.filter((s) => !(BUILT_SERIES as readonly string[]).includes(s)).join(', ')}); default all built
  --proxies LIST        haproxy,nginx,envoy,traefik,caddy (default: all five)
  --runtime KIND        auto | docker | native (default auto: docker when an engine answers, else native)
  --images MODE         docker only: offline (build from Debian packages and cached binaries), official, auto
  --out DIR             run directory (default results/<run-id>)
  --resume              finish the run in --out, skipping repeats already measured
  --baseline ID         compare with a baseline (not built yet)
  --no-report           do not build the report (the report step is not built yet either)
  --config PROXY=PATH   also measure your own config file (repeatable); see README "Your own config"
  --cpus "ROLE=LIST …"  cpusets, e.g. "proxy=1 backend=0 generator=0" (default from nproc)
  -h, --help            this help`

/**
 * Parses run flags, runs, prints the summary. Exit 0 once the run completed: a finding
 * that did not hold is a result, not a failure of the run.
 */
export async function runFromFlags(argv: string[], o: { notebook: string; help: string; install: boolean; fixedSeries?: string[] }): Promise<number> {
  const flags = parseFlags(argv, RUN_FLAGS, o.help, o.notebook)
  if (flags.baseline) throw userError('--baseline', 'comparison with baselines is not built yet', 'Run without --baseline')
  const log = consoleLogger()
  const result = await runBench({
    profile: flags.profile ?? 'quick',
    series: o.fixedSeries ?? parseSeries(flags.series ?? BUILT_SERIES.join(',')),
    proxies: flags.proxies ? parseProxyList(flags.proxies) : [...PROXIES],
    runtime: flags.runtime ?? 'auto',
    out: flags.out,
    resume: !!flags.resume,
    cpus: flags.cpus,
    images: flags.images,
    configs: flags.config ?? [],
    install: o.install,
    log,
  })
  const invalid = result.rows.filter((r) => r.status !== 'valid')
  const m = result.manifest
  process.stdout.write(
    [
      '',
      `run ${m.run_id} (${m.profile}, ${m.runtime}, ${m.cpu_source}) → ${result.runDir}`,
      `cpusets: proxy=${m.cpusets.proxy} backend=${m.cpusets.backend} generator=${m.cpusets.generator}${m.cpusets_shared ? ' (backend and generator share cores on this machine)' : ''}`,
      `measurements.csv rows: ${result.rows.length} (${invalid.length} invalid or failed${invalid.length ? `: ${[...new Set(invalid.map((r) => r.reason.split(':')[0]))].join(', ')}` : ''}); harness peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
      '',
      formatFindings(result.findings),
      '',
    ].join('\n'),
  )
  return 0
}
