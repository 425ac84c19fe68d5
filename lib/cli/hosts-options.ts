import { existsSync, readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { z } from 'zod'
import { userError } from '../core/errors.ts'
import { readYamlFile } from '../core/yaml-file.ts'
import type { Role } from '../runtime/types.ts'
import { FINGERPRINT, GLOBAL_KNOWN_HOSTS } from '../runtime/docker/host-keys.ts'
import { ROLES, type EngineHost, type RolePlacement, type Topology } from '../runtime/docker/topology.ts'

/*
 * --hosts: each role's Docker engine, inline or as a YAML file (docs/hosts.md).
 *   --hosts "proxy=ssh://bench@h1 backend=ssh://bench@h2 generator=tcp://h3:2376?certs=./h3"
 *   --hosts topology.yaml
 * Inline options go in the URL's query: address, cpuset, certs, identity, copy, known_hosts, fingerprint.
 * ssh host keys are checked against known_hosts or a pinned fingerprint (docs/hosts.md#host-keys-and-tls-engines).
 */

const CPU_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/
const OPTION_KEYS = ['address', 'cpuset', 'certs', 'identity', 'copy', 'known_hosts', 'fingerprint'] as const
type PlacementOptions = Partial<Record<(typeof OPTION_KEYS)[number], string>>

const FIX_INLINE =
  'Write --hosts "proxy=ssh://user@h1 backend=ssh://user@h2 generator=tcp://h3:2376?certs=DIR" (unix:///path for a local engine), or give a topology.yaml (docs/hosts.md)'
const FIX_YAML =
  'Name proxy, backend and generator, each with engine: ssh://…, tcp://… or unix://… and optionally address, cpuset, certs, identity, copy, known_hosts, fingerprint (docs/hosts.md)'

const expandHome = (p: string, env: NodeJS.ProcessEnv = process.env) => (p === '~' || p.startsWith('~/') ? join(env.HOME ?? homedir(), p.slice(1)) : p)

export interface HostKeyFlags {
  /** --accept-new-host-keys: record a key no known_hosts file lists (StrictHostKeyChecking=accept-new). */
  acceptNewHostKeys?: boolean
}

/** Where a placement is read, for its errors: the role, its engine URL, the flag or file:line, and the fix to suggest. */
interface PlacementAt {
  role: string
  engine: string
  where: string
  fix: string
}

/** One role's engine URL and options → its placement; `where` names the flag or file:line in errors. */
export function parsePlacement(
  role: string,
  engine: string,
  opts: PlacementOptions,
  where: string,
  env: NodeJS.ProcessEnv = process.env,
  keys: HostKeyFlags = {},
): RolePlacement {
  const at: PlacementAt = { role, engine, where, fix: where.startsWith('--hosts') ? FIX_INLINE : FIX_YAML }
  const host = engineHost(at)
  const protocol = host.protocol
  checkAddressAndCopy(at, host, opts)
  if (protocol === 'tcp') host.certDir = tcpCertDir(at, opts, env)
  if (opts.identity !== undefined) {
    const file = resolve(expandHome(opts.identity))
    if (!existsSync(file) || !statSync(file).isFile())
      throw userError(where, `${role}: identity ${opts.identity} is not a file`, 'Give the private key that ssh-copy-id installed on the host')
    host.identity = file
  }
  if (protocol === 'ssh') host.hostKeys = sshHostKeys(at, opts, env, keys)
  if (opts.cpuset !== undefined && !CPU_LIST.test(opts.cpuset))
    throw userError(where, `${role}: cpuset "${opts.cpuset}" is not a CPU list`, 'Write e.g. cpuset=0-3 or cpuset=0,2 (the CPUs of that host)')
  return { host: host as EngineHost, ...(opts.cpuset !== undefined ? { cpuset: opts.cpuset } : {}) }
}

/** The engine URL → the host's scheme, address parts and socket; an error names what the URL lacks or carries wrongly. */
function engineHost(at: PlacementAt): Partial<EngineHost> & Pick<EngineHost, 'protocol'> {
  const { role, engine, where, fix } = at
  let url: URL
  try {
    url = new URL(engine)
  } catch {
    throw userError(where, `${role}: "${engine}" is not an engine URL`, fix)
  }
  const protocol = url.protocol.replace(/:$/, '')
  if (protocol !== 'ssh' && protocol !== 'tcp' && protocol !== 'unix')
    throw userError(where, `${role}: unknown engine scheme "${protocol}://"`, 'Use ssh://user@host, tcp://host:2376 (TLS) or unix:///path/to/docker.sock')
  const host: Partial<EngineHost> & Pick<EngineHost, 'protocol'> = {
    protocol,
    url: `${protocol}://${url.host}${url.pathname === '/' ? '' : url.pathname}`,
    copyFiles: protocol !== 'unix',
  }
  return { ...host, ...(protocol === 'unix' ? socketParts(url, at) : networkParts(url, protocol, at)) }
}

/** A unix:// engine: its socket, which the URL must name. */
function socketParts(url: URL, { role, engine, where }: PlacementAt): Pick<EngineHost, 'socketPath' | 'url'> {
  if (!url.pathname || url.pathname === '/') throw userError(where, `${role}: ${engine} names no socket`, 'Write unix:///var/run/docker.sock (three slashes)')
  return { socketPath: url.pathname, url: `unix://${url.pathname}` }
}

/** An ssh:// or tcp:// engine: host, port and user; no path, and no password (a key or client certificates log in). */
function networkParts(url: URL, protocol: 'ssh' | 'tcp', { role, engine, where, fix }: PlacementAt): Partial<EngineHost> {
  if (!url.hostname) throw userError(where, `${role}: ${engine} names no host`, fix)
  if (url.pathname && url.pathname !== '/') throw userError(where, `${role}: ${engine} has a path; an ${protocol} engine URL is host and port only`, fix)
  const parts = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    ...(url.port ? { port: Number(url.port) } : {}),
    ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
  }
  if (url.password)
    throw userError(
      where,
      `${role}: ${engine} carries a password`,
      protocol === 'ssh'
        ? 'Log in with a key (identity=PATH or the ssh agent): ssh-copy-id user@host'
        : 'tcp engines authenticate with TLS client certificates (certs=DIR)',
    )
  return parts
}

