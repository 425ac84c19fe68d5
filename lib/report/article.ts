import { poolClass } from '../catalog/reuse.ts'
import type { CellSummary } from '../analysis/cells.ts'
import { newestCell } from '../analysis/derived.ts'
import type { RunData } from '../data/run-data.ts'
import type { Aggregates } from '../analysis/summary.ts'
import { compareVersions } from '../catalog/stack.ts'
import type { ClaimResult } from '../claims/evaluate.ts'
import { verdictCounts } from '../claims/format.ts'
import type { Finding } from '../findings/types.ts'
import { baselineSection, type BaselineComparison } from './baseline-section.ts'
import type { ChartRequest } from './chart-requests.ts'
import { Article, esc, num, pct, type Column, type TableFile } from './markdown.ts'

/**
 * The run's article in the seed article's order (README "The report: site and PDF"): setup and fairness,
 * defaults, the three pooling series, isolation, TLS, open model, versions, WebSocket,
 * claims ledger, baseline, how to reproduce. Pure: data in, Markdown + files out.
 */
export interface ArticleInput {
  run: RunData
  aggregates: Aggregates
  findings: Finding[]
  claims: ClaimResult[]
  baseline?: BaselineComparison
  /** Per-second series of open-model runs from raw/ (absent when only CSVs are there). */
  openSeries: OpenSeries[]
  /** Whether documentation predicts a backend pool for a cell (undefined: no prediction). */
  documentedReuse: (proxy: string, variant: string, version: string) => boolean | undefined
}

export interface OpenSeries {
  proxy: string
  key_type: string
  series: string
  target_rps: number
  repeat: number
  points: { t: number; rate: number; vus: number; p99_ms: number }[]
}

export interface BuiltArticle {
  markdown: string
  files: TableFile[]
  charts: ChartRequest[]
}

const MARK: Record<Finding['verdict'], string> = { held: '✓ held', 'not held': '✗ not held', 'not measured': '· not measured', info: '• figure' }
/** The CI of the median; with too few repeats for 95%, the interval's real coverage is shown. */
const ci = (c: CellSummary) => {
  const s = c.summary
  if (!s || s.n < 2) return '—'
  const range = `${num(s.ci[0])}–${num(s.ci[1])}`
  return s.ciLevel >= 0.95 ? range : `${range} (${Math.round(s.ciLevel * 100)}%)`
}
const statusText = (c: { status: string; reasons?: string[] }) => (c.status === 'valid' ? 'valid' : `${c.status}: ${(c.reasons ?? []).join('; ')}`)
const k = (c: CellSummary, key: string) => c.key[key] ?? null

/** Findings whose id is in `ids`, as a list with their verdict and figure. */
function findingList(a: Article, findings: readonly Finding[], ids: readonly string[]) {
  const chosen = findings.filter((f) => ids.includes(f.id))
  if (chosen.length) a.bullets(chosen.map((f) => `**${f.id} ${esc(f.title)}**: ${MARK[f.verdict]}${f.figure ? `, ${esc(f.figure)}` : ''}`))
}

const cellColumns = (metric: string, unit: string): Column<CellSummary>[] => [
  { title: 'series', value: (c) => k(c, 'series') },
  { title: 'proxy', value: (c) => k(c, 'proxy') },
  { title: 'version', value: (c) => k(c, 'version') },
  { title: 'variant', value: (c) => k(c, 'variant') },
  { title: `${metric} ${unit}, median`, value: (c) => c.summary?.median ?? null },
  { title: 'CI of median', value: (c) => ci(c) },
  { title: 'CV', value: (c) => (c.summary ? pct(c.summary.cv) : null) },
  { title: 'valid/n', value: (c) => `${c.counts.valid}/${c.rows}` },
  { title: 'status', value: (c) => statusText(c) },
]

