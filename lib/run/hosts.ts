import { join } from 'node:path'
import { userError } from '../core/errors.ts'
import type { Logger } from '../core/log.ts'
import type { Fingerprint, HostsRecord } from '../data/schema.ts'
import { cpuCount, defaultCpuLayout, type CpuLayout } from '../roles/cpus.ts'
import { loadgenTcpArgv, parseLoadgenOutput, type TcpResult } from '../roles/loadgen.ts'
import { freePort, waitForPort } from '../roles/net.ts'
import type { MultiHostRuntime, HostRuntime } from '../runtime/docker/multi-host.ts'
import { runToEnd } from '../runtime/run-to-end.ts'
import { hostKeyRefusal, ROLES, rolesOn, topologyHosts, type EngineHost, type Topology } from '../runtime/docker/topology.ts'
import type { Role } from '../runtime/types.ts'
import { parseCpuinfo, readVulnerabilitiesText, virtualization } from '../setup/fingerprint.ts'
import { goBinaryPath } from '../setup/gobuild.ts'

/* A run on several hosts (--hosts): engines checked, cpusets from each host's cores, each host's facts, the network between them. */

export interface EngineFacts {
  name: string
  os: string
  kernel: string
  cpus: number
  memory_gib: number
  engine_version: string
}

/** Every engine of the topology answers, or a one-line error naming the role and the engine. */
export async function connectHosts(rt: MultiHostRuntime, timeoutMs = 20_000): Promise<Map<EngineHost, EngineFacts>> {
  const out = new Map<EngineHost, EngineFacts>()
  await Promise.all(
    rt.hosts.map(async (h) => {
      const abort = new AbortController()
      const timer = setTimeout(() => abort.abort(), timeoutMs)
      try {
        const info = await (h.docker as unknown as { info(o: object): Promise<Record<string, any>> }).info({ abortSignal: abort.signal })
        out.set(h.host, engineFacts(info, h.host))
      } catch (e) {
        throw engineRefusal(e as Error & { code?: string }, h.host, rolesOn(rt.topology, h.host).join(' and '), abort.signal.aborted ? timeoutMs : null)
      } finally {
        clearTimeout(timer)
      }
    }),
  )
  return out
}

/** The facts of an engine from its `docker info`; a field it lacks is empty. */
function engineFacts(info: Record<string, any>, host: EngineHost): EngineFacts {
  return {
    name: String(info.Name ?? host.url),
    os: String(info.OperatingSystem ?? ''),
    kernel: String(info.KernelVersion ?? ''),
    cpus: Number(info.NCPU ?? 0),
    memory_gib: Math.round((Number(info.MemTotal ?? 0) / 2 ** 30) * 10) / 10,
    engine_version: String(info.ServerVersion ?? ''),
  }
}

/** Why an engine did not answer (`timedOutMs`: it was given that long), as one line naming the roles on it and the fix. */
function engineRefusal(e: Error & { code?: string }, host: EngineHost, roles: string, timedOutMs: number | null): Error {
  // A refused host key is not an engine that does not answer: the check's own line.
  const refused = hostKeyRefusal(host) ?? (host.protocol === 'tcp' ? tlsRefusal(e, host) : null)
  if (refused) return userError(`--hosts ${roles}`, refused.what, refused.fix)
  const why = timedOutMs !== null ? `no answer within ${timedOutMs / 1000} s` : String(e.message ?? e).split('\n')[0]
  return userError(`--hosts ${roles}`, `the engine at ${host.url} does not answer (${why})`, ENGINE_CHECK[host.protocol])
}

/** How to check an engine by hand, per protocol (unix: the local socket). */
const ENGINE_CHECK: Record<EngineHost['protocol'], string> = {
  ssh: 'Check: ssh USER@HOST docker info (a key from ssh-copy-id, the docker CLI on that host)',
  tcp: 'Check: DOCKER_HOST=tcp://HOST:2376 DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=DIR docker info',
  unix: 'Check that the engine runs and the socket is readable',
}

