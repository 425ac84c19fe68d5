import { byName, column, inFile, rowFile, withRetired } from './column.ts'
import { KINDS, oneOf, oneOfOrNone } from './kinds.ts'

/**
 * The column table: every column of every row CSV once, with its kind (type and empty
 * value), the schema version it appeared in, its unit and meaning. The row schemas and
 * types, the column lists, the blank rows, the reader's rule for older files, the data
 * dictionary and docs/data.md derive from it (lib/data/columns/derive.ts).
 *
 * A new column is one entry at the end of its file's list (a column several files share:
 * one entry in SHARED, named at the end of each list), with `since` one above the highest
 * version here when files of that version exist, so SCHEMA_VERSION follows. Never reorder
 * or rename: files written before keep their order and readers rely on names. A column no
 * longer written leaves its list and is named in its file's retired columns (ROW_FILES).
 */

const { id, text, count, positive, seconds, measured, countOrNone, positiveOrNone, path } = KINDS

/** Columns several files have, the same in each unless a list says `inFile`. */
const SHARED = byName([
  column('run_id', id, 1, '', 'the run (results/<run-id>)'),
  column(
    'series',
    id,
    1,
    '',
    'the series row: same (article config), pool-added, pool-removed, haproxy-reuse, nginx-keepalive, direct, custom, versions, bisect, capacity (a step of the capacity search), tls-*, ws-*, h2, h3 (h3-open: its open model), h3-handshake (QUIC handshakes), h3-handshake-tcp (TCP+TLS handshakes through the same h3 config)',
  ),
  column('proxy', id, 1, '', 'haproxy, nginx, envoy, traefik, caddy, or direct (the backend without a proxy)'),
  column('version', id, 1, '', "the proxy version measured (direct: the backend's source hash)"),
  column('variant', id, 1, '', 'the config variant (stacks/<proxy>/templates/<variant>.*), custom:<file> for --config'),
  column('key_type', text, 1, '', "the certificate's key: ec256, rsa2048, rsa4096"),
  column('connections', count, 1, 'count', 'client connections (closed model), the VU cap (open model), or handshaking workers'),
  column(
    'duration_s',
    seconds,
    1,
    's',
    'length of the measurement window; a window that extended itself for clean time (closed, or run by the generator) states the length it ran (docs/method/disturbance.md#extension)',
  ),
  column('repeat', positive, 1, '', 'the repeat (interleaved round) number, from 1'),
  column('errors', count, 1, 'count', 'failed requests (status, body, connection errors)'),
  column('p50_ms', measured, 1, 'ms', 'median latency'),
  column('p99_ms', measured, 1, 'ms', '99th percentile latency'),
  column('max_ms', measured, 1, 'ms', 'largest latency'),
  column(
    'counted_share',
    measured,
    4,
    'fraction of the window',
    "the share of the window the row's figures count; below 1, a neighbour disturbed the other slices and only the clean ones are counted (reason says how much; raw/<stem>.slices.json keeps the slices of every window disturbed as a whole; docs/method/disturbance.md#slices); empty in WebSocket hold rows and in files written before the column",
  ),
  column(
    'disturbed_slice_share',
    measured,
    6,
    'fraction of the window',
    "the share of the window's half-second slices a neighbour disturbed (docs/method/disturbance.md#slices): 0 on a quiet machine; what the too-busy line sums; empty where slices were not read (WebSocket hold rows, a slice not judged) and in files written before the column",
  ),
  column('generator_cpu_share', measured, 1, 'fraction of its cpuset', "the load generator's CPU use; >= 0.9 makes the row invalid (saturated)"),
  column('proxy_cpu_share', measured, 1, 'fraction of its cpuset', "the proxy's CPU use in the window"),
  column('status', oneOf(['valid', 'invalid', 'failed']), 1, '', 'valid, invalid (excluded from the findings, see reason) or failed (did not run)'),
  column('reason', text, 1, '', 'why a row is invalid or failed, or what was noted'),
  column('runtime', text, 1, '', 'native, docker (host network) or docker bridge: where the roles ran'),
  column('started_at', text, 1, 'ISO 8601 time', 'when the repeat started'),
  column(
    'steal_share',
    measured,
    2,
    'fraction of the window',
    "hypervisor steal on the measured role's cores in the window; > 0.02 makes the window disturbed",
  ),
  column(
    'foreign_cpu_share',
    measured,
    2,
    'fraction of the window',
    "CPU on the measured role's cores not accounted to any bench role; > 0.10 makes the window disturbed",
  ),
  column('invocation', positiveOrNone, 2, '', 'the manifest invocation (start or --resume) that measured the row'),
  column(
    'load_foreign_cpu_share',
    measured,
    2,
    'fraction of the window',
    "the same on the generator's and backend's cores outside the measured ones; > 0.10 makes the window disturbed",
  ),
  // Kernel counts of the proxy per unit of the file's primary metric (docs/method/counts.md).
  column(
    'proxy_syscalls_per_req',
    measured,
    2,
    'system calls / unit',
    "the proxy's system calls (raw_syscalls:sys_enter, every process of its cgroup) in the window per request (handshakes.csv: per handshake; websocket.csv: per message; tcp.csv: per connection, per MiB in stream cells); does not depend on the machine's speed (docs/method/counts.md)",
  ),
  column('proxy_ctxsw_per_req', measured, 2, 'switches / unit', "the proxy's context switches, voluntary and involuntary, per unit as above"),
  column(
    'proxy_ctxsw_involuntary_per_req',
    measured,
    2,
    'switches / unit',
    'the involuntary (preempted) ones, from /proc, of the threads alive at both ends of the window',
  ),
  column(
    'proxy_user_us_per_req',
    measured,
    2,
    'µs CPU / unit',
    "the user-mode part of the primary metric (the cgroup's tick-sampled user/system share applied to the exact total)",
  ),
  column('proxy_sys_us_per_req', measured, 2, 'µs CPU / unit', 'the system-mode part; user + sys = the primary metric'),
  column('counts_reason', text, 2, '', "why the count columns are empty (perf missing, another host's kernel, --no-counts, direct row); empty when counted"),
  column(
    'foreign_processes',
    text,
    2,
    'command share-of-a-core, …',
    "a disturbed window: the top 3 commands outside the harness's process tree by CPU over the window (machine-wide), e.g. python3 63%; command names only, never arguments; empty when not disturbed",
  ),
  // h3 rows (docs/series/h3.md#udp-datagrams).
  column(
    'udp_datagrams_per_req',
    measured,
    3,
    'datagrams / request',
    'h3 rows: UDP datagrams the generator sent and received (both ways, ACKs included) per request in its window, counted on its sockets; empty for TCP rows',
  ),
  // Work rows (series work): user-space instructions counted under callgrind (docs/method/work.md).
  column(
    'instructions_per_req',
    measured,
    7,
    'instructions / unit',
    "work rows: the proxy's user-space instructions per request (handshakes.csv: per full handshake and its GET), counted under Valgrind's callgrind as the slope between a small and a large batch, idle work taken off, Go proxies with their collector off (GOGC=off); does not depend on the machine's speed (docs/method/work.md); empty in timed rows",
  ),
  column(
    'instructions_per_req_low',
    measured,
    7,
    'instructions / unit',
    "work rows: the 95% interval's low end, from the rounds' slopes (t-interval of their mean)",
  ),
  column('instructions_per_req_high', measured, 7, 'instructions / unit', "work rows: the interval's high end"),
  column('counted_batches', countOrNone, 7, 'count', 'work rows: batches counted (a small and a large one a round); empty in timed rows'),
  column(
    'work_setup',
    text,
    7,
    '',
    "work rows: how the work was counted: the Valgrind version, the one deviation from the config (one worker), the environment that fixes code paths (CPU features masked, Go's preemption signal off), the idle share taken off and GC per request; empty in timed rows",
  ),
])

