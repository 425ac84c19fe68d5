import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { exec, lastLine } from '../core/exec.ts'
import type { Logger } from '../core/log.ts'

/** Debian packages the harness uses, with the binary each one provides. */
export const DEBIAN_PACKAGES: Record<string, string> = {
  nginx: '/usr/sbin/nginx',
  haproxy: '/usr/sbin/haproxy',
  caddy: '/usr/bin/caddy',
  wrk: '/usr/bin/wrk',
  'nghttp2-client': '/usr/bin/h2load',
  openssl: '/usr/bin/openssl',
  chromium: '/usr/bin/chromium',
  'docker.io': '/usr/sbin/dockerd',
  debootstrap: '/usr/sbin/debootstrap',
  // The work series counts instructions under callgrind (docs/method/work.md).
  valgrind: '/usr/bin/valgrind',
  // Chromium renders the PDF; without a font its text would be boxes.
  'fonts-dejavu-core': '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
}

/** Installed version of each package, or null when it is not installed. */
export async function debianVersions(packages: string[]): Promise<Map<string, string | null>> {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax, not a template
  const r = await exec('dpkg-query', ['-W', '-f', '${Package}\t${db:Status-Abbrev}\t${Version}\n', ...packages])
  const found = new Map<string, string | null>(packages.map((p) => [p, null]))
  for (const line of r.stdout.split('\n')) {
    const [pkg, status, version] = line.split('\t')
    if (pkg && status?.startsWith('ii') && version) found.set(pkg, version)
  }
  return found
}

export function installCommand(packages: string[]): string {
  return `apt-get update && apt-get install -y --no-install-recommends ${packages.join(' ')}`
}

export const isRoot = () => process.getuid?.() === 0

/**
 * Installs missing Debian packages as root. A temporary policy-rc.d keeps the
 * packages' own services (nginx on :80, haproxy, caddy, docker) from starting: the
 * harness starts its own instances and must leave nothing running.
 */
export async function aptInstall(packages: string[], log: Logger): Promise<{ ok: boolean; error?: string }> {
  const policy = '/usr/sbin/policy-rc.d'
  const ownPolicy = !existsSync(policy)
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 })
  try {
    const env = { DEBIAN_FRONTEND: 'noninteractive' }
    log.progress(`apt-get update (for ${packages.join(', ')})`)
    const update = await exec('apt-get', ['update', '-qq'], { env })
    if (update.code !== 0) return { ok: false, error: `apt-get update failed: ${lastLine(update.stderr)}` }
    log.progress(`apt-get install ${packages.join(' ')} (may take a few minutes)`)
    const install = await exec('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], { env })
    if (install.code !== 0) return { ok: false, error: `apt-get install failed: ${lastLine(install.stderr)}` }
    return { ok: true }
  } finally {
    if (ownPolicy) rmSync(policy, { force: true })
  }
}
