import type { RunningRole, Runtime } from './types.ts'

/*
 * Where server roles listen and where they are reached. Native and Docker host mode:
 * every role shares the host's network, so servers listen on the loopback address the
 * harness chose and are reached there. Docker bridge mode: each role has a network
 * namespace of its own, so servers listen on 0.0.0.0 inside their container and are
 * reached at the container's address, by the harness and by the other roles alike.
 */

export type NetworkMode = 'host' | 'bridge'
export const NETWORK_MODES: readonly NetworkMode[] = ['host', 'bridge']

export const LOOPBACK = '127.0.0.1'

export const isBridged = (rt: Pick<Runtime, 'network'>): boolean => rt.network === 'bridge'

/** The address a server role binds: all of its own namespace in bridge mode, else `loopback`. */
export const listenHost = (rt: Pick<Runtime, 'network'>, loopback = LOOPBACK): string => (isBridged(rt) ? '0.0.0.0' : loopback)

/** The address the harness and the other roles use to reach a started server role. */
export function reachHost(rt: Pick<Runtime, 'network' | 'addressOf'>, role: RunningRole, loopback = LOOPBACK): string {
  if (!isBridged(rt)) return loopback
  const address = rt.addressOf?.(role)
  if (!address) throw new Error(`${role.spec.name} has no address on the run's network`)
  return address
}