const UNTRUSTED =
  /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_SIGNATURE_FAILURE|CERT_UNTRUSTED)$/
const CLIENT_REFUSED = /alert (bad certificate|unknown ca|certificate required|certificate unknown|handshake failure|access denied)/i

/** A tcp:// engine's TLS failure as what went wrong and the fix, or null for any other error (docs/hosts.md#host-keys-and-tls-engines). */
export function tlsRefusal(e: Error & { code?: string }, h: EngineHost): { what: string; fix: string } | null {
  const code = e.code ?? ''
  const msg = String(e.message ?? '')
  const ca = `${h.certDir}/ca.pem`
  if (UNTRUSTED.test(code))
    return {
      what: `the TLS engine at ${h.url} presents a server certificate that ${ca} did not sign (${code})`,
      fix: "Nothing was sent. Give certs=DIR whose ca.pem is the CA that signed the engine's --tlscert, or check that this address reaches that engine",
    }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return {
      what: `the TLS engine at ${h.url} presents a server certificate for other names (${msg.split('\n')[0]})`,
      fix: "Nothing was sent. Reach the engine at a name or address in its certificate's subjectAltName, or reissue the certificate for this one",
    }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return {
      what: `the TLS engine at ${h.url} presents a server certificate that is not valid now (${code})`,
      fix: "Nothing was sent. Renew the engine's --tlscert, or check this machine's clock",
    }
  if (CLIENT_REFUSED.test(msg) || /ALERT_(BAD_CERTIFICATE|UNKNOWN_CA|CERTIFICATE_REQUIRED|CERTIFICATE_UNKNOWN)/.test(code))
    return {
      what: `the TLS engine at ${h.url} refused this client's certificate ${h.certDir}/cert.pem (${msg.split('\n')[0]})`,
      fix: "Give certs=DIR with a cert.pem and key.pem signed by the CA the engine's --tlscacert names",
    }
  if (/wrong version number|packet length too long|http request/i.test(msg))
    return {
      what: `${h.url} does not answer with TLS (${msg.split('\n')[0]})`,
      fix: 'A tcp:// engine must listen with --tlsverify; plain TCP engines are not used (anyone on the network could drive them)',
    }
  return null
}

/**
 * Each role's cpuset on its host: the topology's, else from that host's cores: all of them
 * for a role alone on its host, the single-host layout where roles share one.
 */
export function hostCpusets(t: Topology, cores: (h: EngineHost) => number): CpuLayout {
  const out = {} as CpuLayout
  for (const r of ROLES) {
    const p = t.roles[r]
    const n = cores(p.host)
    if (p.cpuset !== undefined) {
      const max = Math.max(...p.cpuset.split(/[,-]/).map(Number))
      if (n > 0 && max >= n)
        throw userError(`--hosts ${r}`, `cpuset ${p.cpuset} names CPU ${max} but ${p.host.url} has ${n}`, `Use CPUs 0-${n - 1} of that host`)
      out[r] = p.cpuset
      continue
    }
    const alone = rolesOn(t, p.host).length === 1
    out[r] = alone ? (n <= 1 ? '0' : `0-${n - 1}`) : defaultCpuLayout(Math.max(1, n))[r]
  }
  return out
}

const MARK = '@@proxybench@@'

/** What a host's fingerprint is read from, as one shell script in a container there (/proc and /sys are the host's). */
const FACTS_SCRIPT = `cat /proc/cpuinfo; echo ${MARK}; cat /proc/version; echo ${MARK}; cat /sys/devices/system/cpu/clocksource/clocksource0/current_clocksource 2>/dev/null; echo ${MARK}; grep -H . /sys/devices/system/cpu/vulnerabilities/* 2>/dev/null; echo ${MARK}`

