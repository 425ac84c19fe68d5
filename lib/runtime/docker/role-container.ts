import type { WriteStream } from 'node:fs'
import { basename, resolve } from 'node:path'
import type Docker from 'dockerode'
import type { KeyCopies } from '../key-copies.ts'
import type { Exit, RoleSpec, RunningRole } from '../types.ts'
import { copyOut } from './copy-in.ts'
import type { CountedContainer, CpuReads } from './cpu-reads.ts'
import type { RuntimeImages } from './images.ts'
import { chownRunDir, sleep, type Attached } from './lifecycle.ts'
import { planMounts, type MountPlan } from './mounts.ts'
import { signalName } from './stream.ts'

/*
 * One role's container for the Docker runtime (runtime.ts): what it is given before it is
 * created (prepareRole) and how it is followed once started (trackRole).
 */

export interface DockerRunningRole extends RunningRole {
  containerId: string
  image: string
  /** The container's address on the run's network (bridge mode only). */
  address?: string
}

/** What the runtime keeps per started container. */
export interface Entry extends CountedContainer {
  role: DockerRunningRole
  log: WriteStream
  logDone: Promise<void>
}

export interface PreparedRole {
  image: string
  env: Record<string, string>
  argv: string[]
  plan: MountPlan
  binds: string[]
}

/** A role's image, argv (behind the launcher), env, mount plan and binds; its run_dir made the container user's. */
export function prepareRole(
  spec: RoleSpec,
  o: { images: RuntimeImages; launcher: readonly string[]; user: { uid: number; gid: number }; copies: KeyCopies; copyFiles: boolean },
): PreparedRole {
  const resolved = o.images.resolve(spec)
  const { image, env } = resolved
  // Not at its host path: an image's /root may be closed to the container user.
  const launcherAt = o.launcher[0] ? `/opt/proxybench/${basename(o.launcher[0])}` : undefined
  const argv = launcherAt ? [launcherAt, ...o.launcher.slice(1), ...resolved.argv] : resolved.argv
  const plan = planMounts(spec, o.user, undefined, o.copies.keysDir)
  const binds = o.copyFiles ? [] : plan.mounts.map((m) => `${m.source}:${m.target}:${m.readOnly ? 'ro' : 'rw'}`)
  if (launcherAt) binds.push(`${o.launcher[0]}:${launcherAt}:ro`)
  for (const c of o.copyFiles ? [] : plan.copies) {
    if (process.getuid?.() !== 0) throw new Error(`${c.source} is not readable by ${o.user.uid}:${o.user.gid} inside the container`)
    binds.push(`${o.copies.copy(c.source)}:${c.target}:ro`)
  }
  if (spec.cwd && !o.copyFiles && process.getuid?.() === 0 && o.user.uid !== 0) chownRunDir(resolve(spec.cwd), o.user)
  return { image, env, argv, plan, binds }
}

/** The started role: its pid and address, and `exited`, which settles once its final CPU is read (the runtime keeps the entry). */
export async function trackRole(
  container: Docker.Container,
  spec: RoleSpec,
  o: { image: string; network: string; wrap: boolean; attached: Attached; cpu: CpuReads; copyFiles: boolean },
): Promise<Entry> {
  const { image, network, wrap } = o
  const { log, logDone, marked } = o.attached
  // After start, "not-running" answers at once for a container that already exited.
  const waited = container.wait({ condition: 'not-running' }) as Promise<{ StatusCode: number }>
  const info = await container.inspect()
  const role: DockerRunningRole = {
    spec,
    pid: info.State.Pid,
    containerId: container.id,
    image,
    exited: undefined as unknown as Promise<Exit>,
    ...(network !== 'host' ? { address: info.NetworkSettings.Networks[network]?.IPAddress } : {}),
  }
  const entry: Entry = { role, container, lastNs: 0, log, logDone }
  const settle = async (code: number): Promise<Exit> => {
    if (role.exit) return role.exit
    if (wrap) {
      await o.cpu.read(entry) // the container idles on: the final value
      if (o.copyFiles && spec.cwd) await copyOut(container, resolve(spec.cwd)).catch(() => 0)
    } else await Promise.race([logDone, sleep(2000)]) // a wrapped generator's stream never ends: no 2 s wait for it
    await new Promise<void>((r) => (wrap ? r() : log.end(r)))
    role.exit = { code, signal: signalName(code) }
    return role.exit
  }
  role.exited = Promise.race([
    waited.then(
      (r) => r.StatusCode,
      () => 137,
    ),
    marked,
  ]).then(settle)
  return entry
}
