import { userError } from '../core/errors.ts'
import { BISECT_METRICS, type BisectMetric } from '../data/bisect.ts'
import type { SeriesName } from '../data/series.ts'

export interface BisectFlags {
  metric?: string
}

export const BISECT_METRIC_HELP = `  --metric NAME         bisect: what the step is judged on: ${Object.entries(BISECT_METRICS).map(([k, m]) => `${k} (${m.label})`).join(' or ')}; default cpu`

/** `--metric` for the bisect series; with no bisect to judge it is an error, not ignored. */
export function parseBisectMetric(f: BisectFlags, series: readonly SeriesName[]): BisectMetric | undefined {
  if (f.metric === undefined) return undefined
  if (!series.includes('bisect')) throw userError('--metric', 'only the bisect series uses it', 'Add --series bisect (or use notebooks/bisect.mjs), or drop --metric')
  if (!(f.metric in BISECT_METRICS)) throw userError(`--metric ${f.metric}`, 'unknown metric', `Use one of: ${Object.keys(BISECT_METRICS).join(', ')}`)
  return f.metric as BisectMetric
}

/**
 * notebooks/bisect.mjs speaks of one proxy and its variants (`--proxy nginx --variant
 * article,upstream-default`); the run underneath takes them as --proxies and --variants.
 */
export function bisectRunFlags<F extends { proxy?: string; variant?: string; proxies?: string; variants?: string; series?: string }>(f: F): Omit<F, 'proxy' | 'variant'> {
  const { proxy, variant, ...rest } = f
  if (proxy === undefined) throw userError('notebooks/bisect.mjs', '--proxy is missing', 'Name the proxy to bisect, e.g. --proxy nginx --variant article')
  if (proxy.includes(',')) throw userError(`--proxy ${proxy}`, 'one proxy per bisect', 'Run one bisect per proxy (each has its own versions)')
  return { ...rest, proxies: proxy, ...(variant !== undefined ? { variants: variant } : {}) }
}
