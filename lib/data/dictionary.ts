/**
 * The data dictionary: one table of column descriptions (unit, meaning) for every CSV of a
 * run (measurements, handshakes, websocket, summary/*), published as the site's
 * `data/README.md`. A column means the same in every file unless FILE_COLUMNS says
 * otherwise; summary statistics of a metric (`<metric>_median`, …) are described from the
 * metric's own entry. test/data/dictionary.test.ts checks that every column is described.
 */

export interface ColumnDoc {
  unit: string
  meaning: string
}

const d = (unit: string, meaning: string): ColumnDoc => ({ unit, meaning })

/** Columns by name, the same meaning in every file that has them. */
export const COLUMNS: Record<string, ColumnDoc> = {
  run_id: d('', 'the run (results/<run-id>)'),
  series: d('', 'the series row: same (article config), pool-added, pool-removed, haproxy-reuse, nginx-keepalive, direct, custom, versions, bisect, capacity (a step of the capacity search), tls-*, ws-*, h2, h3, h3-handshake (QUIC handshakes), h3-handshake-tcp (TCP+TLS handshakes through the same h3 config)'),
  proxy: d('', 'haproxy, nginx, envoy, traefik, caddy, or direct (the backend without a proxy)'),
  version: d('', 'the proxy version measured (direct: the backend\'s source hash)'),
  variant: d('', 'the config variant (stacks/<proxy>/templates/<variant>.*), custom:<file> for --config'),
  key_type: d('', 'the certificate\'s key: ec256, rsa2048, rsa4096'),
  model: d('', 'closed (wrk, fixed connections) or open (loadgen open, fixed arrival rate)'),
  connections: d('count', 'client connections (closed model), the VU cap (open model), or handshaking workers'),
  target_rps: d('req/s', 'the open model\'s fixed arrival rate; empty in the closed model'),
  duration_s: d('s', 'length of the measurement window'),
  repeat: d('', 'the repeat (interleaved round) number, from 1'),
  requests: d('count', 'successful requests in the window, from the backend\'s own counter'),
  errors: d('count', 'failed requests (status, body, connection errors)'),
  rps: d('req/s', 'requests per second (machine-specific context, never compared across machines)'),
  p50_ms: d('ms', 'median latency'),
  p90_ms: d('ms', '90th percentile latency'),
  p99_ms: d('ms', '99th percentile latency'),
  p999_ms: d('ms', '99.9th percentile latency'),
  max_ms: d('ms', 'largest latency'),
  proxy_cpu_us_per_req: d('µs CPU / request', 'the proxy\'s CPU time in the window divided by the requests in it: the primary metric'),
  backend_cpu_us_per_req: d('µs CPU / request', 'the backend\'s CPU time per request (the direct row\'s cost)'),
  generator_cpu_share: d('fraction of its cpuset', 'the load generator\'s CPU use; >= 0.9 makes the row invalid (saturated)'),
  backend_conns_per_1k_req: d('connections / 1000 requests', 'TCP connections the backend accepted: the measured pool detector (about 0 = reuse, 1000 = a connection per request)'),
  max_vus: d('count', 'open model: most virtual users (connections) in use'),
  dropped: d('count', 'open model: iterations dropped because every VU was busy at the cap'),
  status: d('', 'valid, invalid (excluded from the findings, see reason) or failed (did not run)'),
  reason: d('', 'why a row is invalid or failed, or what was noted'),
  proxy_cpu_share: d('fraction of its cpuset', 'the proxy\'s CPU use in the window'),
  runtime: d('', 'native, docker (host network) or docker bridge: where the roles ran'),
  started_at: d('ISO 8601 time', 'when the repeat started'),
  steal_share: d('fraction of the window', 'hypervisor steal on the measured role\'s cores in the window; > 0.02 makes the window disturbed'),
  foreign_cpu_share: d('fraction of the window', 'CPU on the measured role\'s cores not accounted to any bench role; > 0.10 makes the window disturbed'),
  load_foreign_cpu_share: d('fraction of the window', 'the same on the generator\'s and backend\'s cores outside the measured ones; > 0.10 makes the window disturbed'),
  foreign_processes: d('command share-of-a-core, …', 'a disturbed window: the top 3 commands outside the harness\'s process tree by CPU over the window (machine-wide), e.g. python3 63%; command names only, never arguments; empty when not disturbed'),
  reference_kind: d('', 'the reference measured in the row\'s own window on the proxy\'s core (--reference): rtt@<rate>/s, a fixed loopback ping-pong; failed: it gave no reading (reason says why); empty: none'),
  reference_cpu_us_per_op: d('µs CPU / round trip', 'the reference\'s CPU per operation in that window, both of its processes'),
  reference_cpu_share: d('fraction of one core', 'the reference\'s CPU in the window: what it took from the proxy\'s core'),
  proxy_cpu_per_reference: d('reference round trips / request', 'the row\'s primary metric divided by reference_cpu_us_per_op of its own window (docs/method/reference.md)'),
  invocation: d('', 'the manifest invocation (start or --resume) that measured the row'),
  proxy_syscalls_per_req: d('system calls / unit', 'the proxy\'s system calls (raw_syscalls:sys_enter, every process of its cgroup) in the window per request (handshakes.csv: per handshake; websocket.csv: per message; tcp.csv: per connection, per MiB in stream cells); does not depend on the machine\'s speed (docs/method/counts.md)'),
  proxy_ctxsw_per_req: d('switches / unit', 'the proxy\'s context switches, voluntary and involuntary, per unit as above'),
  proxy_ctxsw_involuntary_per_req: d('switches / unit', 'the involuntary (preempted) ones, from /proc, of the threads alive at both ends of the window'),
  proxy_user_us_per_req: d('µs CPU / unit', 'the user-mode part of the primary metric (the cgroup\'s tick-sampled user/system share applied to the exact total)'),
  proxy_sys_us_per_req: d('µs CPU / unit', 'the system-mode part; user + sys = the primary metric'),
  counts_reason: d('', 'why the count columns are empty (perf missing, another host\'s kernel, --no-counts, direct row); empty when counted'),
  proxy_cpu_calibrated: d('reference µs / request', 'the proxy\'s CPU per request in calibration_unit (the direct row: the backend\'s), comparable across runs and machines (docs/method/calibration.md)'),
  calibration_unit: d('', 'the unit of proxy_cpu_calibrated: two-part-ref-us-v1 (counted system calls at the reference syscall cost, the rest scaled by the compute loop); empty where the run has no two-part calibration or the row no counts'),
  scheme: d('', 'what the client spoke to the proxy: https, or http for the plain-HTTP variants (direct rows: http to the backend); empty in files written before the column'),
  path: d('', 'the request path: / (the backend\'s 11-byte hello world) or /json (a JSON body of body_bytes generated per request)'),
  body_bytes: d('bytes', '/json: the body size asked for, verified on every verification response; empty for /'),
  streams: d('streams', 'h2 and h3 rows: requests in flight on each connection (h2load -m, loadgen h3 -m); empty for HTTP/1.1 rows'),
  udp_datagrams_per_req: d('datagrams / request', 'h3 rows: UDP datagrams the generator sent and received (both ways, ACKs included) per request in its window, counted on its sockets; empty for TCP rows (docs/series/h3.md#udp-datagrams)'),
  early_data: d('count', 'QUIC handshake rows (series h3-handshake): connections whose request the proxy accepted as 0-RTT early data; 0 unless resumption is 0rtt; empty for TCP rows'),
  slo: d('', 'capacity rows: the SLO the step was judged against, e.g. p99<10ms,errors<0.1% (errors count dropped requests too); empty in other series'),
  handshakes: d('count', 'TLS handshakes completed in the window (full ones unless resumption says otherwise)'),
  resumed: d('count', 'resumed handshakes: must be 0 where resumption is none (a row with one is invalid); the proxy\'s answer where the client offers tickets'),
  resumption: d('', 'what the client offered to resume with: none, tickets (TLS 1.3), tickets-tls12, or over QUIC 0rtt (tickets, the request sent as early data); empty (tls series, older files): none'),
  rate: d('handshakes/s', 'handshakes per second (machine-specific)'),
  proxy_cpu_us_per_handshake: d('µs CPU / handshake', 'the proxy\'s CPU time per full handshake and its one GET'),
  mode: d('', 'echo (messages back to back) or hold (idle connections pinged)'),
  conns_target: d('count', 'WebSocket connections asked for'),
  conns_established: d('count', 'WebSocket connections the proxy accepted'),
  messages: d('count', 'echoed messages (hold: pongs)'),
  msg_rate: d('messages/s', 'messages per second (machine-specific)'),
  proxy_cpu_us_per_msg: d('µs CPU / message', 'the proxy\'s CPU time per echoed message (hold: per ping)'),
  survived: d('count', 'hold: connections still open at the end'),
  refused: d('count', 'hold: connection attempts refused'),
  closed_early: d('count', 'hold: connections closed before the end'),
  // tcp.csv (series l4)
  msg_bytes: d('bytes', 'l4 short: the one message each connection sends and reads back (0 in stream cells)'),
  stream_bytes: d('bytes', 'l4 stream: what each connection sends and reads back (0 in short cells)'),
  conns: d('count', 'l4: connections completed with every byte echoed'),
  mismatches: d('count', 'l4: connections whose echo differed from what was sent (the row is invalid)'),
  bytes_echoed: d('bytes', 'l4: bytes read back through the proxy'),
  conn_rate: d('connections/s', 'l4: completed connections per second (machine-specific)'),
  mib_per_s: d('MiB/s', 'l4: MiB read back per second (machine-specific)'),
  proxy_cpu_us_per_conn: d('µs CPU / connection', 'l4: the proxy\'s CPU time per completed connection (the short cells\' metric)'),
  proxy_cpu_us_per_mib: d('µs CPU / MiB', 'l4 stream: the proxy\'s CPU time per MiB echoed (each MiB crosses it twice, out and back)'),
  backend_conns_per_conn: d('connections / connection', 'l4: connections the backend\'s echo accepted per client connection (1: every one went through to the backend)'),
  // summary/{measurements,handshakes,websocket}.csv: one row per cell.
  rows: d('count', 'rows of the cell (all repeats, any status)'),
  valid: d('count', 'valid rows of the cell'),
  invalid: d('count', 'invalid rows of the cell'),
  failed: d('count', 'failed rows of the cell'),
  ci_level: d('probability', 'real coverage of the median\'s interval (below 0.95 with fewer than 6 repeats)'),
  cv: d('fraction', 'coefficient of variation of the primary metric over valid rows'),
  ci_halfwidth_pct: d('%', 'half-width of the 95% interval of the cost metric\'s median, relative to it (the adaptive repeats\' target)'),
  ci_halfwidth_level: d('probability', 'coverage of that interval'),
  disturbed: d('count', 'windows of the cell marked disturbed'),
  unstable: d('boolean', 'its repeats disagree beyond the pooled noise of the table\'s cells under its load model (p < 0.001): figures on it are widened by its own spread'),
  reasons: d('', 'the distinct reasons of the cell\'s invalid and failed rows'),
  warnings: d('', 'what to keep in mind reading the figure (few repeats, rows excluded, noisy cell)'),
  errors_pct: d('%', 'errors / (requests + errors)'),
  // summary/ratios.csv
  name: d('', 'the ratio: pool effect, pool-removed spread, proxy vs direct, …'),
  value: d('ratio or figure', 'the value (findings.csv: the figure the verdict was decided on)'),
  numerator: d('', 'the numerator cell and its median'),
  denominator: d('', 'the denominator cell and its median'),
  comparable: d('boolean', 'false for ratios of rates (RPS): never compared across machines'),
  // summary/findings.csv and summary/claims.csv
  id: d('', 'the finding (F1-F8) or claim id (baselines/published/claims.yaml)'),
  title: d('', 'the finding as the seed stated it'),
  verdict: d('', 'findings: held, not held, inconclusive, not measured, info; claims: reproduced, not reproduced, inconclusive, not measured, not runnable here'),
  figure: d('', 'the finding\'s figures in words'),
  label: d('', 'which figure of the finding the interval belongs to'),
  lo: d('as value', 'low end of the 95% interval'),
  hi: d('as value', 'high end of the 95% interval'),
  level: d('probability', 'the interval\'s coverage (order statistics: exact, below 0.95 with few repeats)'),
  method: d('', 'how the interval was computed: order statistics, (paired) bootstrap, single repeat'),
  n: d('count', 'fewest repeats of any cell behind the figure'),
  source: d('', 'the seed article the claim comes from'),
  finding: d('', 'the finding the claim belongs to, if any'),
  expect: d('', 'the claim\'s check in words'),
  measured: d('', 'what this run shows, with numbers'),
  interval_method: d('', 'how the claim value\'s interval was computed'),
  reference: d('as value', 'what the check centres the value on (the published figure, 1, …)'),
  comparable_across_machines: d('boolean', 'whether the claim may be judged against another machine\'s figures'),
}

