import { userError } from '../core/errors.ts'

export interface Profile {
  name: string
  repeats: number
  warmupS: number
  durationS: number
  /** Generator keeps running this long after the window so the window never sees ramp-down. */
  tailS: number
}

/** Window lengths and repeats; connections are the closed model's keep-alive clients. */
export const PROFILES: Record<string, Profile & { connections: number }> = {
  // One short repeat: for trying a config or for the integration tests, not for findings.
  smoke: { name: 'smoke', repeats: 1, warmupS: 1, durationS: 1, tailS: 1, connections: 50 },
  quick: { name: 'quick', repeats: 2, warmupS: 1, durationS: 3, tailS: 1, connections: 200 },
  standard: { name: 'standard', repeats: 3, warmupS: 3, durationS: 15, tailS: 1, connections: 200 },
  full: { name: 'full', repeats: 5, warmupS: 5, durationS: 30, tailS: 1, connections: 200 },
}

export function getProfile(name: string): Profile & { connections: number } {
  const p = PROFILES[name]
  if (!p) throw userError('--profile', `unknown profile "${name}"`, `Use one of: ${Object.keys(PROFILES).join(', ')}`)
  return p
}
