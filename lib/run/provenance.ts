import { SCHEMA_VERSION, type Invocation, type Manifest } from '../data/schema.ts'

/** What a resume must share with the invocation before it, or the rows would mix settings. */
export interface ResumeSettings {
  profile: string
  /** The profile's minimum repeats and window (--repeats, --duration override them). */
  repeats: number
  duration_s: number
  proxies: readonly string[]
  cpusets: { proxy: string; backend: string; generator: string }
  /** native | docker once resolved; auto before that (matches either). */
  runtime: string
  network: 'host' | 'bridge'
  /** An explicit --seed; undefined keeps the run's own. */
  seed: number | undefined
  custom_configs: readonly { proxy: string; file: string; sha256: string }[]
  schema_version: number
  /** --pair-at of a run made --like; undefined: not paired (or not recorded). */
  pair_at?: string
}

/** The settings the run directory was last measured with: its last invocation, or the manifest itself (runs written before invocations). */
export function previousSettings(m: Manifest): Omit<ResumeSettings, 'seed'> & { seed: number } {
  const last = m.invocations.at(-1)
  return {
    profile: last?.profile ?? m.profile,
    repeats: last?.repeats ?? m.profile_settings.repeats,
    duration_s: last?.duration_s ?? m.profile_settings.duration_s,
    proxies: last?.proxies ?? m.proxies,
    cpusets: last?.cpusets ?? m.cpusets,
    runtime: last?.runtime ?? m.runtime,
    network: (last?.network ?? (m.network_mode.startsWith('bridge') ? 'bridge' : 'host')) === 'bridge' ? 'bridge' : 'host',
    seed: last?.seed ?? m.order_seed,
    custom_configs: last?.custom_configs ?? m.custom_configs,
    schema_version: last?.schema_version ?? m.schema_version,
    ...(last?.pair_at ? { pair_at: last.pair_at } : {}),
  }
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',')
const configs = (c: ResumeSettings['custom_configs']) => c.map((x) => `${x.proxy}=${x.file.split('/').at(-1)}@${x.sha256.slice(0, 12)}`).sort()

/**
 * Every setting in which a resume differs from the run it continues, one line each naming
 * the setting, the run's value and the new one (empty: the same). Pure, so the rule is tested alone.
 */
export function resumeDifferences(m: Manifest, now: ResumeSettings): string[] {
  const was = previousSettings(m)
  const out: string[] = []
  if (now.schema_version !== was.schema_version)
    out.push(`schema version ${was.schema_version} → ${now.schema_version} (this harness writes ${SCHEMA_VERSION})`)
  if (now.profile !== was.profile) out.push(`--profile ${was.profile} → ${now.profile}`)
  if (now.repeats !== was.repeats) out.push(`--repeats ${was.repeats} → ${now.repeats}`)
  if (now.duration_s !== was.duration_s) out.push(`--duration ${was.duration_s} → ${now.duration_s}`)
  if (!sameSet(now.proxies, was.proxies)) out.push(`--proxies ${was.proxies.join(',')} → ${now.proxies.join(',')}`)
  for (const role of ['proxy', 'backend', 'generator'] as const) {
    if (now.cpusets[role] !== was.cpusets[role]) out.push(`--cpus ${role}=${was.cpusets[role]} → ${role}=${now.cpusets[role]}`)
  }
  if (now.runtime !== 'auto' && now.runtime !== was.runtime) out.push(`--runtime ${was.runtime} → ${now.runtime}`)
  if (now.network !== was.network) out.push(`--network ${was.network} → ${now.network}`)
  if (now.seed !== undefined && now.seed !== was.seed) out.push(`--seed ${was.seed} → ${now.seed}`)
  // A pair's rows from one moment or two: a cell of both kinds would mix their noise.
  if (now.pair_at && was.pair_at && now.pair_at !== was.pair_at) out.push(`--pair-at ${was.pair_at} → ${now.pair_at}`)
  const config = configDifference(configs(was.custom_configs), configs(now.custom_configs))
  if (config) out.push(config)
  return out
}

/** The custom configs gone and added between two lists (`proxy=file@sha`), or null when they are the same. */
function configDifference(a: readonly string[], b: readonly string[]): string | null {
  if (a.join(' ') === b.join(' ')) return null
  const gone = a.filter((x) => !b.includes(x))
  const added = b.filter((x) => !a.includes(x))
  return `--config ${gone.length ? `${gone.join(' ')} (was)` : ''}${gone.length && added.length ? ' → ' : ''}${added.length ? `${added.join(' ')} (now)` : ''}`
}

/** The one line that refuses a resume: the first difference, and how many more there are. */
export function refusal(diffs: readonly string[]): string | null {
  if (diffs.length === 0) return null
  return `differs from the run it resumes: ${diffs[0]}${diffs.length > 1 ? ` (and ${diffs.length - 1} more: ${diffs.slice(1).join('; ')})` : ''}`
}

/** Id of the next invocation (1 for a new run, and for the first one recorded on an older run). */
export const nextInvocationId = (m: Manifest | undefined): number => Math.max(0, ...(m?.invocations ?? []).map((i) => i.id)) + 1

export type { Invocation }
