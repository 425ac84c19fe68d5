import type { ProxyName } from './stack.ts'

/**
 * Every variant the catalog's stacks declare (stacks/<proxy>/stack.yaml `variants`, one
 * template each): the names code may use. test/catalog/variants.test.ts holds it equal to the stacks'.
 */
export const VARIANTS = [
  'article',
  'pool-added',
  'pool-removed',
  'default-cert',
  'http',
  'logging',
  'h2',
  'h3',
  'ws',
  'ws-raised',
  'l4-tcp',
  'l4-passthrough',
  'l4-terminate',
  'reuse-never',
  'server-close',
  'httpclose',
  'literal',
  'upstream-default',
  'upstream-keepalive',
  'upstream-keepalive-local',
  'session-cache',
] as const
export type Variant = (typeof VARIANTS)[number]
export const isVariant = (name: string): name is Variant => (VARIANTS as readonly string[]).includes(name)

/** A cell's variant: a catalog variant, the direct row (no proxy), or a user's config (`custom:<file>`). */
export type CellVariant = Variant | 'direct' | `custom:${string}`

/** The three pooling series and the variant each one measures on every proxy. */
export const MAIN_SERIES = { same: 'article', 'pool-added': 'pool-added', 'pool-removed': 'pool-removed' } as const satisfies Record<string, Variant>

/** Extras beyond article / pool-added / pool-removed, and on which versions they run. */
export const EXTRAS: Partial<Record<ProxyName, { series: string; variants: Variant[]; allVersions: boolean }>> = {
  // httpclose: seed 002's option httpclose (claims s002-*), measured beside server-close.
  haproxy: { series: 'haproxy-reuse', variants: ['reuse-never', 'server-close', 'httpclose'], allVersions: false },
  // F7: literal vs upstream block on a version before and one at or after 1.29.7;
  // upstream-keepalive-local (claim nginx-keepalive-local-irrelevant) only where its
  // stack.yaml `since` allows ('keepalive 32 local' exists from 1.29.7).
  nginx: { series: 'nginx-keepalive', variants: ['literal', 'upstream-default', 'upstream-keepalive', 'upstream-keepalive-local'], allVersions: true },
}

/** What the versions series measures on every catalog version. */
export const VERSION_VARIANTS = ['article', 'pool-added'] as const satisfies readonly Variant[]
export type VersionVariant = (typeof VERSION_VARIANTS)[number]

/** WebSocket variants held open: Envoy also with its circuit breakers raised. */
export const holdVariants = (p: ProxyName): Variant[] => (p === 'envoy' ? ['ws', 'ws-raised'] : ['ws'])
