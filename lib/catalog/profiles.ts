import type { VersionVariant } from './variants.ts'
import { userError } from '../core/errors.ts'

export interface Profile {
  name: string
  /** Rounds every cell gets: the minimum of the adaptive repeats (lib/run/adaptive.ts). */
  repeats: number
  /** Adaptive repeats; absent: exactly `repeats` rounds, no re-measurement. */
  maxRepeats?: number
  /** Target relative half-width of the 95% CI of a cell's median (0.03 = ±3%). */
  precision?: number
  /** Disturbed windows a cell may have and still be re-measured (lib/run/adaptive.ts). */
  maxDisturbed?: number
  /** Wall seconds each phase may spend beyond its minimum rounds. */
  budgetS?: number
  /**
   * Seconds a run may lose to other work on the machine: waits for quiet after a disturbed
   * window plus the disturbed windows themselves (lib/run/quiet.ts); --wait-quiet overrides it.
   * Absent: 20 windows' length.
   */
  quietBudgetS?: number
  /** Seconds the foreign load must stay under the threshold before the run goes on (absent: SETTLE_S of lib/run/quiet.ts). */
  settleS?: number
  warmupS: number
  durationS: number
  /** Generator keeps running this long after the window so the window never sees ramp-down. */
  tailS: number
  /**
   * Rounds and windows of a run paired with a baseline (--like, docs/method/pairs.md): more,
   * shorter rounds, since a pair's precision grows with its rounds, not with a window's length.
   */
  paired?: Pick<Profile, 'repeats' | 'maxRepeats' | 'durationS'>
  /** pooling-open: every pooling cell at the fixed rate, or only the three main series and direct (quick: its time budget). */
  fixedRateCells?: 'all' | 'main'
  /** scenarios series: one cell of each kind per proxy (smoke, quick: their time budget) or every size and connection count. */
  scenarioCells?: 'one' | 'all'
  /** versions series: the variants each version gets (smoke, quick: `article` only, their time budget; default both). */
  versionVariants?: readonly VersionVariant[]
  /**
   * The work series (lib/measure/work.ts): rows per cell, counted rounds per row, the small and
   * large batch (units), and whether the proxies' extra pooling variants are counted too.
   */
  work?: WorkSettings
}

/** The work series' settings of a profile (lib/measure/work.ts): see Profile.work. */
export interface WorkSettings {
  repeats: number
  rounds: number
  /** Requests in a small and a large batch. */
  small: number
  large: number
  /** Full handshakes in a small and a large batch: an RSA-4096 one takes ~0.3 s under callgrind. */
  handshakes: { small: number; large: number }
  extras: boolean
}

/** A profile's work settings; a profile made in code without them (a bench's, a test's) counts as quick does. */
export const workSettings = (p: Pick<Profile, 'work'>): WorkSettings => p.work ?? PROFILES.quick!.work!

/**
 * Window lengths and repeats; connections are the closed model's keep-alive clients.
 * smoke and quick keep their length: no rounds beyond the minimum, only disturbed windows
 * re-measured. standard and full adapt: a cell needs n >= 6 for a 95% interval, so they
 * may go well past their minimum, within a time budget per phase (docs/method/overview.md).
 */
export const PROFILES: Record<string, Profile & { connections: number }> = {
  // One short repeat: for trying a config or for the integration tests, not for findings.
  smoke: {
    name: 'smoke',
    work: { repeats: 1, rounds: 2, small: 100, large: 300, handshakes: { small: 5, large: 15 }, extras: false },
    repeats: 1,
    maxRepeats: 1,
    precision: 0.03,
    maxDisturbed: 1,
    budgetS: 30,
    quietBudgetS: 30,
    warmupS: 1,
    durationS: 1,
    tailS: 1,
    connections: 50,
    scenarioCells: 'one',
    versionVariants: ['article'],
  },
  // Within 20 min on 2 cores: 2 s windows, 0.5 s warm-up (200 keep-alive connections are up in
  // milliseconds), 0.5 s tail (wrk takes whole seconds: 3 s in all), article-only versions.
  quick: {
    name: 'quick',
    work: { repeats: 1, rounds: 3, small: 200, large: 600, handshakes: { small: 10, large: 30 }, extras: false },
    repeats: 2,
    maxRepeats: 2,
    precision: 0.03,
    maxDisturbed: 2,
    budgetS: 60,
    quietBudgetS: 240,
    warmupS: 0.5,
    durationS: 2,
    tailS: 0.5,
    connections: 200,
    fixedRateCells: 'main',
    scenarioCells: 'one',
    versionVariants: ['article'],
    paired: { repeats: 5, maxRepeats: 5, durationS: 1 },
  },
  // 5 s windows: on this 2-core host a window's figure moves ~9% with the machine's state whatever
  // its length (15 s: ±9.4-12.0% at n = 10, 5 s: ±9.5-11.3%), so shorter windows and more of them
  // give more precision per minute (docs/method/overview.md).
  standard: {
    name: 'standard',
    work: { repeats: 2, rounds: 5, small: 500, large: 1500, handshakes: { small: 20, large: 60 }, extras: true },
    repeats: 3,
    maxRepeats: 12,
    precision: 0.03,
    maxDisturbed: 3,
    budgetS: 600,
    quietBudgetS: 900,
    warmupS: 1,
    durationS: 5,
    tailS: 1,
    connections: 200,
  },
  full: {
    name: 'full',
    work: { repeats: 3, rounds: 5, small: 1000, large: 3000, handshakes: { small: 40, large: 120 }, extras: true },
    repeats: 5,
    maxRepeats: 15,
    precision: 0.02,
    maxDisturbed: 5,
    budgetS: 3600,
    quietBudgetS: 3600,
    warmupS: 5,
    durationS: 30,
    tailS: 1,
    connections: 200,
  },
}

export function getProfile(name: string): Profile & { connections: number } {
  const p = PROFILES[name]
  if (!p) throw userError('--profile', `unknown profile "${name}"`, `Use one of: ${Object.keys(PROFILES).join(', ')}`)
  return p
}
