import type { ProxyName } from './stack.ts'

/** The three pooling series and the variant each one measures on every proxy. */
export const MAIN_SERIES = { same: 'article', 'pool-added': 'pool-added', 'pool-removed': 'pool-removed' } as const

/** Extras beyond article / pool-added / pool-removed, and on which versions they run. */
export const EXTRAS: Partial<Record<ProxyName, { series: string; variants: string[]; allVersions: boolean }>> = {
  // httpclose: seed 002's option httpclose (claims s002-*), measured beside server-close.
  haproxy: { series: 'haproxy-reuse', variants: ['reuse-never', 'server-close', 'httpclose'], allVersions: false },
  // F7: literal vs upstream block on a version before and one at or after 1.29.7;
  // upstream-keepalive-local (claim nginx-keepalive-local-irrelevant) only where its
  // stack.yaml `since` allows ('keepalive 32 local' exists from 1.29.7).
  nginx: { series: 'nginx-keepalive', variants: ['literal', 'upstream-default', 'upstream-keepalive', 'upstream-keepalive-local'], allVersions: true },
}

/** What the versions series measures on every catalog version. */
export const VERSION_VARIANTS = ['article', 'pool-added'] as const
export type VersionVariant = (typeof VERSION_VARIANTS)[number]

/** WebSocket variants held open: Envoy also with its circuit breakers raised. */
export const holdVariants = (p: ProxyName): string[] => (p === 'envoy' ? ['ws', 'ws-raised'] : ['ws'])