/** The address other roles reach the host at, copy=, and options given for another scheme. */
function checkAddressAndCopy({ role, where }: PlacementAt, host: Partial<EngineHost> & Pick<EngineHost, 'protocol'>, opts: PlacementOptions): void {
  const protocol = host.protocol
  const address = opts.address ?? (protocol === 'unix' ? '127.0.0.1' : host.host!)
  if (!/^[\w.:-]+$/.test(address))
    throw userError(
      where,
      `${role}: address "${address}" is not a host name or IP address`,
      'Give the address the other roles reach this host at, e.g. address=10.0.0.2',
    )
  host.address = address
  if (opts.copy !== undefined) {
    if (!['1', 'true', 'yes', '0', 'false', 'no'].includes(opts.copy))
      throw userError(where, `${role}: copy=${opts.copy}`, 'Use copy=1 (files through the API) or copy=0')
    const copy = ['1', 'true', 'yes'].includes(opts.copy)
    if (!copy && protocol !== 'unix')
      throw userError(where, `${role}: copy=0 on ${protocol}://: a remote engine shares no file system with this machine`, 'Drop copy=0')
    host.copyFiles = copy
  }
  if (opts.certs !== undefined && protocol !== 'tcp')
    throw userError(where, `${role}: certs is for tcp:// engines`, 'Drop certs, or use a tcp://host:2376 engine URL')
  for (const k of ['identity', 'known_hosts', 'fingerprint'] as const) {
    if (opts[k] !== undefined && protocol !== 'ssh')
      throw userError(where, `${role}: ${k} is for ssh:// engines`, `Drop ${k}, or use an ssh://user@host engine URL`)
  }
}