/** Where a column means something else in one file. */
export const FILE_COLUMNS: Record<string, Record<string, ColumnDoc>> = {
  'handshakes.csv': { errors: d('count', 'failed handshakes or requests'), connections: d('count', 'concurrent handshaking clients'), udp_datagrams_per_req: d('datagrams / handshake', 'QUIC rows (series h3-handshake): UDP datagrams the generator sent and received per handshake, its one GET and the close included; empty for TCP rows') },
  'tcp.csv': { mode: d('', 'short (one message per connection) or stream (stream_bytes per connection)'), connections: d('count', 'concurrent workers, each opening connections back to back'), errors: d('count', 'connections that failed (connect, handshake, short or differing echo)') },
  'summary/tcp.csv': { mode: d('', 'short or stream'), connections: d('count', 'concurrent workers') },
  'websocket.csv': { p50_ms: d('ms', 'median message round trip (hold: ping round trip)'), p99_ms: d('ms', '99th percentile message round trip (hold: ping round trip)') },
  'summary/ratios.csv': { proxy: d('', 'the proxy the ratio is about'), version: d('', 'its version') },
}

/** Summary statistics of a metric over a cell's valid repeats, by suffix. */
const STATS: [RegExp, string][] = [
  [/_median$/, 'median over the cell\'s valid repeats of'],
  [/_min$/, 'smallest valid repeat of'],
  [/_max$/, 'largest valid repeat of'],
  [/_ci_lo$/, 'low end of the interval of the median of'],
  [/_ci_hi$/, 'high end of the interval of the median of'],
]

