import { expectsReuse, loadStack, PROXIES, type ProxyName } from './stack.ts'

/**
 * What "pooled" and "not pooled" mean, measured as backend connections per 1000
 * requests: the one definition the pool detector, finding "pool" and the article use.
 */
export const POOLED_MAX_PER_1K = 100
export const UNPOOLED_MIN_PER_1K = 900

export type PoolClass = 'pool' | 'no pool' | 'partial'

export function poolClass(connsPer1k: number): PoolClass {
  if (connsPer1k <= POOLED_MAX_PER_1K) return 'pool'
  if (connsPer1k >= UNPOOLED_MIN_PER_1K) return 'no pool'
  return 'partial'
}

/** Whether a measured figure agrees with the documented prediction (reuse or not). */
export const agreesWithDocs = (expectedReuse: boolean, connsPer1k: number): boolean => poolClass(connsPer1k) === (expectedReuse ? 'pool' : 'no pool')

/** Whether documentation predicts reuse for a measured cell (undefined: no prediction). */
export function documentedReuse(proxy: string, variant: string, version: string): boolean | undefined {
  if (!(PROXIES as readonly string[]).includes(proxy) || variant.startsWith('custom:')) return undefined
  return expectsReuse(loadStack(proxy as ProxyName), variant, version)
}
