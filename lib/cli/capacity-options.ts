import { userError } from '../core/errors.ts'
import type { SeriesName } from '../data/series.ts'
import { parseSlo, SLO_HELP } from '../data/slo.ts'
import { CAPACITY_DEFAULT_SLO, CAPACITY_DEFAULTS } from '../series/capacity.ts'
import type { CapacitySettings } from '../series/plan.ts'
import type { FlagValues } from './flags.ts'

/** The capacity search's flags (checked together by parseCapacityOptions: they mean nothing without the series). */
export const CAPACITY_FLAGS = {
  slo: { type: 'string', arg: '"TERMS"', help: [`capacity: what a rate must meet, default "${CAPACITY_DEFAULT_SLO}" (${SLO_HELP})`] },
  budget: { type: 'string', arg: 'S', help: [`capacity: seconds of steps each proxy's search may take (default ${CAPACITY_DEFAULTS.budgetS})`] },
  'start-rps': { type: 'string', arg: 'N', help: [`capacity: the first rate tried, then doubled while it passes (default ${CAPACITY_DEFAULTS.startRps})`] },
} as const

export type CapacityFlags = FlagValues<typeof CAPACITY_FLAGS>

/** A flag's whole number from min to max; else one line naming the flag and the range. */
export const whole = (flag: string, v: string, min: number, max: number, what: string) => {
  const n = Number(v)
  if (!(v.trim() !== '' && Number.isInteger(n) && n >= min && n <= max))
    throw userError(`${flag} ${v}`, `not ${what}`, `Use a whole number from ${min} to ${max}`)
  return n
}

/** `--slo`, `--budget`, `--start-rps` into the capacity search's settings; they mean nothing without the capacity series. */
export function parseCapacityOptions(f: CapacityFlags, series: readonly SeriesName[]): CapacitySettings | undefined {
  const given = (Object.keys(CAPACITY_FLAGS) as (keyof CapacityFlags)[]).filter((k) => f[k] !== undefined)
  if (!series.includes('capacity')) {
    if (given.length)
      throw userError(
        `--${given[0]}`,
        'only means something with the capacity series',
        'Add --series capacity (or use notebooks/capacity.mjs), or drop the flag',
      )
    return undefined
  }
  return {
    slo: parseSlo(f.slo ?? CAPACITY_DEFAULT_SLO),
    budgetS: f.budget === undefined ? CAPACITY_DEFAULTS.budgetS : whole('--budget', f.budget, 10, 86400, 'a number of seconds'),
    startRps:
      f['start-rps'] === undefined
        ? CAPACITY_DEFAULTS.startRps
        : whole('--start-rps', f['start-rps'], 100, CAPACITY_DEFAULTS.maxRps, 'a rate in requests per second'),
    maxRps: CAPACITY_DEFAULTS.maxRps,
  }
}