/** A column of a file, or null when the dictionary does not describe it. */
export function describeColumn(file: string, column: string): ColumnDoc | null {
  const own = FILE_COLUMNS[file]?.[column] ?? COLUMNS[column]
  if (own) return own
  for (const [re, words] of STATS) {
    if (!re.test(column)) continue
    const base = COLUMNS[column.replace(re, '')]
    if (base) return { unit: base.unit, meaning: `${words} ${column.replace(re, '')}` }
  }
  return null
}

/** `data/README.md`: one table per CSV (its columns in file order). Undescribed columns say so. */
export function dataDictionary(files: readonly { path: string; columns: readonly string[] }[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|')
  const parts = [
    '# Data dictionary',
    '',
    'Every CSV of this run, its columns in file order, with units and meaning. The run\'s own CSVs have one row per measured repeat; `summary/` has one row per cell (statistics over valid repeats), the ratios, and the findings and claims with their 95% intervals. An empty value means not applicable or not measured.',
    '',
  ]
  for (const f of files) {
    parts.push(`## ${f.path}`, '', '| column | unit | meaning |', '|---|---|---|')
    for (const c of f.columns) {
      const doc = describeColumn(f.path.replace(/^data\//, ''), c)
      parts.push(`| \`${cell(c)}\` | ${cell(doc?.unit ?? '')} | ${cell(doc?.meaning ?? 'not described')} |`)
    }
    parts.push('')
  }
  return parts.join('\n')
}

/** The header of a CSV text (its first line), for the dictionary. */
export const csvHeader = (text: string): string[] => (text.split('\n')[0] ?? '').split(',').map((s) => s.replace(/^"|"$/g, '')).filter(Boolean)
