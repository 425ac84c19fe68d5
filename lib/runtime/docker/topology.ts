import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type Docker from 'dockerode'
import type { Role } from '../types.ts'
import { defaultKnownHosts, hostKeyVerifier, preferredHostKeyAlgorithms, readKnownHosts, type HostKeyPolicy, type HostKeyRefusal } from './host-keys.ts'
import { sshEngineAgent } from './ssh-agent.ts'

/*
 * Where each role runs when they run on several Docker hosts (--hosts): one engine per
 * host, reached over SSH, TCP with TLS client certificates, or a unix socket. Parsed and
 * checked by lib/cli/hosts-options.ts; the runtime is lib/runtime/docker/multi-host.ts.
 */

export const ROLES: readonly Role[] = ['proxy', 'backend', 'generator']

export interface EngineHost {
  /** The engine URL as given, without query: ssh://user@h1, tcp://h3:2376, unix:///var/run/docker.sock. */
  url: string
  protocol: 'ssh' | 'tcp' | 'unix'
  /** ssh and tcp: the host name or address and port; unix: the socket path. */
  host?: string
  port?: number
  user?: string
  socketPath?: string
  /** tcp: the directory with ca.pem, cert.pem and key.pem (Docker's DOCKER_CERT_PATH layout). */
  certDir?: string
  /** ssh: the private key to log in with (default: the ssh agent, else ~/.ssh/id_ed25519 or id_rsa). */
  identity?: string
  /** ssh: how the server's host key is checked (default: ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts, nothing new accepted). */
  hostKeys?: HostKeyPolicy
  /**
   * Where the harness and the other roles reach roles on this host. A loopback address
   * (the default for unix sockets): the roles listen on per-cell loopback addresses as on
   * one machine.
   */
  address: string
  /**
   * Files go into the containers through the API (put before start, read back after),
   * not bind mounts: always for ssh and tcp (no shared file system), asked with copy=1
   * for a unix socket (tests of that path on one machine).
   */
  copyFiles: boolean
}

export interface RolePlacement {
  host: EngineHost
  /** The role's cpuset on its host; absent: from that host's core count (resolveCpusets). */
  cpuset?: string
}

export interface Topology {
  /** Where it was given: `--hosts` or the YAML file. */
  source: string
  roles: Record<Role, RolePlacement>
}

/** The distinct hosts of a topology (one engine client each), in role order. */
export function topologyHosts(t: Topology): EngineHost[] {
  const out: EngineHost[] = []
  for (const r of ROLES) if (!out.includes(t.roles[r].host)) out.push(t.roles[r].host)
  return out
}

/** The roles placed on a host. */
export const rolesOn = (t: Topology, h: EngineHost): Role[] => ROLES.filter((r) => t.roles[r].host === h)

export const isLoopback = (address: string) => /^127\.\d+\.\d+\.\d+$/.test(address) || address === 'localhost' || address === '::1'

/**
 * dockerode's options for a host's engine (the TLS files read now). `persistentSsh`: one SSH
 * connection kept open for every request (lib/runtime/docker/ssh-agent.ts; the caller
 * destroys the agent when done), instead of docker-modem's connection per request.
 */
export function engineOptions(h: EngineHost, read: (p: string) => Buffer = readFileSync, o: { persistentSsh?: boolean } = {}): Docker.DockerOptions {
  if (h.protocol === 'unix') return { socketPath: h.socketPath! }
  if (h.protocol === 'tcp') {
    const dir = h.certDir!
    return {
      protocol: 'https',
      host: h.host!,
      port: h.port ?? 2376,
      ca: read(join(dir, 'ca.pem')),
      cert: read(join(dir, 'cert.pem')),
      key: read(join(dir, 'key.pem')),
    }
  }
  const sshOptions: Record<string, unknown> = hostKeyOptions(h)
  if (h.identity) sshOptions.privateKey = read(h.identity)
  else if (process.env.SSH_AUTH_SOCK) sshOptions.agent = process.env.SSH_AUTH_SOCK
  // `docker system dial-stdio` runs on the remote side: the docker CLI must be installed there.
  if (o.persistentSsh)
    return {
      protocol: 'http',
      host: h.host!,
      port: h.port ?? 22,
      agent: sshEngineAgent({ host: h.host!, port: h.port ?? 22, username: h.user ?? 'root', ...sshOptions }),
    } as Docker.DockerOptions
  return { protocol: 'ssh', host: h.host!, port: h.port ?? 22, username: h.user ?? 'root', sshOptions } as Docker.DockerOptions
}

const refusals = new WeakMap<EngineHost, HostKeyRefusal>()

/** Why the last connection to this ssh host was refused for its host key, if it was. */
export const hostKeyRefusal = (h: EngineHost): HostKeyRefusal | undefined => refusals.get(h)

/** ssh2's host key check for an ssh host (docs/hosts.md#host-keys-and-tls-engines): without it any machine in the middle is accepted. */
function hostKeyOptions(h: EngineHost): Record<string, unknown> {
  const policy = h.hostKeys ?? { knownHosts: defaultKnownHosts(), acceptNew: false }
  const port = h.port ?? 22
  const lines = policy.fingerprint === undefined ? readKnownHosts(policy.knownHosts) : []
  return {
    hostVerifier: (() => {
      const verify = hostKeyVerifier({ url: h.url, host: h.host!, port, policy, onRefuse: (r) => refusals.set(h, r) })
      // A later accepted key clears an earlier refusal: it must not name a failure of another kind.
      return (blob: Buffer) => (verify(blob) ? (refusals.delete(h), true) : false)
    })(),
    algorithms: { serverHostKey: preferredHostKeyAlgorithms(lines, h.host!, port) },
  }
}

/** The environment the docker CLI needs to reach a host (the exit pass's last sweep). */
export function cliEnv(h: EngineHost): Record<string, string> {
  if (h.protocol === 'unix') return { DOCKER_HOST: `unix://${h.socketPath}` }
  if (h.protocol === 'tcp') return { DOCKER_HOST: `tcp://${h.host}:${h.port ?? 2376}`, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: h.certDir! }
  return { DOCKER_HOST: `ssh://${h.user ? `${h.user}@` : ''}${h.host}${h.port ? `:${h.port}` : ''}` }
}

/** One line per role for logs and the manifest: `proxy on ssh://u@h1 (reached at 10.0.0.1), cpuset 0-3`. */
export function describeTopology(t: Topology, cpus?: Record<Role, string>): string[] {
  return ROLES.map((r) => {
    const p = t.roles[r]
    const cpuset = cpus?.[r] ?? p.cpuset ?? "from the host's cores"
    return `${r} on ${p.host.url} (reached at ${p.host.address}${p.host.copyFiles ? ', files through the API' : ''}), cpuset ${cpuset}`
  })
}