/** A tcp engine's TLS client certificate folder: certs=, DOCKER_CERT_PATH or ~/.docker, holding all three files. */
function tcpCertDir({ role, engine, where }: PlacementAt, opts: PlacementOptions, env: NodeJS.ProcessEnv): string {
  const dir = opts.certs ?? env.DOCKER_CERT_PATH ?? (existsSync(join(homedir(), '.docker', 'ca.pem')) ? join(homedir(), '.docker') : undefined)
  if (!dir)
    throw userError(
      where,
      `${role}: ${engine} needs TLS client certificates`,
      'Add certs=DIR (ca.pem, cert.pem, key.pem as for DOCKER_CERT_PATH), or set DOCKER_CERT_PATH',
    )
  const full = resolve(expandHome(dir))
  const missing = ['ca.pem', 'cert.pem', 'key.pem'].filter((f) => !existsSync(join(full, f)))
  if (missing.length)
    throw userError(
      where,
      `${role}: ${dir} lacks ${missing.join(', ')}`,
      "Give the directory holding the client's ca.pem, cert.pem and key.pem (docs/hosts.md)",
    )
  return full
}

/** How an ssh engine's host key is checked: a pinned fingerprint, or known_hosts files (docs/hosts.md#host-keys-and-tls-engines). */
function sshHostKeys({ role, where }: PlacementAt, opts: PlacementOptions, env: NodeJS.ProcessEnv, keys: HostKeyFlags): NonNullable<EngineHost['hostKeys']> {
  // A query decodes `+` as a space; a fingerprint has `+` and no spaces.
  const fingerprint = opts.fingerprint?.replace(/ /g, '+')
  if (fingerprint !== undefined && !FINGERPRINT.test(fingerprint))
    throw userError(
      where,
      `${role}: fingerprint "${opts.fingerprint}" is not a SHA256 fingerprint`,
      'Give it as ssh-keygen -lf prints it on the host, e.g. SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8',
    )
  if (fingerprint !== undefined && opts.known_hosts !== undefined)
    throw userError(where, `${role}: both fingerprint and known_hosts`, 'Give one: a pinned fingerprint is the only key accepted, known_hosts is then not read')
  let knownHosts = [join(env.HOME ?? homedir(), '.ssh', 'known_hosts'), GLOBAL_KNOWN_HOSTS]
  if (opts.known_hosts !== undefined) {
    const file = resolve(expandHome(opts.known_hosts, env))
    if (existsSync(file) ? !statSync(file).isFile() : !keys.acceptNewHostKeys)
      throw userError(
        where,
        `${role}: known_hosts ${opts.known_hosts} is not a file`,
        'Give a known_hosts file (ssh-keyscan HOST > FILE), or add --accept-new-host-keys to start one',
      )
    knownHosts = [file]
  }
  return { knownHosts, acceptNew: !!keys.acceptNewHostKeys, ...(fingerprint !== undefined ? { fingerprint } : {}) }
}

const show = (v: unknown) => (v === undefined ? 'none' : typeof v === 'object' ? JSON.stringify(v) : String(v))

/**
 * Roles naming the same engine share one host (and client): its TLS files, key and address
 * must then agree. Returns the placements with shared host objects.
 */
function joinHosts(placements: Record<Role, RolePlacement>, where: (r: Role) => string): Record<Role, RolePlacement> {
  const byUrl = new Map<string, EngineHost>()
  const out = {} as Record<Role, RolePlacement>
  for (const r of ROLES) {
    const p = placements[r]
    const seen = byUrl.get(p.host.url)
    if (seen) {
      for (const k of ['address', 'certDir', 'identity', 'copyFiles', 'hostKeys'] as const) {
        if (JSON.stringify(seen[k]) !== JSON.stringify(p.host[k]))
          throw userError(
            where(r),
            `${r} names ${p.host.url} like another role but with another ${k} (${show(p.host[k])} vs ${show(seen[k])})`,
            'Roles on one host share its engine, address and credentials: give them once, the same for each',
          )
      }
      out[r] = { ...p, host: seen }
    } else {
      byUrl.set(p.host.url, p.host)
      out[r] = p
    }
  }
  return out
}

