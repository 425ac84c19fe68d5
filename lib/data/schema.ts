import { z } from 'zod'

/**
 * Kernel counts of the proxy per unit of the table's primary metric (request, handshake,
 * message, connection), in every row table; docs/method/counts.md. The same names in
 * every file, so that comparisons and benches read them alike.
 */
export const COUNT_COLUMNS = [
  'proxy_syscalls_per_req', 'proxy_ctxsw_per_req', 'proxy_ctxsw_involuntary_per_req', 'proxy_user_us_per_req', 'proxy_sys_us_per_req', 'counts_reason',
] as const
/** The reference measured in the row's own window (--reference; lib/measure/reference.ts). */
const REFERENCE_COLUMNS = ['reference_kind', 'reference_cpu_us_per_op', 'reference_cpu_share', 'proxy_cpu_per_reference'] as const

/** Columns of measurements.csv in docs/data.md order; readers rely on these names. */
export const MEASUREMENT_COLUMNS = [
  'run_id', 'series', 'proxy', 'version', 'variant', 'key_type', 'model', 'connections', 'target_rps', 'duration_s', 'repeat',
  'requests', 'errors', 'rps', 'p50_ms', 'p90_ms', 'p99_ms', 'p999_ms', 'max_ms',
  'proxy_cpu_us_per_req', 'backend_cpu_us_per_req', 'generator_cpu_share', 'backend_conns_per_1k_req',
  'max_vus', 'dropped', 'status', 'reason',
  // Added columns (listed last in docs/data.md): where the row ran and how.
  'proxy_cpu_share', 'runtime', 'started_at',
  // Disturbance of the window (lib/measure/disturbance.ts); empty in files written before them.
  'steal_share', 'foreign_cpu_share',
  // The manifest invocation that wrote the row; empty in files written before it.
  'invocation',
  // What the cell asked for (docs/series/scenarios.md): the listener's scheme, the request path and,
  // for /json, the body size; files written before them read '', / and empty.
  'scheme', 'path', 'body_bytes',
  // The SLO a capacity step was judged against (lib/data/slo.ts); empty in other series and older files.
  'slo',
  // h2 rows: streams per connection (h2load -m); empty for HTTP/1.1 rows and older files.
  'streams',
  // Foreign CPU on the load cores (lib/measure/disturbance.ts); empty in files written before it.
  'load_foreign_cpu_share',
  // Kernel counts of the proxy per request (lib/runtime/counts.ts); empty, with counts_reason, where not counted.
  ...COUNT_COLUMNS,
  // The proxy's cost in the two-part calibrated unit (lib/analysis/calibrated.ts; the backend's for the direct row).
  'proxy_cpu_calibrated', 'calibration_unit',
  // A disturbed window's top foreign commands and their share of a core (docs/method/disturbance.md); empty otherwise.
  'foreign_processes',
  // The reference measured in the same window (lib/measure/reference.ts); empty without --reference and in older files.
  ...REFERENCE_COLUMNS,
  // h3 rows: UDP datagrams both ways per request (docs/series/h3.md#udp-datagrams); empty elsewhere.
  'udp_datagrams_per_req',
] as const

const num = z.number().finite()
/** Empty in the CSV: not applicable or not measured (e.g. proxy CPU of the direct row). */
const optNum = num.nullable()

/** The count columns; absent in files written before them (read as null / ''). */
const countFields = {
  /** System calls (raw_syscalls:sys_enter) of the proxy's processes per unit. */
  proxy_syscalls_per_req: optNum.optional(),
  /** Context switches (voluntary and involuntary) per unit. */
  proxy_ctxsw_per_req: optNum.optional(),
  /** Involuntary (preempted) context switches per unit, of the threads alive at both ends of the window. */
  proxy_ctxsw_involuntary_per_req: optNum.optional(),
  /** The proxy's CPU per unit split by the cgroup's user/system share: user + sys = the primary metric. */
  proxy_user_us_per_req: optNum.optional(),
  proxy_sys_us_per_req: optNum.optional(),
  /** Why the counts are empty (kernel, permissions, another host, no proxy); '' when counted. */
  counts_reason: z.string().optional(),
}

