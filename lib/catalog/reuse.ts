import { expectsReuse, loadStack, PROXIES, type ProxyName } from './stack.ts'

/**
 * What "pooled" and "not pooled" mean, measured as backend connections per 1000
 * requests: the one definition the pool detector, finding "pool" and the article use.
 */
export const POOLED_MAX_PER_1K = 100
export const UNPOOLED_MIN_PER_1K = 900

export type PoolClass = 'pool' | 'no pool' | 'partial'

/** A band of backend connections per 1000 requests (either end open). */
export interface ReuseBand {
  min?: number
  max?: number
}

/**
 * The one judge of the bounds: the band a cell's backend conns/1k lies in when it reuses its
 * connections (pooled: at most POOLED_MAX_PER_1K) or opens one per request (at least
 * UNPOOLED_MIN_PER_1K). The finding "pool", the ledger's reuse checks and poolClass read it.
 */
export const reuseBand = (pooled: boolean): ReuseBand => (pooled ? { max: POOLED_MAX_PER_1K } : { min: UNPOOLED_MIN_PER_1K })

/** The band in words: `<= 100` or `>= 900`. */
export const reuseBandText = (pooled: boolean): string => (pooled ? `<= ${POOLED_MAX_PER_1K}` : `>= ${UNPOOLED_MIN_PER_1K}`)

const inBand = (x: number, b: ReuseBand) => x >= (b.min ?? -Infinity) && x <= (b.max ?? Infinity)

export function poolClass(connsPer1k: number): PoolClass {
  if (inBand(connsPer1k, reuseBand(true))) return 'pool'
  if (inBand(connsPer1k, reuseBand(false))) return 'no pool'
  return 'partial'
}

/** Whether a measured figure agrees with the documented prediction (reuse or not). */
export const agreesWithDocs = (expectedReuse: boolean, connsPer1k: number): boolean => poolClass(connsPer1k) === (expectedReuse ? 'pool' : 'no pool')

/** Whether documentation predicts reuse for a measured cell (undefined: no prediction). */
export function documentedReuse(proxy: string, variant: string, version: string): boolean | undefined {
  if (!(PROXIES as readonly string[]).includes(proxy) || variant.startsWith('custom:')) return undefined
  return expectsReuse(loadStack(proxy as ProxyName), variant, version)
}