/** `proxy=URL backend=URL generator=URL`, options in each URL's query. */
export function parseInlineHosts(value: string, env: NodeJS.ProcessEnv = process.env, keys: HostKeyFlags = {}): Topology {
  const placements: Partial<Record<Role, RolePlacement>> = {}
  const items = value.split(/\s+/).filter(Boolean)
  if (items.length === 0) throw userError('--hosts', 'names no host', FIX_INLINE)
  for (const item of items) {
    const eq = item.indexOf('=')
    const role = item.slice(0, eq)
    if (eq <= 0 || !item.slice(eq + 1)) throw userError('--hosts', `cannot read "${item}"`, FIX_INLINE)
    if (!(ROLES as readonly string[]).includes(role)) throw userError('--hosts', `unknown role "${role}"`, `Use the roles ${ROLES.join(', ')}`)
    if (placements[role as Role]) throw userError('--hosts', `${role} is given twice`, 'Name each role once')
    const raw = item.slice(eq + 1)
    const q = raw.indexOf('?')
    const opts = q === -1 ? {} : inlineOptions(role, raw.slice(q + 1))
    placements[role as Role] = parsePlacement(role, q === -1 ? raw : raw.slice(0, q), opts, '--hosts', env, keys)
  }
  const missing = ROLES.filter((r) => !placements[r])
  if (missing.length)
    throw userError('--hosts', `names no engine for ${missing.join(', ')}`, `Give all three roles (${ROLES.join(', ')}); several may name the same engine`)
  return { source: '--hosts', roles: joinHosts(placements as Record<Role, RolePlacement>, () => '--hosts') }
}

/** The options in one role's URL query (`address=10.0.0.2&cpuset=0-3`); an unknown one is an error naming the role. */
function inlineOptions(role: string, query: string): PlacementOptions {
  const opts: PlacementOptions = {}
  for (const [k, v] of new URLSearchParams(query)) {
    if (!(OPTION_KEYS as readonly string[]).includes(k))
      throw userError('--hosts', `${role}: unknown option "${k}"`, `Use ${OPTION_KEYS.join(', ')} (e.g. ?address=10.0.0.2&cpuset=0-3)`)
    opts[k as keyof PlacementOptions] = v
  }
  return opts
}

const placementSchema = z
  .object({
    engine: z.string(),
    address: z.string().optional(),
    cpuset: z.union([z.string(), z.number()]).transform(String).optional(),
    certs: z.string().optional(),
    identity: z.string().optional(),
    copy: z
      .union([z.boolean(), z.number()])
      .transform((v) => (v ? '1' : '0'))
      .optional(),
    known_hosts: z.string().optional(),
    fingerprint: z.string().optional(),
  })
  .strict()

const topologySchema = z.object({ proxy: placementSchema, backend: placementSchema, generator: placementSchema }).strict()

/** A topology.yaml; relative certs, identity and known_hosts paths are relative to the file. */
export function readTopologyFile(file: string, env: NodeJS.ProcessEnv = process.env, keys: HostKeyFlags = {}): Topology {
  const doc = readYamlFile(file, topologySchema, FIX_YAML)
  const dir = resolve(file, '..')
  const lines = readFileSync(file, 'utf8').split('\n')
  // A role's problem names the line its block starts on.
  const where = (r: Role) => `${file}:${lines.findIndex((l) => l.startsWith(`${r}:`)) + 1}`
  const placements = {} as Record<Role, RolePlacement>
  for (const r of ROLES) {
    const { engine, ...opts } = doc[r]
    const rel = (p: string | undefined) => (p === undefined ? undefined : resolve(dir, expandHome(p, env)))
    placements[r] = parsePlacement(
      r,
      engine,
      { ...opts, certs: rel(opts.certs), identity: rel(opts.identity), known_hosts: rel(opts.known_hosts) } as PlacementOptions,
      where(r),
      env,
      keys,
    )
  }
  return { source: file, roles: joinHosts(placements, where) }
}

/** `--hosts`: a YAML file (a path ending in .yaml/.yml, or an existing file) or the inline form; absent: one machine. */
export function parseHosts(value: string | undefined, env: NodeJS.ProcessEnv = process.env, keys: HostKeyFlags = {}): Topology | undefined {
  if (value === undefined) return undefined
  const v = value.trim()
  if (/\.ya?ml$/i.test(v) || (!v.includes('=') && existsSync(v))) {
    if (!existsSync(v))
      throw userError('--hosts', `${v} does not exist`, 'Give the path of your topology.yaml, or the inline form proxy=URL backend=URL generator=URL')
    return readTopologyFile(v, env, keys)
  }
  return parseInlineHosts(v, env, keys)
}
