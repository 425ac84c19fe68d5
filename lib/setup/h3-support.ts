import { existsSync } from 'node:fs'
import { binaryEnv, binaryPath, compareVersions, type ProxyName, type StackVersion } from '../catalog/stack.ts'
import { spawnSync } from 'node:child_process'
import { launchPrefix } from './suites.ts'

/**
 * Whether a catalog version's binary speaks HTTP/3 (docs/series/h3.md#which-builds-can):
 * the build's own word where it has one (nginx -V, haproxy -vv, Envoy's QUIC extension
 * compiled in), the project's documented default where every build has it (Caddy, Traefik).
 */
export interface H3Support {
  capable: boolean
  /** How it was decided, or why not: shown by the catalog and in a not-measured row. */
  reason: string
}

/** First version whose every build serves HTTP/3 by its documented default. */
const BUILT_IN_SINCE: Partial<Record<ProxyName, { since: string; how: string }>> = {
  caddy: { since: '2.6.0', how: 'HTTP/3 in every build since 2.6 (servers protocols h3)' },
  traefik: { since: '3.0.0', how: 'entrypoint http3 in every build (no longer experimental since v3.0)' },
}

/** The name Envoy registers its QUIC server stream under: present only in builds with QUIC compiled in. */
export const ENVOY_QUIC_EXTENSION = 'envoy.quic.crypto_stream.server.quiche'

/** The probe command's argv after the binary: what the decision reads. */
const PROBE_ARGS: Partial<Record<ProxyName, string[]>> = { nginx: ['-V'], haproxy: ['-vv'] }

/** Decides from what the probe printed (nginx -V, haproxy -vv) or found (Envoy); pure, for tests. */
export function h3SupportFrom(proxy: ProxyName, version: string, output: string): H3Support {
  const builtIn = BUILT_IN_SINCE[proxy]
  if (builtIn) {
    return compareVersions(version, builtIn.since) >= 0
      ? { capable: true, reason: builtIn.how }
      : { capable: false, reason: `${proxy} ${version} is older than ${builtIn.since}, the first with HTTP/3 in every build` }
  }
  switch (proxy) {
    case 'nginx':
      return output.includes('--with-http_v3_module')
        ? { capable: true, reason: 'nginx -V: --with-http_v3_module' }
        : { capable: false, reason: 'built without --with-http_v3_module (nginx -V)' }
    case 'haproxy': {
      const feature = /(?:^|\s)([+-])QUIC(?=\s|$)/m.exec(output)?.[1]
      // Built against OpenSSL's QUIC compatibility layer, QUIC starts only with `limited-quic` in the global section, which the h3 template does not set.
      if (feature === '+' && output.includes('USE_QUIC_OPENSSL_COMPAT=1'))
        return {
          capable: false,
          reason: 'QUIC only through the OpenSSL compatibility layer (USE_QUIC_OPENSSL_COMPAT=1): needs limited-quic, which the h3 template does not set',
        }
      if (feature === '+') return { capable: true, reason: 'haproxy -vv: +QUIC' }
      return { capable: false, reason: feature === '-' ? 'built without QUIC (haproxy -vv: -QUIC)' : 'haproxy -vv lists no QUIC feature' }
    }
    case 'envoy':
      return output.includes(ENVOY_QUIC_EXTENSION)
        ? { capable: true, reason: `QUIC listener compiled in (${ENVOY_QUIC_EXTENSION})` }
        : { capable: false, reason: `built without QUIC (no ${ENVOY_QUIC_EXTENSION} in the binary)` }
  }
  return { capable: false, reason: `no HTTP/3 probe for ${proxy}` }
}

/**
 * Runs the probe for one catalog version; a binary that is not installed is not capable, with
 * the fix. Synchronous (a second at most): a series plans its cells synchronously.
 */
export function probeH3Support(proxy: ProxyName, v: StackVersion): H3Support {
  if (BUILT_IN_SINCE[proxy]) return h3SupportFrom(proxy, v.version, '')
  const bin = binaryPath(proxy, v)
  if (!existsSync(bin)) return { capable: false, reason: `${bin} is not installed (run: npx zx notebooks/00-setup.mjs)` }
  if (proxy === 'envoy') {
    // grep -c: the binary is large, and the extension's name is a plain string in it.
    const r = spawnSync('grep', ['-c', '-F', ENVOY_QUIC_EXTENSION, bin], { encoding: 'utf8', timeout: 60_000 })
    return h3SupportFrom(proxy, v.version, r.status === 0 ? ENVOY_QUIC_EXTENSION : '')
  }
  const argv = [...launchPrefix(proxy, v), bin, ...(PROBE_ARGS[proxy] ?? [])]
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...binaryEnv(proxy, v) } })
  if (r.status !== 0)
    return { capable: false, reason: `${argv.slice(-2).join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n')[0]!.slice(0, 120)}` }
  return h3SupportFrom(proxy, v.version, r.stdout + r.stderr)
}

/** The catalog's and the doctor's h3 column: yes, or no with the reason. */
export const h3Label = (s: H3Support): string => (s.capable ? 'yes' : `no: ${s.reason}`)

const cache = new Map<string, H3Support>()

/** probeH3Support once per (proxy, version) in this process. */
export function h3Support(proxy: ProxyName, v: StackVersion): H3Support {
  const key = `${proxy} ${v.version} ${v.source}`
  if (!cache.has(key)) cache.set(key, probeH3Support(proxy, v))
  return cache.get(key)!
}