const S = SHARED
const IDENTITY = [S.run_id, S.series, S.proxy, S.version, S.variant] as const
const DISTURBANCE = [S.steal_share, S.foreign_cpu_share, S.invocation] as const
export const COUNTS = [
  S.proxy_syscalls_per_req,
  S.proxy_ctxsw_per_req,
  S.proxy_ctxsw_involuntary_per_req,
  S.proxy_user_us_per_req,
  S.proxy_sys_us_per_req,
  S.counts_reason,
] as const

/** Counted work (series work, docs/method/work.md): measurements.csv per request, handshakes.csv per handshake. */
export const WORK = [S.instructions_per_req, S.instructions_per_req_low, S.instructions_per_req_high, S.counted_batches, S.work_setup] as const

/**
 * Columns of version 2 no verdict, comparison or chart used (issue #42): the reference measured
 * in each window and the two-part calibrated unit. Files written with them still read.
 */
const RETIRED_REFERENCE = ['reference_kind', 'reference_cpu_us_per_op', 'reference_cpu_share', 'proxy_cpu_per_reference'] as const
const RETIRED_CALIBRATION = ['proxy_cpu_calibrated', 'calibration_unit'] as const

/** measurements.csv: HTTP, closed and open model. */
const MEASUREMENTS = rowFile('measurements.csv', 1, [
  ...IDENTITY,
  S.key_type,
  column('model', oneOf(['closed', 'open']), 1, '', 'closed (wrk, fixed connections) or open (loadgen open, fixed arrival rate)'),
  S.connections,
  column('target_rps', measured, 1, 'req/s', "the open model's fixed arrival rate; empty in the closed model"),
  S.duration_s,
  S.repeat,
  column('requests', count, 1, 'count', "successful requests in the window (its clean slices, where counted_share < 1), from the backend's own counter"),
  S.errors,
  column('rps', measured, 1, 'req/s', 'requests per second (machine-specific context, never compared across machines)'),
  S.p50_ms,
  column('p90_ms', measured, 1, 'ms', '90th percentile latency'),
  S.p99_ms,
  column('p999_ms', measured, 1, 'ms', '99.9th percentile latency'),
  S.max_ms,
  column('proxy_cpu_us_per_req', measured, 1, 'µs CPU / request', "the proxy's CPU time in the window divided by the requests in it: the primary metric"),
  column('backend_cpu_us_per_req', measured, 1, 'µs CPU / request', "the backend's CPU time per request (the direct row's cost)"),
  S.generator_cpu_share,
  column(
    'backend_conns_per_1k_req',
    measured,
    1,
    'connections / 1000 requests',
    'TCP connections the backend accepted: the measured pool detector (about 0 = reuse, 1000 = a connection per request)',
  ),
  column('max_vus', measured, 1, 'count', 'open model: most virtual users (connections) in use'),
  column('dropped', measured, 1, 'count', 'open model: iterations dropped because every VU was busy at the cap'),
  S.status,
  S.reason,
  S.proxy_cpu_share,
  S.runtime,
  S.started_at,
  ...DISTURBANCE,
  // What the cell asked for (docs/series/scenarios.md).
  column(
    'scheme',
    oneOfOrNone(['http', 'https']),
    2,
    '',
    'what the client spoke to the proxy: https, or http for the plain-HTTP variants (direct rows: http to the backend); empty in files written before the column',
  ),
  column('path', path, 2, '', "the request path: / (the backend's 11-byte hello world) or /json (a JSON body of body_bytes generated per request)"),
  column('body_bytes', positiveOrNone, 2, 'bytes', '/json: the body size asked for, verified on every verification response; empty for /'),
  column(
    'slo',
    text,
    2,
    '',
    'capacity rows: the SLO the step was judged against, e.g. p99<10ms,errors<0.1% (errors count dropped requests too); empty in other series',
  ),
  column('streams', positiveOrNone, 2, 'streams', 'h2 and h3 rows: requests in flight on each connection (h2load -m, loadgen h3 -m); empty for HTTP/1.1 rows'),
  S.load_foreign_cpu_share,
  ...COUNTS,
  S.foreign_processes,
  S.udp_datagrams_per_req,
  S.counted_share,
  S.disturbed_slice_share,
  ...WORK,
  column(
    'time_wait_at_end',
    countOrNone,
    8,
    'count',
    "closed model: TCP sockets in TIME_WAIT in the proxy's network namespace at the window's end (the ports a connection per request holds); empty where not read (the direct row, a proxy on another host) and in files written before the column",
  ),
  column(
    'pair_window',
    oneOfOrNone(['instant']),
    9,
    '',
    "instant: a then/now pair measured in one window at once, its two proxies sharing the proxy's core (--pair-at instant, docs/method/pairs.md#at-one-instant); empty for a window of its own",
  ),
])

