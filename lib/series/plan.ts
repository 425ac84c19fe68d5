import type { PinnedVersions, VersionChoice } from '../catalog/version-choice.ts'
import type { BisectMetric } from '../data/bisect.ts'
import type { Focus } from './focus.ts'
import type { ProxyName } from '../catalog/stack.ts'
import type { Slo } from '../data/slo.ts'

/** A user's own config (--config): its proxy and file; it joins the pooling series as variant custom:<file>. */
export interface CustomConfig {
  proxy: ProxyName
  file: string
}

/** What a capacity search looks for and how long it may take (`--slo`, `--budget`, `--start-rps`). */
export interface CapacitySettings {
  slo: Slo
  /** Wall seconds of steps each cell's search may spend. */
  budgetS: number
  /** The first rate tried (then doubled, or halved while it misses). */
  startRps: number
  /** The search never asks for more than this. */
  maxRps: number
}

/** The then side asked for by --like (lib/series/then.ts): resolved into builds when the run starts. */
export interface PairRequest {
  baseline: string
  /** The version each proxy's one-version series ran in the baseline. */
  versions: Readonly<Record<string, string>>
  /** Pair a then side that is the same build as now anyway (two copies, two processes): the A/A check. */
  pairSame: boolean
  /** --pair-at: when a pair's two sides are measured (docs/method/pairs.md#at-one-instant); absent: adjacent (a plan made without the flag). */
  at?: PairAt
}

/**
 * `instant`: a closed-model (wrk) pair's two sides loaded in one window at once, sharing the
 * machine's moment; `adjacent`: each side a window of its own, next to the other in the round.
 */
export const PAIR_AT = ['instant', 'adjacent'] as const
export type PairAt = (typeof PAIR_AT)[number]

/**
 * What the user chose for the series, checked once from the flags (lib/cli/run-options.ts)
 * and read by every series as `ctx.plan`: a series option is a field here, nowhere else.
 */
export interface SeriesPlan {
  /** --config: users' own configs; they join the pooling series (and the capacity search, when --variants names them). */
  custom: CustomConfig[]
  /** --variants / --key-types: only those planned cells run (lib/series/focus.ts). */
  focus?: Focus
  /** --versions, else the profile's default: the catalog versions of the series that take several (lib/catalog/version-choice.ts). */
  versions: VersionChoice
  /** --pin-versions (or --like): the version of each proxy the one-version series run; absent: the newest. */
  pinned?: PinnedVersions
  /** The capacity series' SLO, budget and start rate (--slo, --budget, --start-rps). */
  capacity?: CapacitySettings
  /** The bisect series' metric (--metric; default proxy CPU µs/req). */
  bisectMetric?: BisectMetric
  /** --like: the baseline whose builds are measured beside today's, each proxy's version there, and --pair-same (lib/run/then.ts). */
  pair?: PairRequest
  /** The bisect over a registry's published tags (bisect.mjs --tags-from): the repository and its tags, listed before the run. */
  bisectTags?: { ref: string; tags: string[] }
}
