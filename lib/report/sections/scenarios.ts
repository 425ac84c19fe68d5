import type { CellSummary } from '../../analysis/cells.ts'
import { fmtInterval, methodText } from '../../core/intervals.ts'
import { SCENARIOS_SERIES, scenarioRatios, type ScenarioKind, type ScenarioRatio } from '../../findings/scenarios.ts'
import type { ChartRequest } from '../chart-requests.ts'
import { esc, type Article } from '../markdown.ts'
import { precisionLine, withPrecision } from '../precision.ts'
import { countCellColumns, k, statusText } from './common.ts'
import type { ArticleInput } from './input.ts'

/** What each scenario compares and which cells belong to it (the reference cell is shown in each). */
const SCENARIOS: { kind: ScenarioKind; id: string; title: string; text: string; cells: (c: CellSummary, base: number) => boolean }[] = [
  {
    kind: 'https-http',
    id: 'S1',
    title: 'Plain HTTP and HTTPS',
    text: "pool-added as it is (HTTPS, EC P-256, keep-alive clients) and the same config with a plain-HTTP listener (variant http). Seed 004: turning HTTPS on raises the load balancer's CPU 2-3x; with keep-alive clients the handshakes are amortised, so what is left is the record layer.",
    cells: (c, base) => c.key.path === '/' && c.key.connections === base && ['pool-added', 'http', 'direct'].includes(String(c.key.variant)),
  },
  {
    kind: 'logging',
    id: 'S2',
    title: 'Access logs on',
    text: "pool-added with each proxy's default access log written to a file in its run_dir (variant logging; HAProxy logs to stdout only, so its lines land in proxy.log) against the same config with logging off. A logging row whose file holds fewer lines than requests verified is invalid. Seed 004: access_log off raises nginx's QPS 10-20%.",
    cells: (c, base) => c.key.path === '/' && c.key.connections === base && ['pool-added', 'logging'].includes(String(c.key.variant)),
  },
  {
    kind: 'json',
    id: 'S3',
    title: 'A dynamic endpoint with a sized body',
    text: "GET /json?size=N: the backend builds a JSON document of exactly N bytes per request (records with computed fields, then padding; no disk), each verification response checked for its size, against the 11-byte hello world of GET /. The direct row is the backend's own cost of the body.",
    cells: (c, base) => c.key.connections === base && ['pool-added', 'direct'].includes(String(c.key.variant)),
  },
  {
    kind: 'conns',
    id: 'S4',
    title: 'Connection counts',
    text: "The http variant (seed 003 and seed 004's L7 tests were plain HTTP) at 500, 1000 and 2000 keep-alive connections against the profile's count. A count above this machine's ulimit -n or ephemeral port range is a failed row that says so.",
    cells: (c) => c.key.path === '/' && ['http', 'direct'].includes(String(c.key.variant)),
  },
]

const METRIC: Record<ScenarioRatio['metric'], string> = {
  proxy_cpu_us_per_req: 'proxy CPU µs/req',
  backend_cpu_us_per_req: 'backend CPU µs/req',
  rps: 'rps',
  proxy_syscalls_per_req: 'system calls/req',
}

/** Issue #16's scenarios (series scenarios): a subsection per scenario, its cells and its ratios with paired intervals. */
export function scenariosSection(a: Article, { aggregates, run }: ArticleInput): ChartRequest[] {
  const cells = aggregates.cells.measurements.filter((c) => c.key.series === SCENARIOS_SERIES && c.key.model === 'closed')
  if (cells.length === 0) return (a.skip('Scenarios', 'scenarios series'), [])
  a.heading(2, 'Scenarios: plain HTTP, access logs, a dynamic body, connection counts')
  a.para(
    'Closed model (wrk) through every proxy, series `scenarios`: each scenario beside its reference, measured in the same interleaved rounds, so each ratio is paired round by round (bootstrap over rounds, 95%). ' +
      "The reference is pool-added over HTTPS at GET / with the profile's connections. Cost is proxy CPU per request (direct rows: the backend's).",
  )
  const base = Number(
    cells.find((c) => c.key.variant === 'pool-added' && c.key.path === '/')?.key.connections ?? run.manifest.profile_settings.connections ?? 0,
  )
  const ratios = scenarioRatios(run.measurements)
  for (const s of SCENARIOS) {
    a.heading(3, `${s.id} ${s.title}`)
    a.para(s.text)
    const mine = cells.filter((c) => s.cells(c, base))
    // The ratios below carry each scenario; its cells are for looking up.
    a.siteOnly('Every scenario cell', () => {
      a.table(
        `scenarios-${s.kind}`,
        withPrecision([
          { title: 'proxy', value: (c) => k(c, 'proxy') },
          { title: 'version', value: (c) => k(c, 'version') },
          { title: 'variant', value: (c) => k(c, 'variant') },
          { title: 'request', value: (c) => (c.key.body_bytes ? `${c.key.path}?size=${c.key.body_bytes}` : String(c.key.path ?? '/')) },
          { title: 'conns', value: (c) => k(c, 'connections') },
          { title: 'CPU µs/req, median', value: (c) => (c.key.proxy === 'direct' ? c.medians.backend_cpu_us_per_req : (c.summary?.median ?? null)) },
          { title: 'rps', value: (c) => c.medians.rps },
          { title: 'p99 ms', value: (c) => c.medians.p99_ms },
          ...countCellColumns('req'),
          { title: 'valid/n', value: (c) => `${c.counts.valid}/${c.rows}` },
          { title: 'status', value: (c) => statusText(c) },
        ]),
        mine,
      )
      precisionLine(
        a,
        run.manifest,
        mine.filter((c) => c.key.proxy !== 'direct'),
      )
    })
    const own = ratios.filter((r) => r.kind === s.kind)
    if (own.length)
      a.bullets(
        own.map(
          (r) =>
            `${esc(r.proxy)} ${esc(METRIC[r.metric])}: ${esc(r.numerator)} / ${esc(r.denominator)} = **${esc(fmtInterval(r.interval))}** (${esc(methodText(r.interval))}, n ${r.n[0]}/${r.n[1]})`,
        ),
      )
    else a.para('*No ratio: a side has no valid row.*')
  }
  return []
}