export function buildArticle(input: ArticleInput): BuiltArticle {
  const { run, aggregates, findings } = input
  const m = run.manifest
  const a = new Article()
  const charts: ChartRequest[] = []
  const cells = aggregates.cells.measurements
  const closedPooling = cells.filter((c) => c.key.model === 'closed' && !String(c.key.series).startsWith('tls'))

  a.heading(1, `proxybench run ${esc(m.run_id)}`)
  a.para(
    `Profile **${esc(m.profile)}**, series ${esc(m.series.join(', '))}, proxies ${esc(m.proxies.join(', '))}; ` +
      `started ${esc(m.started)}${m.finished ? `, finished ${esc(m.finished)}` : ', **not finished**'}. ` +
      'The figure that matters is the proxy\'s CPU time per request (µs), read from cumulative counters of its own cgroup or container: ' +
      'what the proxy costs, whatever the bench allows. Requests per second and latencies are shown beside it and are specific to this machine.',
  )
  a.para('[[toc]]')

  // --- Summary of findings
  a.heading(2, 'Findings at a glance')
  if (findings.length) a.bullets(findings.map((f) => `**${f.id}** ${esc(f.title)}: ${MARK[f.verdict]}${f.figure ? `, ${esc(f.figure)}` : ''}`))
  else a.para('*No series of this run produced findings.*')
  const counts = input.claims.length ? verdictCounts(input.claims) : 'not evaluated'
  a.para(`Published claims: ${counts}. Details in [the claims ledger](#claims-ledger).`)

  // --- Setup and fairness
  a.heading(2, 'Setup and fairness')
  const shared = Object.entries(m.cpusets).reduce<Record<string, string[]>>((acc, [role, set]) => ({ ...acc, [set]: [...(acc[set] ?? []), role] }), {})
  a.bullets([
    `Host: ${esc(m.host.cpu_model)}, ${m.host.cores} cores, ${num(m.host.memory_gib)} GiB, kernel ${esc(m.host.kernel)}.`,
    `Runtime: **${esc(m.runtime)}**, network ${esc(m.network_mode)}; CPU read from ${esc(m.cpu_source)}.`,
    `Cpusets: ${Object.entries(shared).map(([set, roles]) => `CPU ${esc(set)}: ${esc(roles.join(' + '))}`).join('; ')}.` +
      (m.cpusets_shared ? ' **Roles share a core on this machine**: the generator and the backend compete with each other, never with the proxy, whose CPU is measured alone.' : ' Every role has its own cores.'),
    `Profile settings: ${m.profile_settings.repeats} repeats, ${m.profile_settings.warmup_s} s warm-up, ${m.profile_settings.duration_s} s window, ${m.profile_settings.connections} connections, ${m.profile_settings.threads} generator thread${m.profile_settings.threads === 1 ? '' : 's'}; repeats interleaved across proxies in an order shuffled with seed ${m.order_seed}.`,
    `Every cell is verified before it is measured (status 200, body, HTTP/1.1 over TLS); a cell with ≥ 1% errors, a saturated generator (≥ 90% of its cpuset) or a failed verification is marked invalid with its reason and left out of every median.`,
    `Harness commit ${esc(m.harness_commit)}.`,
  ])
  a.table('components', [
    { title: 'component', value: (c) => c.component },
    { title: 'version', value: (c) => c.version },
    { title: 'source', value: (c) => c.source },
    { title: 'sha256', value: (c) => c.sha256, show: (c) => (c.sha256 ? `\`${c.sha256.slice(0, 12).replace(/[^0-9a-f]/g, '')}\`` : '—') },
  ], m.components)
  if (m.images.length) {
    a.table('images', [
      { title: 'component', value: (i) => i.component },
      { title: 'version', value: (i) => i.version },
      { title: 'image', value: (i) => i.image },
      { title: 'id / digest', value: (i) => i.digest ?? i.id },
    ], m.images)
  }
  a.table('tools', [{ title: 'tool', value: (t) => t[0] }, { title: 'version', value: (t) => t[1] }], Object.entries(m.tools))

  // --- Defaults table
  a.heading(2, 'Backend pooling: documented and measured')
  a.para('The backend counts the TCP connections it accepts; with a pool, 1000 requests need almost none, without one they need 1000. ' +
    'The documented column comes from each proxy\'s documentation (`shared/reference/proxy-defaults.md`), the measured one from this run.')
  const poolRows = closedPooling.filter((c) => c.key.proxy !== 'direct')
  a.table('defaults', [
    { title: 'proxy', value: (c) => k(c, 'proxy') },
    { title: 'version', value: (c) => k(c, 'version') },
    { title: 'variant', value: (c) => k(c, 'variant') },
    { title: 'documented', value: (c) => documented(input.documentedReuse(String(c.key.proxy), String(c.key.variant), String(c.key.version))) },
    { title: 'backend conns per 1k req (measured)', value: (c) => c.medians.backend_conns_per_1k_req },
    { title: 'measured', value: (c) => measuredPool(c.medians.backend_conns_per_1k_req) },
  ], poolRows)

  // --- The three series
  a.heading(2, 'The three pooling series')
  a.para('Same configs (each proxy as the article configured it), a backend pool added to everyone, the pool removed from everyone. Newest measured version of each proxy; all versions are in the detail table.')
  const proxies = [...new Set(poolRows.map((c) => String(c.key.proxy)))].sort()
  const main = proxies.map((p) => ({
    proxy: p,
    version: String(newestCell(poolRows, { proxy: p, variant: 'article' })?.key.version ?? newestCell(poolRows, { proxy: p })?.key.version ?? ''),
    same: newestCell(poolRows, { proxy: p, variant: 'article' }),
    added: newestCell(poolRows, { proxy: p, variant: 'pool-added' }),
    removed: newestCell(poolRows, { proxy: p, variant: 'pool-removed' }),
  }))
  a.table('pooling-series', [
    { title: 'proxy', value: (r) => r.proxy },
    { title: 'version', value: (r) => r.version },
    { title: 'same config µs/req', value: (r) => r.same?.summary?.median ?? null },
    { title: 'pool added µs/req', value: (r) => r.added?.summary?.median ?? null },
    { title: 'pool removed µs/req', value: (r) => r.removed?.summary?.median ?? null },
    { title: 'removed / added', value: (r) => (r.removed?.summary && r.added?.summary ? r.removed.summary.median / r.added.summary.median : null) },
    { title: 'same config conns/1k', value: (r) => r.same?.medians.backend_conns_per_1k_req ?? null },
    { title: 'same config rps', value: (r) => r.same?.medians.rps ?? null },
    { title: 'same config p99 ms', value: (r) => r.same?.medians.p99_ms ?? null },
  ], main)
  if (main.length) {
    charts.push({
      path: 'charts/pooling.svg', title: 'Proxy CPU µs per request, by series', kind: 'bar',
      rows: main.flatMap((r) => ([['same config', r.same], ['pool added', r.added], ['pool removed', r.removed]] as const).flatMap(([s, c]) =>
        c?.summary ? [{ category: r.proxy, group: s, value: c.summary.median, lo: c.summary.min, hi: c.summary.max }] : [])),
      options: { valueTitle: 'proxy CPU µs / request (median, min–max)' },
    })
    a.image('charts/pooling.svg', 'Proxy CPU per request by proxy and series')
  }
  findingList(a, findings, ['F1', 'F2', 'F3', 'pool', 'cv'])
  const direct = closedPooling.find((c) => c.key.proxy === 'direct')
  if (direct) a.para(`Floor without a proxy (generator → backend): ${num(direct.medians.rps)} rps, backend ${num(direct.medians.backend_cpu_us_per_req)} µs/req.`)
  a.table('ratios', [
    { title: 'ratio', value: (r) => r.name },
    { title: 'proxy', value: (r) => r.proxy },
    { title: 'version', value: (r) => r.version },
    { title: 'value', value: (r) => r.value },
    { title: 'numerator', value: (r) => r.numerator },
    { title: 'denominator', value: (r) => r.denominator },
    { title: 'across machines', value: (r) => (r.comparable ? 'yes' : 'no (rates)') },
  ], aggregates.ratios)
  a.heading(3, 'Every pooling cell')
  a.table('pooling-cells', [...cellColumns('CPU', 'µs/req'),
    { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req },
    { title: 'rps', value: (c) => c.medians.rps },
    { title: 'p99 ms', value: (c) => c.medians.p99_ms }], closedPooling)

  // --- Isolation
  a.heading(2, 'nginx and HAProxy isolation')
  a.para('HAProxy: `http-reuse never` against the article config, and `option http-server-close`, the one setting that really removes reuse. nginx: a literal `proxy_pass` against an `upstream` block with and without `keepalive`, on a version before and after 1.29.7.')
  a.table('isolation', [...cellColumns('CPU', 'µs/req'), { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req }],
    closedPooling.filter((c) => c.key.series === 'haproxy-reuse' || c.key.series === 'nginx-keepalive'), 'Not measured in this run (pooling series).')
  findingList(a, findings, ['F4', 'F7'])

  // --- TLS
  const hs = aggregates.cells.handshakes
  a.heading(2, 'TLS handshake cost')
  if (hs.length === 0) a.para('*Not measured in this run (tls series).*')
  else {
    a.para('Full handshakes only (resumption off; a resumed handshake makes the row invalid), one GET each, classical key exchange. Proxy CPU per handshake by certificate key type.')
    a.table('handshake-cells', [...cellColumns('CPU', 'µs/handshake').map((c) => (c.title === 'variant' ? { title: 'key type', value: (x: CellSummary) => k(x, 'key_type') } : c)),
      { title: 'handshakes/s', value: (c) => c.medians.rate }], hs)
    charts.push({
      path: 'charts/handshakes.svg', title: 'Proxy CPU per full handshake by key type', kind: 'bar',
      rows: hs.flatMap((c) => (c.summary ? [{ category: `${c.key.proxy} ${c.key.version}`, group: String(c.key.key_type), value: c.summary.median, lo: c.summary.min, hi: c.summary.max }] : [])),
      options: { valueTitle: 'proxy CPU µs / handshake (median, min–max)' },
    })
    a.image('charts/handshakes.svg', 'Proxy CPU per full handshake by key type')
  }
  findingList(a, findings, ['F5'])

  // --- Open model and calibration
  a.heading(2, 'Open model and generator calibration')
  const openCells = cells.filter((c) => String(c.key.series).startsWith('tls-'))
  if (openCells.length === 0) a.para('*Not measured in this run (tls series).*')
  else {
    a.para('Closed ceilings with EC-256 first; then the open model (constant arrival rate, one keep-alive connection per virtual user, a new user is a new handshake, capped) at a stated fraction of the slowest ceiling, where only the certificate changes; then HAProxy at steps of its own ceiling to see where the open model "fails" and how busy the proxy is then.')
    a.table('open-model', [
      { title: 'series', value: (c) => k(c, 'series') },
      { title: 'proxy', value: (c) => k(c, 'proxy') },
      { title: 'key type', value: (c) => k(c, 'key_type') },
      { title: 'model', value: (c) => k(c, 'model') },
      { title: 'target rps', value: (c) => k(c, 'target_rps') },
      { title: 'achieved rps', value: (c) => c.medians.rps },
      { title: 'errors %', value: (c) => c.medians.errors_pct },
      { title: 'dropped', value: (c) => c.medians.dropped },
      { title: 'max VUs', value: (c) => c.medians.max_vus },
      { title: 'p99 ms', value: (c) => c.medians.p99_ms },
      { title: 'proxy CPU share', value: (c) => (c.medians.proxy_cpu_share === null ? null : pct(c.medians.proxy_cpu_share, 0)) },
      { title: 'status', value: (c) => statusText(c) },
    ], openCells)
    const seriesCharts = openChart(input.openSeries)
    if (seriesCharts) {
      charts.push(...seriesCharts.charts)
      for (const c of seriesCharts.charts) a.image(c.path, c.title)
    } else a.para('*Per-second series: not in this directory (raw/ absent; promoted baselines keep CSVs only).*')
  }
  findingList(a, findings, ['F6'])

  // --- Versions
  a.heading(2, 'Versions')
  const versioned = versionCells(closedPooling)
  if (versioned.length === 0) a.para('*Not measured in this run (versions series): no proxy was measured in two versions with the same variant.*')
  else {
    a.para('Every catalog version of each proxy with its article config and with a pool added (series `versions`, interleaved in one phase), and nginx\'s isolation variants on both sides of 1.29.7.')
    a.table('versions', [...cellColumns('CPU', 'µs/req'), { title: 'conns/1k', value: (c) => c.medians.backend_conns_per_1k_req }], versioned)
    const series = versioned.filter((c) => c.key.series === 'versions' && c.summary)
    if (series.length) {
      charts.push({
        path: 'charts/versions.svg', title: 'Proxy CPU µs per request by version', kind: 'bar',
        rows: series.map((c) => ({ category: `${c.key.proxy} ${c.key.version}`, group: String(c.key.variant), value: c.summary!.median, lo: c.summary!.min, hi: c.summary!.max })),
        options: { valueTitle: 'proxy CPU µs / request (median, min–max)' },
      })
      a.image('charts/versions.svg', 'Proxy CPU per request by version')
    }
  }
  findingList(a, findings, ['versions'])

  // --- WebSocket
  const ws = aggregates.cells.websocket
  a.heading(2, 'WebSocket')
  if (ws.length === 0) a.para('*Not measured in this run (ws series).*')
  else {
    a.table('websocket-cells', [
      { title: 'mode', value: (c) => k(c, 'mode') },
      { title: 'proxy', value: (c) => k(c, 'proxy') },
      { title: 'version', value: (c) => k(c, 'version') },
      { title: 'variant', value: (c) => k(c, 'variant') },
      { title: 'target conns', value: (c) => k(c, 'conns_target') },
      { title: 'established', value: (c) => c.medians.conns_established },
      { title: 'µs/msg', value: (c) => c.summary?.median ?? null },
      { title: 'msg/s', value: (c) => c.medians.msg_rate },
      { title: 'p99 ms', value: (c) => c.medians.p99_ms },
      { title: 'status', value: (c) => statusText(c) },
    ], ws)
    const hold = ws.filter((c) => c.key.mode === 'hold')
    if (hold.length) {
      charts.push({
        path: 'charts/websocket-hold.svg', title: 'WebSocket connections established of the target', kind: 'bar',
        rows: hold.map((c) => ({ category: `${c.key.proxy} ${c.key.variant}`, value: c.medians.conns_established ?? 0 })),
        options: { valueTitle: `connections established (target ${hold[0]!.key.conns_target})` },
      })
      a.image('charts/websocket-hold.svg', 'WebSocket hold: connections established')
    }
  }
  findingList(a, findings, ['F8'])

  // --- Claims ledger
  a.heading(2, 'Claims ledger')
  a.para(`Every claim of the source articles this harness can test, with its check over this run's cell medians (\`baselines/published/claims.yaml\`): ${counts}. "Not measured" means a cell the check needs is absent from this run; it is never counted as "not reproduced".`)
  a.table('claims', [
    { title: 'claim', value: (c) => c.id },
    { title: 'source', value: (c) => c.source.replace(/_.*$/, '') },
    { title: 'what was claimed', value: (c) => c.claim },
    { title: 'published', value: (c) => c.published },
    { title: 'check', value: (c) => c.expect },
    { title: 'this run', value: (c) => c.measured },
    { title: 'verdict', value: (c) => c.verdict, show: (c) => `**${esc(c.verdict)}**` },
  ], input.claims, 'The claims ledger was not evaluated.')

  // --- Baseline
  charts.push(...baselineSection(a, input.baseline))

  // --- Reproduce
  a.heading(2, 'How to reproduce')
  const proxyFlag = m.proxies.length === 5 ? '' : ` --proxies ${m.proxies.join(',')}`
  a.line('```sh',
    `npm ci\nnpx zx notebooks/run-all.mjs --profile ${m.profile} --series ${m.series.join(',')}${proxyFlag} --runtime ${m.runtime} --seed ${m.order_seed} --out results/${m.run_id}`,
    `\nnpm run report -- --run results/${m.run_id}${input.baseline ? ` --baseline ${input.baseline.id}` : ''}`,
    '\n```', '')
  a.para('The seed reproduces the order of the repeats. The numbers will differ on another machine; ratios between cells of one run and CPU µs per request are what carry over.')

  a.heading(2, 'Data')
  a.para('Each table above links its CSV. The run\'s own files: [measurements.csv](data/measurements.csv)' +
    (run.handshakes.length ? ', [handshakes.csv](data/handshakes.csv)' : '') +
    (run.websocket.length ? ', [websocket.csv](data/websocket.csv)' : '') +
    ', [manifest.json](data/manifest.json), one row per measured repeat.')

  return { markdown: a.toString(), files: a.files, charts }
}