/** handshakes.csv: full TLS handshakes (+ one GET each) per key type. */
const HANDSHAKES = rowFile('handshakes.csv', 1, [
  ...IDENTITY,
  inFile(S.key_type, { kind: id }),
  inFile(S.connections, { kind: positive, meaning: 'concurrent handshaking clients' }),
  S.duration_s,
  S.repeat,
  column('handshakes', count, 1, 'count', 'TLS handshakes completed in the window (full ones unless resumption says otherwise)'),
  column(
    'resumed',
    count,
    1,
    'count',
    "resumed handshakes: must be 0 where resumption is none (a row with one is invalid); the proxy's answer where the client offers tickets",
  ),
  inFile(S.errors, { meaning: 'failed handshakes or requests' }),
  column('rate', measured, 1, 'handshakes/s', 'handshakes per second (machine-specific)'),
  S.p50_ms,
  S.p99_ms,
  column('proxy_cpu_us_per_handshake', measured, 1, 'µs CPU / handshake', "the proxy's CPU time per full handshake and its one GET"),
  S.generator_cpu_share,
  S.proxy_cpu_share,
  S.status,
  S.reason,
  S.runtime,
  S.started_at,
  ...DISTURBANCE,
  column(
    'resumption',
    oneOfOrNone(['none', 'tickets', 'tickets-tls12', '0rtt']),
    2,
    '',
    'what the client offered to resume with: none, tickets (TLS 1.3), tickets-tls12, or over QUIC 0rtt (tickets, the request sent as early data); empty (tls series, older files): none',
  ),
  S.load_foreign_cpu_share,
  ...COUNTS,
  S.foreign_processes,
  // QUIC rows (series h3-handshake; docs/series/h3.md#handshakes).
  inFile(S.udp_datagrams_per_req, {
    unit: 'datagrams / handshake',
    meaning:
      'QUIC rows (series h3-handshake): UDP datagrams the generator sent and received per handshake, its one GET and the close included; empty for TCP rows',
  }),
  column(
    'early_data',
    countOrNone,
    3,
    'count',
    'QUIC rows: connections whose request the proxy accepted as 0-RTT early data; 0 unless resumption is 0rtt; empty for TCP rows',
  ),
  inFile(S.counted_share, { since: 5 }),
  S.disturbed_slice_share,
  ...WORK,
])