export const measurementSchema = z.object({
  run_id: z.string().min(1),
  series: z.string().min(1),
  proxy: z.string().min(1),
  version: z.string().min(1),
  variant: z.string().min(1),
  key_type: z.string(),
  model: z.enum(['closed', 'open']),
  connections: z.number().int().nonnegative(),
  target_rps: optNum,
  duration_s: num.nonnegative(),
  repeat: z.number().int().positive(),
  requests: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  rps: optNum,
  p50_ms: optNum,
  p90_ms: optNum,
  p99_ms: optNum,
  p999_ms: optNum,
  max_ms: optNum,
  proxy_cpu_us_per_req: optNum,
  backend_cpu_us_per_req: optNum,
  generator_cpu_share: optNum,
  backend_conns_per_1k_req: optNum,
  max_vus: optNum,
  dropped: optNum,
  status: z.enum(['valid', 'invalid', 'failed']),
  reason: z.string(),
  /** http or https: what the client spoke to the proxy (direct rows: http); absent in files written before the column. */
  scheme: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['http', 'https']).optional()),
  /** The request path: / (hello world) or /json (a generated body of body_bytes); files written before the column read /. */
  path: z.preprocess((v) => (v === '' || v === undefined ? '/' : v), z.string().startsWith('/')),
  /** /json: the body size asked for and verified, in bytes; empty for / (its 11-byte hello world). */
  body_bytes: z.number().int().positive().nullable().optional(),
  proxy_cpu_share: optNum,
  runtime: z.string(),
  started_at: z.string(),
  steal_share: optNum,
  foreign_cpu_share: optNum,
  /** Id of the manifest's invocation that measured the row (null: written before invocations were recorded). */
  invocation: z.number().int().positive().nullable().optional(),
  /** Capacity rows: the SLO the step was judged against, as written (lib/data/slo.ts); absent elsewhere. */
  slo: z.string().optional(),
  /** h2 rows (h2load): concurrent streams per connection; null for HTTP/1.1 (one request at a time per connection). */
  streams: z.number().int().positive().nullable().optional(),
  /** Foreign CPU on the load cores (the generator's and backend's, outside the measured ones); null: none apart, or a file written before it. */
  load_foreign_cpu_share: optNum.optional(),
  ...countFields,
  /** The proxy's CPU per request in calibration_unit (the backend's for the direct row); null where the run's calibration or the split lacks. */
  proxy_cpu_calibrated: optNum.optional(),
  /** The unit of proxy_cpu_calibrated (lib/analysis/calibrated.ts TWO_PART_UNIT); '' where none. */
  calibration_unit: z.string().optional(),
  /** A disturbed window's top foreign commands (`python3 63%, cc1 21%`: command name and share of a core, never arguments); empty: not disturbed, or a file written before it. */
  foreign_processes: z.string().optional(),
  /** The reference of the row's own window (--reference): what ran, its CPU µs per operation and share of the proxy's core, the row's cost in its unit; empty: none. */
  reference_kind: z.string().optional(),
  reference_cpu_us_per_op: optNum.optional(),
  reference_cpu_share: optNum.optional(),
  proxy_cpu_per_reference: optNum.optional(),
  /** h3 rows: UDP datagrams the generator sent and received per request in its window; null for TCP rows and older files. */
  udp_datagrams_per_req: optNum.optional(),
})

export type Measurement = z.infer<typeof measurementSchema>

/** Version of the run directory's schema (CSV columns + manifest); baselines must match it. */
export const SCHEMA_VERSION = 1

/** What makes two machines of one kind measure differently: CPU, microcode, kernel, mitigations, clock, virtualisation. */
export const fingerprintSchema = z.object({
  cpu_model: z.string(),
  cpu_family: z.string(),
  cpu_model_number: z.string(),
  stepping: z.string(),
  microcode: z.string(),
  kernel_release: z.string(),
  kernel_version: z.string(),
  /** /sys/devices/system/cpu/vulnerabilities/<name>: its one line. */
  vulnerabilities: z.record(z.string()),
  clocksource: z.string(),
  virtualization: z.string(),
  /** separate, charged or unknown (lib/setup/fingerprint.ts IrqAccounting): how foreign CPU was counted; absent in older manifests. */
  irq_time_accounting: z.string().optional(),
})

export type Fingerprint = z.infer<typeof fingerprintSchema>

