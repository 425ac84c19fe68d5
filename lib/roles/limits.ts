import { readFileSync } from 'node:fs'

/**
 * How many client connections a closed-model cell can hold on this machine: every role
 * inherits the harness's open-file limit, and the proxy holds two descriptors per client
 * (its side and, pooled, a backend connection), plus a margin for listeners, logs and
 * libraries; each client connection also takes one local port of the ephemeral range.
 */
export interface ConnectionLimit {
  max: number
  /** The limit in words, for a row that asks for more. */
  why: string
}

/** Descriptors a role keeps beside its connections (listeners, logs, libraries, epoll). */
const FD_MARGIN = 128

export function connectionLimit(read: (file: string) => string = (f) => readFileSync(f, 'utf8')): ConnectionLimit {
  const nofile = Number(/^Max open files\s+(\d+|unlimited)/m.exec(read('/proc/self/limits'))?.[1] ?? NaN)
  const [lo, hi] = read('/proc/sys/net/ipv4/ip_local_port_range').trim().split(/\s+/).map(Number)
  const byFds = Number.isFinite(nofile) ? Math.floor((nofile - FD_MARGIN) / 2) : Infinity
  const byPorts = lo !== undefined && hi !== undefined && hi >= lo ? hi - lo + 1 : Infinity
  const max = Math.min(byFds, byPorts)
  return {
    max,
    why:
      byFds <= byPorts
        ? `ulimit -n is ${nofile}: the proxy holds 2 descriptors per client plus ${FD_MARGIN}, so at most ${byFds} clients (raise it with ulimit -n)`
        : `the ephemeral port range ${lo}-${hi} has ${byPorts} ports (widen net.ipv4.ip_local_port_range)`,
  }
}

/** Null when `connections` fit, else the reason a row of that cell gives. */
export function overConnectionLimit(connections: number, limit: ConnectionLimit = connectionLimit()): string | null {
  return connections <= limit.max ? null : `${connections} connections do not fit this machine: ${limit.why}`
}