/** A host's fingerprint from FACTS_SCRIPT's output (facts it could not read are "unknown"). */
export function fingerprintFromFacts(text: string, kernelRelease: string): Fingerprint | null {
  const parts = text.split(`${MARK}\n`)
  if (parts.length < 4) return null
  const [cpuinfo, version, clock, vulns] = parts as [string, string, string, string]
  const cpu = parseCpuinfo(cpuinfo)
  const { hypervisor: _, ...facts } = cpu
  return {
    ...facts,
    kernel_release: kernelRelease || 'unknown',
    kernel_version: version.trim() || 'unknown',
    vulnerabilities: readVulnerabilitiesText(vulns),
    clocksource: clock.trim() || 'unknown',
    virtualization: virtualization(null, cpu, null),
  }
}

/** The image the backend runs in on every host: it has a shell, and it is sent there now if missing (with progress). */
const backendImage = (h: HostRuntime) =>
  h.runtime.resolveImage({ role: 'backend', name: 'facts', argv: [goBinaryPath('backend')], cpus: '0', logFile: '' }).image

/** Each host's fingerprint, read in a short container on it. */
async function hostFingerprint(h: HostRuntime, role: Role, scratch: string, kernel: string, cpus: string, log: Logger): Promise<Fingerprint | null> {
  try {
    const { output } = await runToEnd(
      h.runtime,
      {
        role,
        name: 'host-facts',
        argv: ['/bin/sh', '-c', FACTS_SCRIPT],
        image: backendImage(h),
        cpus,
        logFile: join(scratch, `facts-${h.runtime.engineName.replace(/\W+/g, '_')}.log`),
      },
      30,
    )
    return fingerprintFromFacts(output, kernel)
  } catch (e) {
    log.warn(`${h.host.url}: fingerprint not read (${(e as Error).message.split('\n')[0]})`)
    return null
  }
}

/**
 * The network between the generator's host and the proxy's: the backend's TCP echo started
 * on the proxy's host, then `loadgen tcp` from the generator's host, short connections
 * (connect, 64-byte echo, close) and one echoed stream, about 4 s in all.
 */
export async function networkProbe(rt: MultiHostRuntime, cpus: CpuLayout, scratch: string, ca: string): Promise<NonNullable<HostsRecord['network']>> {
  const proxyHost = rt.hostOf('proxy')
  const genHost = rt.hostOf('generator')
  const base = { from: genHost.host.url, to: proxyHost.host.url, connect_echo_p50_ms: null, stream_mib_per_s: null }
  const listen = rt.hostAddress('proxy')?.listen ?? '127.0.0.1'
  const reach = proxyHost.host.address
  try {
    const [http, tcp] = [await freePort(), await freePort()]
    const echo = await proxyHost.runtime.start({
      role: 'proxy',
      name: 'probe-echo',
      argv: [goBinaryPath('backend'), '-listen', `${listen}:${http}`, '-tcp-listen', `${listen}:${tcp}`],
      image: backendImage(proxyHost),
      cpus: cpus.proxy,
      logFile: join(scratch, 'probe-echo.log'),
    })
    try {
      await waitForPort(tcp, { host: reach, timeoutMs: 10_000, exited: echo.exited, what: 'probe echo' })
      const run = async (name: string, flags: Record<string, string | number>) => {
        const { output } = await runToEnd(
          genHost.runtime,
          { role: 'generator', name, argv: loadgenTcpArgv(`tcp://${reach}:${tcp}`, ca, flags), cpus: cpus.generator, logFile: join(scratch, `${name}.log`) },
          20,
        )
        return parseLoadgenOutput<TcpResult>(output)
      }
      const short = await run('probe-short', { mode: 'short', n: 200, c: 1, 'msg-bytes': 64, d: '2s' })
      const stream = await run('probe-stream', { mode: 'stream', n: 1, c: 1, 'stream-bytes': 256 << 20, d: '2s' })
      const issue = [
        !short?.conns_ok ? `short connections: ${short?.error_samples[0] ?? 'no report'}` : null,
        !stream?.bytes_echoed ? `stream: ${stream?.error_samples[0] ?? 'no report'}` : null,
      ]
        .filter(Boolean)
        .join('; ')
      return {
        ...base,
        connect_echo_p50_ms: short?.conns_ok ? short.p50_ms : null,
        stream_mib_per_s: stream?.bytes_echoed ? stream.mib_per_s : null,
        issue: issue || null,
      }
    } finally {
      await proxyHost.runtime.stop(echo)
    }
  } catch (e) {
    return { ...base, issue: (e as Error).message.split('\n')[0]! }
  }
}