/** References measured once per run on the proxy's cpuset (lib/measure/calibration.ts). */
export const calibrationSchema = z.object({
  /** CPU µs per 1-byte round trip over TCP loopback between two processes (both sides). */
  loopback_rtt_us: num.positive(),
  loopback_rtt_wall_us: num.positive().nullable().default(null),
  /** openssl speed, µs per sign (CPU time); null when that algorithm did not run. */
  ecdsa_p256_sign_us: num.positive().nullable(),
  rsa4096_sign_us: num.positive().nullable(),
  /** The two-part calibration (docs/method/calibration.md): CPU µs per getppid system call; null where it did not run (older manifests too). */
  syscall_us: num.positive().nullable().default(null),
  /** CPU µs per million iterations of loadgen compute's fixed integer loop; null where it did not run. */
  compute_us: num.positive().nullable().default(null),
  measured_at: z.string(),
  cpuset: z.string(),
})

export type Calibration = z.infer<typeof calibrationSchema>

/** What other work on the machine cost a run, over all its invocations (lib/run/quiet.ts). */
export const quietSchema = z.object({
  /** Seconds the run may lose to other work: waits for quiet plus disturbed windows (the profile's, or --wait-quiet). */
  budget_s: z.number().nonnegative(),
  /** Seconds the foreign load must stay under the threshold before a window is redone. */
  settle_s: z.number().nonnegative(),
  /** The preflight's line naming the other work, or null: the bench's cores were quiet. */
  preflight: z.string().nullable(),
  waits: z.number().int().nonnegative(),
  waited_s: z.number().nonnegative(),
  /** Waits that hit their bound before the machine became quiet. */
  unquiet_waits: z.number().int().nonnegative(),
  /** Seconds charged to the budget: waits plus disturbed windows. */
  spent_s: z.number().nonnegative(),
})

export type QuietRecord = z.infer<typeof quietSchema>
/** The system-call tax every role and the calibration ran under (run-all --tax-ns; lib/runtime/syscall-tax.ts). */
export const syscallTaxSchema = z.object({
  /** ns per system call asked for. */
  target_ns: num.nonnegative(),
  /** Filter instructions chosen for it. */
  insns: z.number().int().positive(),
  /** ns per system call the filter added, measured on `cpuset` (median of three). */
  measured_ns: num,
  /** ns per system call without the filter, measured beside it. */
  base_ns: num,
  cpuset: z.string(),
  measured_at: z.string(),
  note: z.string().default(''),
})

export type SyscallTax = z.infer<typeof syscallTaxSchema>

/**
 * One start of the harness on a run directory (the first run, then each --resume): the
 * code, settings and machine that measured the rows tagged with its id.
 */
export const invocationSchema = z.object({
  id: z.number().int().positive(),
  commit: z.string(),
  /** Tracked changes or untracked files in the work tree when it started. */
  dirty: z.boolean(),
  argv: z.array(z.string()),
  profile: z.string(),
  /** The profile's minimum repeats and window as run (after --repeats / --duration). */
  repeats: z.number().int().positive(),
  duration_s: z.number().positive(),
  series: z.array(z.string()),
  proxies: z.array(z.string()),
  cpusets: z.object({ proxy: z.string(), backend: z.string(), generator: z.string() }),
  runtime: z.string(),
  network: z.string(),
  seed: z.number().int(),
  components: z.array(z.object({ component: z.string(), version: z.string(), sha256: z.string() })),
  custom_configs: z.array(z.object({ proxy: z.string(), file: z.string(), sha256: z.string() })),
  schema_version: z.number().int().positive(),
  fingerprint: fingerprintSchema.nullable(),
  started: z.string(),
  finished: z.string().nullable(),
  /** Settings that differ from the invocation before, accepted with --allow-changes (one line each). */
  changes: z.array(z.string()).default([]),
})

export type Invocation = z.infer<typeof invocationSchema>