const documented = (d: boolean | undefined) => (d === undefined ? '—' : d ? 'pool' : 'no pool')

const measuredPool = (conns: number | null): string => {
  if (conns === null) return '—'
  const c = poolClass(conns)
  return c === 'partial' ? 'partial (pool churns)' : c
}

/** Cells of proxies measured in more than one version with the same variant. */
function versionCells(cells: readonly CellSummary[]): CellSummary[] {
  const group = (c: CellSummary) => `${c.key.series}|${c.key.proxy}|${c.key.variant}`
  const versions = new Map<string, Set<string>>()
  for (const c of cells) versions.set(group(c), (versions.get(group(c)) ?? new Set()).add(String(c.key.version)))
  return cells.filter((c) => (versions.get(group(c))?.size ?? 0) > 1)
    .sort((a, b) => group(a).localeCompare(group(b)) || compareVersions(String(a.key.version), String(b.key.version)))
}

/** Open-model rate and VUs over time, one line per proxy and key type (repeat 1). */
function openChart(series: readonly OpenSeries[]): { charts: ChartRequest[] } | null {
  const open = series.filter((s) => s.series === 'tls-open' && s.repeat === 1)
  if (open.length === 0) return null
  // A second without a response has no latency (the generator writes 0): no point, not a zero.
  const rows = (metric: 'rate' | 'vus' | 'p99_ms') =>
    open.flatMap((s) => s.points.filter((p) => metric !== 'p99_ms' || p.rate > 0).map((p) => ({ x: p.t, y: p[metric], series: `${s.proxy} ${s.key_type}` })))
  const target = open[0]!.target_rps
  return {
    charts: [
      { path: 'charts/open-rate.svg', title: `Open model at ${target} rps: achieved rate per second`, kind: 'line', rows: rows('rate'), options: { xTitle: 'second', yTitle: 'responses / s' } },
      { path: 'charts/open-vus.svg', title: 'Open model: virtual users (each new one is a new TLS handshake)', kind: 'line', rows: rows('vus'), options: { xTitle: 'second', yTitle: 'VUs' } },
      { path: 'charts/open-p99.svg', title: 'Open model: p99 latency per second', kind: 'line', rows: rows('p99_ms'), options: { xTitle: 'second', yTitle: 'p99 ms' } },
    ],
  }
}