/** websocket.csv: echo (messages over N connections) and hold (N idle connections). */
const WEBSOCKET = rowFile('websocket.csv', 1, [
  ...IDENTITY,
  column('mode', oneOf(['echo', 'hold']), 1, '', 'echo (messages back to back) or hold (idle connections pinged)'),
  column('conns_target', count, 1, 'count', 'WebSocket connections asked for'),
  column('conns_established', count, 1, 'count', 'WebSocket connections the proxy accepted'),
  column('messages', count, 1, 'count', 'echoed messages (hold: pongs)'),
  column('msg_rate', measured, 1, 'messages/s', 'messages per second (machine-specific)'),
  column('proxy_cpu_us_per_msg', measured, 1, 'µs CPU / message', "the proxy's CPU time per echoed message (hold: per ping)"),
  inFile(S.p50_ms, { meaning: 'median message round trip (hold: ping round trip)' }),
  inFile(S.p99_ms, { meaning: '99th percentile message round trip (hold: ping round trip)' }),
  S.status,
  S.reason,
  S.repeat,
  S.duration_s,
  column('survived', measured, 1, 'count', 'hold: connections still open at the end'),
  column('refused', measured, 1, 'count', 'hold: connection attempts refused'),
  column('closed_early', measured, 1, 'count', 'hold: connections closed before the end'),
  S.max_ms,
  S.generator_cpu_share,
  S.runtime,
  S.started_at,
  ...DISTURBANCE,
  S.load_foreign_cpu_share,
  ...COUNTS,
  S.foreign_processes,
  inFile(S.counted_share, { since: 5 }),
  S.disturbed_slice_share,
])