/** The manifest's record of a run on several hosts. */
export async function hostsRecord(
  rt: MultiHostRuntime,
  facts: Map<EngineHost, EngineFacts>,
  cpus: CpuLayout,
  o: { scratch: string; ca: string; log: Logger },
): Promise<HostsRecord> {
  const t = rt.topology
  const hosts: HostsRecord['hosts'] = []
  for (const h of rt.hosts) {
    const f = facts.get(h.host)!
    const role = rolesOn(t, h.host)[0]!
    hosts.push({
      engine: h.host.url,
      ...f,
      cpu_source: h.runtime.cpuSource,
      fingerprint: await hostFingerprint(h, role, o.scratch, f.kernel, cpus[role], o.log),
      images: [],
    })
  }
  const shared = rt.hostOf('generator') === rt.hostOf('proxy')
  if (!shared) o.log.progress(`network probe: ${rt.hostOf('generator').host.url} → ${rt.hostOf('proxy').host.url}`)
  const network = shared ? null : await networkProbe(rt, cpus, o.scratch, o.ca)
  if (network)
    o.log.info(
      `network ${network.from} → ${network.to}: ${network.connect_echo_p50_ms ?? '?'} ms per short connection (p50), ${network.stream_mib_per_s ?? '?'} MiB/s echoed${network.issue ? ` (${network.issue})` : ''}`,
    )
  return {
    source: t.source,
    roles: ROLES.map((r) => ({
      role: r,
      engine: t.roles[r].host.url,
      address: t.roles[r].host.address,
      cpuset: cpus[r],
      files: t.roles[r].host.copyFiles ? ('through the API' as const) : ('bind mounts' as const),
    })),
    hosts,
    network,
  }
}

/** The images each host's containers ran from, filled in at the end of the run. */
export function withImages(rec: HostsRecord, rt: MultiHostRuntime): HostsRecord {
  const used = rt.imagesUsed()
  return {
    ...rec,
    hosts: rec.hosts.map((h) => ({
      ...h,
      images: used.filter((u) => u.host === h.engine && u.component !== '-').map((u) => ({ image: u.image, id: u.id, sent: u.sent })),
    })),
  }
}

/** A resume must run on the hosts the run started on: the difference as a resume change line, or null. */
export function hostsChange(previous: { hosts?: HostsRecord }, t: Topology | undefined): string | null {
  const was = previous.hosts ? previous.hosts.roles.map((r) => `${r.role}=${r.engine}`).join(' ') : 'one machine'
  const now = t ? ROLES.map((r) => `${r}=${t.roles[r].host.url}`).join(' ') : 'one machine'
  return was === now ? null : `--hosts ${was} → ${now}`
}

/** Whether roles share cores anywhere: two roles on one host with overlapping cpusets. */
export function hostsShareCores(t: Topology, cpus: CpuLayout): boolean {
  return topologyHosts(t).some((h) => {
    const on = rolesOn(t, h).map((r) => cpus[r])
    return new Set(on).size < on.length || on.reduce((n, c) => n + cpuCount(c), 0) > new Set(on.flatMap(expand)).size
  })
}

const expand = (list: string) =>
  list.split(',').flatMap((p) => {
    const [a, b] = p.split('-').map(Number)
    return Array.from({ length: (b ?? a!) - a! + 1 }, (_, i) => a! + i)
  })