/** Roles on several Docker hosts (--hosts): where each ran, what each host is, and the network measured between them. */
export const hostsSchema = z.object({
  /** `--hosts` or the topology file. */
  source: z.string(),
  roles: z.array(z.object({ role: z.string(), engine: z.string(), address: z.string(), cpuset: z.string(), files: z.enum(['bind mounts', 'through the API']) })),
  hosts: z.array(z.object({
    engine: z.string(), name: z.string(), os: z.string(), kernel: z.string(), cpus: z.number(), memory_gib: z.number(), engine_version: z.string(),
    /** How its roles' CPU was read. */
    cpu_source: z.string(),
    /** Read in a short container on that host; null when it could not run. */
    fingerprint: fingerprintSchema.nullable(),
    /** Images its containers ran from; `sent`: loaded from this machine's engine (docker save → load). */
    images: z.array(z.object({ image: z.string(), id: z.string(), sent: z.boolean() })).default([]),
  })),
  /** A short probe from the generator's host to the proxy's (loadgen tcp against the backend's echo); null: they share a host. */
  network: z.object({
    from: z.string(), to: z.string(),
    /** Median of short connections (connect, 64-byte echo, close): about two round trips. */
    connect_echo_p50_ms: z.number().nullable(),
    /** One stream echoed back: the bytes each way per second. */
    stream_mib_per_s: z.number().nullable(),
    issue: z.string().nullable(),
  }).nullable(),
})

export type HostsRecord = z.infer<typeof hostsSchema>

export const manifestSchema = z.object({
  /** Absent in runs written before it was introduced: those are version 1. */
  schema_version: z.number().int().positive().default(SCHEMA_VERSION),
  run_id: z.string(),
  profile: z.string(),
  series: z.array(z.string()),
  proxies: z.array(z.string()),
  runtime: z.string(),
  cpu_source: z.string(),
  network_mode: z.string(),
  started: z.string(),
  finished: z.string().nullable(),
  host: z.object({ cpu_model: z.string(), cores: z.number(), kernel: z.string(), memory_gib: z.number(), hostname: z.string() }),
  cpusets: z.object({ proxy: z.string(), backend: z.string(), generator: z.string() }),
  cpusets_shared: z.boolean(),
  harness_commit: z.string(),
  tools: z.record(z.string()),
  components: z.array(z.object({ component: z.string(), version: z.string(), source: z.string(), path: z.string(), sha256: z.string() })),
  /** Docker runs: the image of each component (id, and digest for pulled official images). */
  images: z.array(z.object({ component: z.string(), version: z.string(), image: z.string(), id: z.string(), digest: z.string().nullable() })).default([]),
  order_seed: z.number().int(),
  profile_settings: z.object({
    repeats: z.number(), warmup_s: z.number(), duration_s: z.number(), connections: z.number(), threads: z.number(),
    /** Adaptive repeats (docs/method/overview.md); absent in runs written before them, which ran `repeats` rounds. */
    max_repeats: z.number().optional(), precision: z.number().optional(), budget_s: z.number().optional(), max_disturbed: z.number().optional(),
  }),
  custom_configs: z.array(z.object({ proxy: z.string(), file: z.string(), sha256: z.string() })).default([]),
  steps: z.record(z.enum(['pending', 'running', 'done', 'failed', 'interrupted'])),
  /** Absent in runs written before they were recorded (the committed baselines). */
  fingerprint: fingerprintSchema.nullable().default(null),
  calibration: calibrationSchema.nullable().default(null),
  /** Runs under a system-call tax only (bench/machine-shift.mjs); absent: none. */
  syscall_tax: syscallTaxSchema.optional(),
  /** Every invocation, first run and each --resume (absent in runs written before them). */
  invocations: z.array(invocationSchema).default([]),
  /** Runs with --hosts only (absent on one machine). */
  hosts: hostsSchema.optional(),
  /** Other work on the machine (docs/method/disturbance.md): the preflight's line and the waits for quiet; absent in runs written before it. */
  quiet: quietSchema.optional(),
})

export type Manifest = z.infer<typeof manifestSchema>

