import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type Docker from 'dockerode'
import type { RoleSpec } from '../types.ts'
import { bridgeSysctls } from './network.ts'
import { EXIT_MARK } from './stream.ts'

/** The harness's open-files limits, so containers get what native roles get. */
export function nofileLimits(): { soft: number; hard: number } | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'))
    const [soft, hard] = line!
      .split(/\s{2,}/)
      .slice(1, 3)
      .map(Number)
    return Number.isFinite(soft) && Number.isFinite(hard) ? { soft: hard!, hard: hard! } : null
  } catch {
    return null
  }
}

/**
 * The generator runs under a small sh wrapper that, when it exits, prints its exit code on
 * stdout and keeps the container (idle) alive, so its final CPU is read exactly.
 */
export function generatorEntrypoint(argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', `"$@"; c=$?; printf '${EXIT_MARK} %s\\n' "$c"; while :; do sleep 3600; done`, 'proxybench-generator', ...argv]
}

/** What a role's container is created from, besides its spec. */
export interface ContainerParts {
  name: string
  image: string
  entrypoint: readonly string[]
  env: Record<string, string>
  user: { uid: number; gid: number }
  labels: Record<string, string>
  /** `host` or the run's bridge network. */
  network: string
  binds: string[]
  /** No shared file system: files are put in through the API, so the root stays writable. */
  copyFiles: boolean
  init: boolean
  nofile: { soft: number; hard: number } | null
  /** Applied last (DockerRuntimeOptions.hostConfig). */
  hostConfig: Docker.HostConfig
}

/** The engine's create options: unprivileged, pinned to the spec's cpuset, read-only root with a tmpfs /tmp. */
export function containerConfig(spec: RoleSpec, p: ContainerParts): Docker.ContainerCreateOptions {
  return {
    name: p.name,
    Image: p.image,
    Entrypoint: p.entrypoint.slice(0, 1),
    Cmd: p.entrypoint.slice(1),
    Env: Object.entries(p.env).map(([k, v]) => `${k}=${v}`),
    WorkingDir: spec.cwd ? resolve(spec.cwd) : '/',
    User: `${p.user.uid}:${p.user.gid}`,
    Labels: p.labels,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    OpenStdin: false,
    HostConfig: {
      NetworkMode: p.network,
      ...(p.network !== 'host' ? { Sysctls: bridgeSysctls() } : {}),
      CpusetCpus: spec.cpus,
      Binds: p.binds,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      // The engine puts no archive into a read-only root, and a tmpfs would hide what was put under /tmp.
      ReadonlyRootfs: !p.copyFiles,
      ...(p.copyFiles ? {} : { Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=256m' } }),
      Init: p.init,
      Privileged: false,
      ...(p.nofile ? { Ulimits: [{ Name: 'nofile', Soft: p.nofile.soft, Hard: p.nofile.hard }] } : {}),
      LogConfig: { Type: 'json-file', Config: { 'max-size': '10m', 'max-file': '1' } },
      ...p.hostConfig,
    },
  }
}
