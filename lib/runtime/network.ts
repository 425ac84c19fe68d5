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