/** handshakes.csv: full TLS handshakes (+ one GET each) per key type. */
export const HANDSHAKE_COLUMNS = [
  'run_id', 'series', 'proxy', 'version', 'variant', 'key_type', 'connections', 'duration_s', 'repeat',
  'handshakes', 'resumed', 'errors', 'rate', 'p50_ms', 'p99_ms', 'proxy_cpu_us_per_handshake', 'generator_cpu_share', 'proxy_cpu_share',
  'status', 'reason', 'runtime', 'started_at', 'steal_share', 'foreign_cpu_share', 'invocation',
  // What the client offered to resume with (none, tickets, tickets-tls12, 0rtt); empty: none (the tls series, older files).
  'resumption',
  // Foreign CPU on the load cores (lib/measure/disturbance.ts); empty in files written before it.
  'load_foreign_cpu_share',
  // Kernel counts per handshake (lib/runtime/counts.ts).
  ...COUNT_COLUMNS,
  // A disturbed window's top foreign commands and their share of a core (docs/method/disturbance.md); empty otherwise.
  'foreign_processes',
  // The reference measured in the same window (lib/measure/reference.ts); empty without --reference and in older files.
  ...REFERENCE_COLUMNS,
  // QUIC rows (series h3-handshake): UDP datagrams both ways per handshake, and 0-RTT requests accepted; empty elsewhere.
  'udp_datagrams_per_req', 'early_data',
] as const

export const handshakeSchema = z.object({
  run_id: z.string().min(1),
  series: z.string().min(1),
  proxy: z.string().min(1),
  version: z.string().min(1),
  variant: z.string().min(1),
  key_type: z.string().min(1),
  connections: z.number().int().positive(),
  duration_s: num.nonnegative(),
  repeat: z.number().int().positive(),
  handshakes: z.number().int().nonnegative(),
  resumed: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  rate: optNum,
  p50_ms: optNum,
  p99_ms: optNum,
  proxy_cpu_us_per_handshake: optNum,
  generator_cpu_share: optNum,
  proxy_cpu_share: optNum,
  status: z.enum(['valid', 'invalid', 'failed']),
  reason: z.string(),
  runtime: z.string(),
  started_at: z.string(),
  steal_share: optNum,
  foreign_cpu_share: optNum,
  /** Id of the manifest's invocation that measured the row (null: written before invocations were recorded). */
  invocation: z.number().int().positive().nullable().optional(),
  /** What the client offered to resume with: none (every handshake full), tickets (TLS 1.3), tickets-tls12, or over QUIC 0rtt (tickets and the request as early data); empty (tls series, older files): none. */
  resumption: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['none', 'tickets', 'tickets-tls12', '0rtt']).optional()),
  /** Foreign CPU on the load cores (the generator's and backend's, outside the measured ones); null: none apart, or a file written before it. */
  load_foreign_cpu_share: optNum.optional(),
  ...countFields,
  /** A disturbed window's top foreign commands (`python3 63%, cc1 21%`: command name and share of a core, never arguments); empty: not disturbed, or a file written before it. */
  foreign_processes: z.string().optional(),
  /** The reference of the row's own window (--reference): what ran, its CPU µs per operation and share of the proxy's core, the row's cost in its unit; empty: none. */
  reference_kind: z.string().optional(),
  reference_cpu_us_per_op: optNum.optional(),
  reference_cpu_share: optNum.optional(),
  proxy_cpu_per_reference: optNum.optional(),
  /** QUIC rows: UDP datagrams the generator sent and received per handshake (its GET and close included); null for TCP rows. */
  udp_datagrams_per_req: optNum.optional(),
  /** QUIC rows: connections whose request the proxy accepted as 0-RTT early data; null for TCP rows. */
  early_data: z.number().int().nonnegative().nullable().optional(),
})

export type Handshake = z.infer<typeof handshakeSchema>

/** websocket.csv: echo (messages over N connections) and hold (N idle connections). */
export const WEBSOCKET_COLUMNS = [
  'run_id', 'series', 'proxy', 'version', 'variant', 'mode', 'conns_target', 'conns_established', 'messages', 'msg_rate',
  'proxy_cpu_us_per_msg', 'p50_ms', 'p99_ms', 'status', 'reason',
  'repeat', 'duration_s', 'survived', 'refused', 'closed_early', 'max_ms', 'generator_cpu_share', 'runtime', 'started_at', 'steal_share', 'foreign_cpu_share', 'invocation',
  // Foreign CPU on the load cores (lib/measure/disturbance.ts); empty in files written before it.
  'load_foreign_cpu_share',
  // Kernel counts per message (lib/runtime/counts.ts).
  ...COUNT_COLUMNS,
  // A disturbed window's top foreign commands and their share of a core (docs/method/disturbance.md); empty otherwise.
  'foreign_processes',
] as const

