import { z } from 'zod'

/** The run manifest (manifest.json) and the records it holds; lib/data/schema.ts re-exports them beside the row schemas. */

const num = z.number().finite()

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

/** References a run measured once on the proxy's cpuset, before the per-run calibration was retired: read, never written. */
export const calibrationSchema = z.object({
  /** CPU µs per 1-byte round trip over TCP loopback between two processes (both sides). */
  loopback_rtt_us: num.positive(),
  loopback_rtt_wall_us: num.positive().nullable().default(null),
  /** openssl speed, µs per sign (CPU time); null when that algorithm did not run. */
  ecdsa_p256_sign_us: num.positive().nullable(),
  rsa4096_sign_us: num.positive().nullable(),
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
/** The system-call tax every role ran under (run-all --tax-ns; lib/runtime/syscall-tax.ts). */
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
  components: z.array(z.object({ component: z.string(), version: z.string(), sha256: z.string(), build_note: z.string().optional() })),
  custom_configs: z.array(z.object({ proxy: z.string(), file: z.string(), sha256: z.string() })),
  schema_version: z.number().int().positive(),
  /** --pair-at of a run made --like a baseline (instant, adjacent); absent: not paired, or written before it was recorded. */
  pair_at: z.string().optional(),
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
  roles: z.array(
    z.object({ role: z.string(), engine: z.string(), address: z.string(), cpuset: z.string(), files: z.enum(['bind mounts', 'through the API']) }),
  ),
  hosts: z.array(
    z.object({
      engine: z.string(),
      name: z.string(),
      os: z.string(),
      kernel: z.string(),
      cpus: z.number(),
      memory_gib: z.number(),
      engine_version: z.string(),
      /** How its roles' CPU was read. */
      cpu_source: z.string(),
      /** Read in a short container on that host; null when it could not run. */
      fingerprint: fingerprintSchema.nullable(),
      /** Images its containers ran from; `sent`: loaded from this machine's engine (docker save → load). */
      images: z.array(z.object({ image: z.string(), id: z.string(), sent: z.boolean() })).default([]),
    }),
  ),
  /** A short probe from the generator's host to the proxy's (loadgen tcp against the backend's echo); null: they share a host. */
  network: z
    .object({
      from: z.string(),
      to: z.string(),
      /** Median of short connections (connect, 64-byte echo, close): about two round trips. */
      connect_echo_p50_ms: z.number().nullable(),
      /** One stream echoed back: the bytes each way per second. */
      stream_mib_per_s: z.number().nullable(),
      issue: z.string().nullable(),
    })
    .nullable(),
})

export type HostsRecord = z.infer<typeof hostsSchema>

export const manifestSchema = z.object({
  /** The version of the column table the run's files were written under (lib/data/schema.ts SCHEMA_VERSION); absent in runs written before it was introduced: those are version 1. */
  schema_version: z.number().int().positive().default(1),
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
  components: z.array(
    z.object({
      component: z.string(),
      version: z.string(),
      source: z.string(),
      path: z.string(),
      sha256: z.string(),
      /** A proxy version measured on another build than its pin (lib/setup/builds.ts): the pin, and the line saying what and why. */
      pinned: z.object({ build: z.string(), sha256: z.string() }).optional(),
      build_note: z.string().optional(),
      /** The build's content address in the archive of measured binaries (npm run archive). */
      archive: z.string().optional(),
    }),
  ),
  /** Catalog versions of the run's proxies gone from their source here: left out, each cell that would use one says why. */
  not_runnable: z.array(z.object({ component: z.string(), version: z.string(), reason: z.string() })).default([]),
  /** Docker runs: the image of each component (id, and digest for pulled official images). */
  images: z.array(z.object({ component: z.string(), version: z.string(), image: z.string(), id: z.string(), digest: z.string().nullable() })).default([]),
  order_seed: z.number().int(),
  profile_settings: z.object({
    repeats: z.number(),
    warmup_s: z.number(),
    duration_s: z.number(),
    connections: z.number(),
    threads: z.number(),
    /** Adaptive repeats (docs/method/overview.md); absent in runs written before them, which ran `repeats` rounds. */
    max_repeats: z.number().optional(),
    precision: z.number().optional(),
    budget_s: z.number().optional(),
    max_disturbed: z.number().optional(),
  }),
  custom_configs: z.array(z.object({ proxy: z.string(), file: z.string(), sha256: z.string() })).default([]),
  steps: z.record(z.enum(['pending', 'running', 'done', 'failed', 'interrupted'])),
  /** Absent in runs written before they were recorded (the committed baselines). */
  fingerprint: fingerprintSchema.nullable().default(null),
  /** Runs written before the per-run calibration was retired (docs/method/comparison.md) hold it; read and kept, never written. */
  calibration: calibrationSchema.nullish(),
  /** Runs under a system-call tax only (--tax-ns, bench/year-later.mjs); absent: none. */
  syscall_tax: syscallTaxSchema.optional(),
  /** Every invocation, first run and each --resume (absent in runs written before them). */
  invocations: z.array(invocationSchema).default([]),
  /** Runs with --hosts only (absent on one machine). */
  hosts: hostsSchema.optional(),
  /** Other work on the machine (docs/method/disturbance.md): the preflight's line and the waits for quiet; absent in runs written before it. */
  quiet: quietSchema.optional(),
})

export type Manifest = z.infer<typeof manifestSchema>
