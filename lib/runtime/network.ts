import { execFileSync } from 'node:child_process'
import { readFileSync, readlinkSync } from 'node:fs'
import type { Role, RunningRole, Runtime } from './types.ts'

/*
 * Where server roles listen and where they are reached. Native and Docker host mode:
 * every role shares the host's network, so servers listen on the loopback address the
 * harness chose and are reached there. Docker bridge mode: each role has a network
 * namespace of its own, so servers listen on 0.0.0.0 inside their container and are
 * reached at the container's address, by the harness and by the other roles alike.
 * Several hosts (--hosts): a role on a host with a non-loopback address listens there
 * and is reached there; on a loopback-addressed host it behaves as on one machine.
 */

export type NetworkMode = 'host' | 'bridge'
export const NETWORK_MODES: readonly NetworkMode[] = ['host', 'bridge']

export const LOOPBACK = '127.0.0.1'

export const isBridged = (rt: Pick<Runtime, 'network'>): boolean => rt.network === 'bridge'

/**
 * The address a server role binds: all of its own namespace in bridge mode; its host's
 * address when roles run on several hosts (`role` says which); else `loopback`.
 */
export const listenHost = (rt: Pick<Runtime, 'network' | 'hostAddress'>, loopback = LOOPBACK, role?: Role): string =>
  isBridged(rt) ? '0.0.0.0' : (role && rt.hostAddress?.(role)?.listen) || loopback

/** The address the harness and the other roles use to reach a started server role. */
export function reachHost(rt: Pick<Runtime, 'network' | 'addressOf' | 'hostAddress'>, role: RunningRole, loopback = LOOPBACK): string {
  // Host mode: where it listens, unless it runs on another host (that host's address then).
  if (!isBridged(rt)) return rt.hostAddress?.(role.spec.role)?.reach ?? loopback
  const address = rt.addressOf?.(role)
  if (!address) throw new Error(`${role.spec.name} has no address on the run's network`)
  return address
}

/**
 * The TCP settings a network namespace of the run's own gets (docs/method/overview.md#collapsed-windows-and-ports):
 * a cell with a backend connection per request opens thousands of connections a second, each
 * of whose ports TIME_WAIT then holds for a minute; reuse of those ports for new outgoing
 * connections and the widest port range keep that from running out. One setting of the
 * machine for every proxy, never one proxy's.
 */
export const PORT_SYSCTLS: Readonly<Record<string, string>> = {
  'net.ipv4.tcp_tw_reuse': '1',
  'net.ipv4.ip_local_port_range': '1024 65535',
}

/** A process's network namespace (`net:[inode]`), or null when it cannot be read. */
export function netnsOf(pid: number | 'self'): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`)
  } catch {
    return null
  }
}

/** The host's network namespace: the kernel thread daemon's (pid 2), where this pid namespace shows it; null when it cannot say. */
export function hostNetns(read: (file: string) => string = (f) => readFileSync(f, 'utf8')): string | null {
  try {
    return read('/proc/2/comm').trim() === 'kthreadd' ? netnsOf(2) : null
  } catch {
    return null
  }
}

/**
 * Why the namespace `netns` must keep its settings, or null when it is the run's to set: the
 * host's (or one that cannot be told apart from it) is the machine's, and never changed.
 */
export function keepsItsSettings(netns: string | null, host: string | null): string | null {
  if (!netns) return 'its network namespace cannot be read'
  if (!host) return 'the host network namespace cannot be told apart from it'
  return netns === host ? "it is the host's network namespace" : null
}

/** A sysctl as a namespace of process `pid` has it (nsenter: /proc/sys/net shows the reader's namespace). */
export function sysctlIn(pid: number, key: string): string {
  return execFileSync('nsenter', [`--net=/proc/${pid}/ns/net`, 'sysctl', '-n', key], { encoding: 'utf8' })
    .trim()
    .replace(/\s+/g, ' ')
}

/**
 * Sets PORT_SYSCTLS in the network namespace of process `pid` unless it keeps its settings
 * (keepsItsSettings); what was done, for the run's log.
 */
export function applyPortSysctls(pid: number, host = hostNetns()): string {
  const netns = netnsOf(pid)
  const keep = keepsItsSettings(netns, host)
  if (keep) return `TCP settings left as they are: ${keep}`
  const settings = Object.entries(PORT_SYSCTLS).map(([k, v]) => `${k}=${v}`)
  execFileSync('nsenter', [`--net=/proc/${pid}/ns/net`, 'sysctl', '-q', '-w', ...settings])
  return `${netns}: ${settings.join(', ')}`
}