export const websocketSchema = z.object({
  run_id: z.string().min(1),
  series: z.string().min(1),
  proxy: z.string().min(1),
  version: z.string().min(1),
  variant: z.string().min(1),
  mode: z.enum(['echo', 'hold']),
  conns_target: z.number().int().nonnegative(),
  conns_established: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  msg_rate: optNum,
  proxy_cpu_us_per_msg: optNum,
  p50_ms: optNum,
  p99_ms: optNum,
  status: z.enum(['valid', 'invalid', 'failed']),
  reason: z.string(),
  repeat: z.number().int().positive(),
  duration_s: num.nonnegative(),
  survived: optNum,
  refused: optNum,
  closed_early: optNum,
  max_ms: optNum,
  generator_cpu_share: optNum,
  runtime: z.string(),
  started_at: z.string(),
  steal_share: optNum,
  foreign_cpu_share: optNum,
  /** Id of the manifest's invocation that measured the row (null: written before invocations were recorded). */
  invocation: z.number().int().positive().nullable().optional(),
  /** Foreign CPU on the load cores (the generator's and backend's, outside the measured ones); null: none apart, or a file written before it. */
  load_foreign_cpu_share: optNum.optional(),
  ...countFields,
  /** A disturbed window's top foreign commands (`python3 63%, cc1 21%`: command name and share of a core, never arguments); empty: not disturbed, or a file written before it. */
  foreign_processes: z.string().optional(),
})

export type WebSocketRow = z.infer<typeof websocketSchema>

/**
 * tcp.csv: L4 forwarding (series l4): connections through the proxy to the backend's TCP
 * echo. mode short: one message per connection (the cost is per connection); stream: each
 * connection sends `stream_bytes` and reads them back (the cost is per MiB).
 */
export const TCP_COLUMNS = [
  'run_id', 'series', 'proxy', 'version', 'variant', 'key_type', 'mode', 'connections', 'msg_bytes', 'stream_bytes', 'duration_s', 'repeat',
  'conns', 'errors', 'mismatches', 'bytes_echoed', 'conn_rate', 'mib_per_s', 'p50_ms', 'p99_ms', 'max_ms',
  'proxy_cpu_us_per_conn', 'proxy_cpu_us_per_mib', 'backend_conns_per_conn', 'generator_cpu_share', 'proxy_cpu_share',
  'status', 'reason', 'runtime', 'started_at', 'steal_share', 'foreign_cpu_share', 'invocation',
  // Foreign CPU on the load cores (lib/measure/disturbance.ts); empty in files written before it.
  'load_foreign_cpu_share',
  // Kernel counts per connection (short) or per MiB (stream) (lib/runtime/counts.ts).
  ...COUNT_COLUMNS,
  // A disturbed window's top foreign commands and their share of a core (docs/method/disturbance.md); empty otherwise.
  'foreign_processes',
] as const

/** Columns every row table shares, as websocket.csv defines them: the cell's identity and the window's status and disturbance. */
const rowIdentity = websocketSchema.pick({ run_id: true, series: true, proxy: true, version: true, variant: true }).shape
const rowOutcome = websocketSchema.pick({ status: true, reason: true, runtime: true, started_at: true, steal_share: true, foreign_cpu_share: true, load_foreign_cpu_share: true, foreign_processes: true, invocation: true }).shape

export const tcpSchema = z.object({
  ...rowIdentity,
  key_type: z.string(),
  mode: z.enum(['short', 'stream']),
  connections: z.number().int().positive(),
  msg_bytes: z.number().int().nonnegative(),
  stream_bytes: z.number().int().nonnegative(),
  duration_s: num.nonnegative(),
  repeat: z.number().int().positive(),
  conns: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  mismatches: z.number().int().nonnegative(),
  bytes_echoed: z.number().int().nonnegative(),
  conn_rate: optNum,
  mib_per_s: optNum,
  p50_ms: optNum,
  p99_ms: optNum,
  max_ms: optNum,
  proxy_cpu_us_per_conn: optNum,
  proxy_cpu_us_per_mib: optNum,
  backend_conns_per_conn: optNum,
  generator_cpu_share: optNum,
  proxy_cpu_share: optNum,
  ...rowOutcome,
  ...countFields,
})

export type TcpRow = z.infer<typeof tcpSchema>