/**
 * tcp.csv: L4 forwarding (series l4): connections through the proxy to the backend's TCP
 * echo. mode short: one message per connection (the cost is per connection); stream: each
 * connection sends `stream_bytes` and reads them back (the cost is per MiB).
 */
const TCP = rowFile('tcp.csv', 2, [
  ...IDENTITY,
  S.key_type,
  column('mode', oneOf(['short', 'stream']), 2, '', 'short (one message per connection) or stream (stream_bytes per connection)'),
  inFile(S.connections, { kind: positive, meaning: 'concurrent workers, each opening connections back to back' }),
  column('msg_bytes', count, 2, 'bytes', 'l4 short: the one message each connection sends and reads back (0 in stream cells)'),
  column('stream_bytes', count, 2, 'bytes', 'l4 stream: what each connection sends and reads back (0 in short cells)'),
  S.duration_s,
  S.repeat,
  column('conns', count, 2, 'count', 'l4: connections completed with every byte echoed'),
  inFile(S.errors, { meaning: 'connections that failed (connect, handshake, short or differing echo)' }),
  column('mismatches', count, 2, 'count', 'l4: connections whose echo differed from what was sent (the row is invalid)'),
  column('bytes_echoed', count, 2, 'bytes', 'l4: bytes read back through the proxy'),
  column('conn_rate', measured, 2, 'connections/s', 'l4: completed connections per second (machine-specific)'),
  column('mib_per_s', measured, 2, 'MiB/s', 'l4: MiB read back per second (machine-specific)'),
  S.p50_ms,
  S.p99_ms,
  S.max_ms,
  column('proxy_cpu_us_per_conn', measured, 2, 'µs CPU / connection', "l4: the proxy's CPU time per completed connection (the short cells' metric)"),
  column('proxy_cpu_us_per_mib', measured, 2, 'µs CPU / MiB', "l4 stream: the proxy's CPU time per MiB echoed (each MiB crosses it twice, out and back)"),
  column(
    'backend_conns_per_conn',
    measured,
    2,
    'connections / connection',
    "l4: connections the backend's echo accepted per client connection (1: every one went through to the backend)",
  ),
  S.generator_cpu_share,
  S.proxy_cpu_share,
  S.status,
  S.reason,
  S.runtime,
  S.started_at,
  ...DISTURBANCE,
  S.load_foreign_cpu_share,
  ...COUNTS,
  S.foreign_processes,
  inFile(S.counted_share, { since: 5 }),
  S.disturbed_slice_share,
])

/** default-keys.csv (tls series, phase tls-default-key): what a proxy served when given no certificate (lib/data/default-keys.ts). */
const DEFAULT_KEYS = rowFile('default-keys.csv', 2, [
  ...IDENTITY,
  S.repeat,
  column(
    'served_key',
    text,
    2,
    '',
    "the served key in the harness's key-type words (rsa2048, ec256, …), or of a tls-acme-default row the ACME default the binary states; empty when not recognised",
  ),
  column('key_algorithm', text, 2, '', "the served certificate's public key algorithm, as openssl names it"),
  column('key_bits', positiveOrNone, 2, 'bits', 'its key size; empty when the certificate does not say'),
  column('curve', text, 2, '', 'its curve (EC keys); empty otherwise'),
  column('subject', text, 2, '', "the served certificate's subject"),
  column('issuer', text, 2, '', "the served certificate's issuer"),
  column('tool', text, 2, '', 'what read the key: openssl s_client (a served certificate) or traefik --help (the ACME default)'),
  S.status,
  S.reason,
  S.runtime,
  S.started_at,
  S.invocation,
])

/** Every row file of a run directory, by table name; the dictionary's order (a column's first file gives its general meaning). */
export const ROW_FILES = {
  measurements: withRetired(MEASUREMENTS, [...RETIRED_CALIBRATION, ...RETIRED_REFERENCE]),
  handshakes: withRetired(HANDSHAKES, RETIRED_REFERENCE),
  websocket: WEBSOCKET,
  tcp: TCP,
  'default-keys': DEFAULT_KEYS,
} as const
