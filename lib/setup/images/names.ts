import { join } from 'node:path'
import type { ProxyName } from '../../catalog/stack.ts'
import { cacheDir } from '../../core/paths.ts'

/** What the images are called and where their cache lives (no engine call here, so flag parsing can use it). */

export const BASE_REPO = 'proxybench/base'
export const BASE_TAG = 'bookworm'
export const BASE_IMAGE = `${BASE_REPO}:${BASE_TAG}`
export const IMAGE_MODES = ['offline', 'official', 'auto'] as const
export type ImageMode = (typeof IMAGE_MODES)[number]

export const imagesDir = () => join(cacheDir(), 'images')

/** Where each official image keeps the proxy binary. */
export const OFFICIAL_BINARY: Record<ProxyName, string> = {
  nginx: '/usr/sbin/nginx',
  haproxy: '/usr/local/sbin/haproxy',
  envoy: '/usr/local/bin/envoy',
  traefik: '/usr/local/bin/traefik',
  caddy: '/usr/bin/caddy',
}

/** Environment the harness sets for a cached binary that an official image must not get. */
export const HOST_ONLY_ENV = ['LD_LIBRARY_PATH']

/** Docker tags allow [A-Za-z0-9_.-], at most 128 characters, not starting with . or -. */
export function imageTag(component: string, version: string): string {
  const clean =
    version
      .replace(/[^A-Za-z0-9_.-]/g, '_')
      .replace(/^[.-]+/, '')
      .slice(0, 128) || 'latest'
  return `proxybench/${component.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}:${clean}`
}
