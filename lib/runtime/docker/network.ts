import { readFileSync } from 'node:fs'
import type { RunningRole } from '../types.ts'
import type { DockerRunningRole } from './runtime.ts'

/* A bridged run's network: its name, the containers' kernel settings, a role's address on it. */

/**
 * TCP settings of a bridged container's own network namespace, so its stack behaves as
 * the host's loopback does for native and host mode: the host's port range and accept
 * backlog, and TIME_WAIT reuse for outgoing connections (the kernel default
 * tcp_tw_reuse=2 grants it on loopback only; without it an unpooled cell at thousands of
 * new connections a second runs out of ports within seconds).
 */
export function bridgeSysctls(read: (key: string) => string | undefined = hostSysctl): Record<string, string> {
  const out: Record<string, string> = { 'net.ipv4.tcp_tw_reuse': '1' }
  for (const key of ['net.ipv4.ip_local_port_range', 'net.core.somaxconn']) {
    const v = read(key)?.trim().replace(/\s+/g, ' ')
    if (v) out[key] = v
  }
  return out
}

function hostSysctl(key: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${key.replaceAll('.', '/')}`, 'utf8')
  } catch {
    return undefined
  }
}

/** The run's bridge network: `proxybench-<run id>`, as Docker accepts a name. */
export const networkNameFor = (runId: string) => `proxybench-${runId.replace(/[^a-zA-Z0-9_.-]/g, '_')}`.slice(0, 60)

/** The container's address on the run's bridge network (undefined in host mode). */
export function containerAddress(role: RunningRole): string | undefined {
  return (role as DockerRunningRole).address
}
